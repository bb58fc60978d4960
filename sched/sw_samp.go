package sched

import (
	"cmp"
	"math"
	"slices"

	"github.com/mrsched/mrsched/cluster"
)

// samp is Shuffle-aware Map Placement (section 3.2, Fig. 4), run once per
// job at submission. It sorts the racks by how much of the job's input
// they hold, and adds them in that order to PreferredMapRacks while the
// estimated cross-rack traffic (remote map input plus cross-rack shuffle
// under SARP's placement) decreases. It also computes
// TentativeReducesPerRack, where SARP would put the reduces if the maps ran
// on those racks. Where the paper leaves choices open:
//
//   - A rack "contains" a block when one of the block's replicas is on it;
//     a block replicated on two racks counts in full towards both (HDFS's
//     default placement puts every block on two racks), since either rack
//     can read it locally. The sum over racks therefore exceeds the input.
//   - Racks holding equal input are ordered by how many active jobs
//     already prefer them, fewest first, then by rack ID. Fig. 5 relies on
//     such a tie-break: two jobs whose blocks are on both racks get one
//     rack each ("rack1 for job1, rack2 for job2").
//   - The estimate assumes a job's maps run where their input is, a block
//     with replicas on several chosen racks split equally between them
//     ("the nodes of each rack become available at roughly the same
//     rate"), and a block with no replica on a chosen rack read remotely
//     by the chosen racks in equal parts; map output follows the maps.
//     Shuffle volume is ShuffleInputRatio (1.0 at submission unless
//     known_ratios) times the input; SARP's integer reduce counts decide
//     which part of it crosses racks.
//   - Fig. 4's loop keeps the rack whose addition stopped the decrease
//     (it adds, then tests); the text says racks are added "until this
//     sum is minimized", so the last rack that lowered the traffic is
//     where the list ends.
//
// Jobs with no input (some trace jobs) weigh each map equally.
//
// Without SAMP (sw-nass-sarp) a job has no preferred racks and the
// tentative counts assume maps run on every rack holding their input.
func (p *ShuffleWatcher) samp(j *Job, s *swJob) {
	e := newSampEstimate(p.topo, j, s.ratio, p.cfg.knownRatios)
	order := e.rackOrder(p.rackPref)
	if !p.cfg.SAMP {
		s.tentative, _ = e.evaluate(order)
		return
	}
	best, k := math.Inf(1), 0
	var tentative []int32
	for n := 1; n <= len(order); n++ {
		t, traffic := e.evaluate(order[:n])
		if traffic >= best {
			break
		}
		best, k, tentative = traffic, n, t
	}
	s.mapRacks = make([]bool, p.topo.NumRacks())
	for _, r := range order[:k] {
		s.mapRacks[r] = true
		p.rackPref[r]++
	}
	s.tentative = tentative
}

// sampEstimate holds what SAMP's estimate needs about one job.
type sampEstimate struct {
	topo    *cluster.Topology
	file    *cluster.File
	bytes   []float64 // input of each map
	weight  []float64 // share of the job's map output each map makes
	shuffle float64   // estimated shuffle bytes
	reduces int
	in      []float64 // input per rack, a block counted on each rack it is on
	inSet   []bool    // scratch: racks in the set evaluated
	out     []float64 // scratch: map output per rack
}

func newSampEstimate(t *cluster.Topology, j *Job, ratio float64, known bool) *sampEstimate {
	nb := j.Input.Blocks
	e := &sampEstimate{topo: t, file: j.Input, bytes: make([]float64, nb), weight: make([]float64, nb),
		reduces: j.NumReduces, in: make([]float64, t.NumRacks()),
		inSet: make([]bool, t.NumRacks()), out: make([]float64, t.NumRacks())}
	var input float64
	if j.Spec != nil && j.Spec.InputBytes > 0 {
		bb := t.Config().BlockBytes()
		for i := range nb {
			e.bytes[i] = float64(j.Spec.MapInputBytes(i, bb))
			input += e.bytes[i]
		}
	}
	for i := range nb {
		e.weight[i] = 1
		if input > 0 {
			e.weight[i] = e.bytes[i]
		}
		for r := range blockRacks(e.topo, e.file, i) {
			e.in[r] += e.weight[i]
		}
	}
	switch {
	case input > 0 && !math.IsInf(ratio, 0):
		e.shuffle = ratio * input
	case known && j.Spec != nil:
		e.shuffle = float64(j.Spec.ShuffleBytes)
	}
	return e
}

// rackOrder lists the racks holding input, most input first, ties to the
// rack fewer active jobs prefer, then to the lower ID (Fig. 4, line 1).
func (e *sampEstimate) rackOrder(pref []int32) []cluster.RackID {
	var order []cluster.RackID
	for r, b := range e.in {
		if b > 0 {
			order = append(order, cluster.RackID(r))
		}
	}
	slices.SortFunc(order, func(a, b cluster.RackID) int {
		return cmp.Or(cmp.Compare(e.in[b], e.in[a]), cmp.Compare(pref[a], pref[b]), cmp.Compare(a, b))
	})
	return order
}

// evaluate estimates, for maps placed on racks set, where SARP would put
// the reduces and the cross-rack traffic: remote map input plus
// cross-rack shuffle (Fig. 4, line 6).
func (e *sampEstimate) evaluate(set []cluster.RackID) (tentative []int32, traffic float64) {
	clear(e.inSet)
	clear(e.out)
	for _, r := range set {
		e.inSet[r] = true
	}
	remote := 0.0
	for i := range e.bytes {
		h := 0
		for r := range blockRacks(e.topo, e.file, i) {
			if e.inSet[r] {
				h++
			}
		}
		if h == 0 {
			remote += e.bytes[i]
			for _, r := range set {
				e.out[r] += e.weight[i] / float64(len(set))
			}
			continue
		}
		for r := range blockRacks(e.topo, e.file, i) {
			if e.inSet[r] {
				e.out[r] += e.weight[i] / float64(h)
			}
		}
	}
	tentative = largestRemainder(e.reduces, e.out)
	total := 0.0
	for _, b := range e.out {
		total += b
	}
	cross := 0.0
	if e.reduces > 0 && total > 0 {
		for r, b := range e.out {
			cross += b / total * (1 - float64(tentative[r])/float64(e.reduces))
		}
	}
	return tentative, remote + e.shuffle*cross
}

// PreferredMapRacks is SAMP's choice of racks for job j's maps, in rack
// order; nil without SAMP.
func (p *ShuffleWatcher) PreferredMapRacks(j *Job) []cluster.RackID {
	var out []cluster.RackID
	for r, in := range p.state(j).mapRacks {
		if in {
			out = append(out, cluster.RackID(r))
		}
	}
	return out
}

// TentativeReducesPerRack is SAMP's estimate of how many of job j's
// reduces each rack should run, by rack.
func (p *ShuffleWatcher) TentativeReducesPerRack(j *Job) []int {
	return int32s(p.state(j).tentative)
}

func int32s(v []int32) []int {
	if v == nil {
		return nil
	}
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}

// PrefersMapRack reports whether rack r is in job j's PreferredMapRacks;
// false without SAMP or for a job ShuffleWatcher does not track.
func (p *ShuffleWatcher) PrefersMapRack(j *Job, r cluster.RackID) bool {
	if j.Index >= len(p.jobs) {
		return false
	}
	m := p.jobs[j.Index].mapRacks
	return int(r) < len(m) && m[r]
}
