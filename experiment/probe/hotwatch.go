package probe

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/experiment/harness"
	"github.com/mrsched/mrsched/sched"
)

// HotWatch wraps a policy and counts hotspot occurrences with TD's own
// definition (sched.TDStats): a node's concurrent non-local reads (maps
// reading their block from it on another node, launch to end) rising
// above the threshold, sched.DefaultTDConnectionLimit (4, TD's θ).
//
// FIFO and Fair leave the replica to the engine, which reads the nearest,
// a random one among equally near ones (HDFS's rule). The engine does not
// report its choice, so the wrapper makes it: for a non-local map without
// a Source it picks the nearest replica, uniformly at random among equally
// near ones (its own stream, keyed by the run's seed), and sets
// Decision.Source. That is the engine's rule, so the run is the same in
// distribution as without the wrapper, and the counted sources are the
// ones read. On a cluster with cluster.Hadoop020's replica order
// it draws by that order instead, as the engine would. TD sets
// Source itself and is only observed.
type HotWatch struct {
	harness.PassThrough
	thr int32
	rnd *rand.Rand

	reads []int32
	runs  harness.MapRuns[hwRead]
	// Times are the hotspot occurrences.
	Times []float64
	buf   []cluster.NodeID
}

// Fifths counts the hotspot occurrences in each fifth of [0, end], the
// stages of the TD paper's Table I (all in the first when end is 0).
func (h *HotWatch) Fifths(end float64) [5]int {
	var n [5]int
	for _, t := range h.Times {
		k := 0
		if end > 0 {
			k = min(4, max(0, int(5*t/end)))
		}
		n[k]++
	}
	return n
}

// hwRead is where a map attempt reads: the source node, and whether it is
// another node.
type hwRead struct {
	src    cluster.NodeID
	remote bool
}

// NewHotWatch counts inner's hotspots above thr concurrent non-local
// reads of a node, drawing replicas from a stream keyed by seed.
func NewHotWatch(inner sched.Policy, thr int, seed uint64) *HotWatch {
	return &HotWatch{PassThrough: harness.PassTo(inner), thr: int32(thr), rnd: rand.New(rand.NewPCG(seed, 0x686f74))} // "hot"
}

// Assign asks the inner policy and names the replica a map it chose
// reads.
func (h *HotWatch) Assign(c sched.Cluster, o sched.Offer) (sched.Decision, bool) {
	if h.reads == nil {
		nn := c.Topology().NumNodes()
		h.reads = make([]int32, nn)
	}
	h.runs.Forget()
	d, ok := h.Inner.Assign(c, o)
	if !ok || d.Kind != sched.MapTask {
		return d, ok
	}
	reps := d.Job.Input.BlockReplicas(d.Map)
	if !d.SourceSet {
		t := c.Topology()
		if t.Config().ReplicaChoice == cluster.Hadoop020 {
			// Hadoop 0.20's order (td/regime): the engine's rule for
			// that choice, drawn from this wrapper's stream.
			d.Source = cluster.ReadReplica(t, reps, o.Node, nil, h.rnd)
		} else {
			d.Source = h.nearest(t, reps, o.Node)
		}
		d.SourceSet = true
	}
	h.runs.Decided(d.Job, d.Map, o.Node, hwRead{src: d.Source, remote: d.Source != o.Node})
	return d, true
}

// nearest is the engine's replica rule: the node itself, else the nearest
// replicas, one at random.
func (h *HotWatch) nearest(t *cluster.Topology, reps []cluster.NodeID, n cluster.NodeID) cluster.NodeID {
	if slices.Contains(reps, n) {
		return n
	}
	best := cluster.Reach(math.MaxInt8)
	h.buf = h.buf[:0]
	for _, r := range reps {
		switch reach := t.ReachOf(r, n); {
		case reach < best:
			best = reach
			h.buf = append(h.buf[:0], r)
		case reach == best:
			h.buf = append(h.buf, r)
		}
	}
	return h.buf[h.rnd.IntN(len(h.buf))]
}

// TaskLaunched forwards and counts a non-local read starting.
func (h *HotWatch) TaskLaunched(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID) {
	h.PassThrough.TaskLaunched(c, j, k, n)
	if k != sched.MapTask || h.reads == nil {
		return
	}
	r := h.runs.Launched(c, j, n, hwRead{src: n}).Note
	if r.remote {
		h.reads[r.src]++
		if h.reads[r.src] == h.thr+1 {
			h.Times = append(h.Times, c.Now())
		}
	}
}

// TaskEnded forwards and counts a non-local read ending.
func (h *HotWatch) TaskEnded(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID, killed bool) {
	h.PassThrough.TaskEnded(c, j, k, n, killed)
	if k != sched.MapTask || h.reads == nil {
		return
	}
	// Attempts that read alike count alike: which of them ended does not
	// matter.
	if r, ok := h.runs.Ended(c, j, n, func(a, b hwRead) bool { return a == b }, false); ok && r.Note.remote {
		h.reads[r.Note.src]--
	}
}
