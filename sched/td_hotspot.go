package sched

import "github.com/mrsched/mrsched/cluster"

// Hotspots (TD paper, section IV-A.2). The extracted text lost several
// symbols; this is the reconstruction mrsched implements:
//
//   - θ is the connection threshold: "node n is an actual hotspot if the
//     total number of the nodes which occur data transmission with n is
//     larger than the threshold θ", and β is the node's network I/O
//     bandwidth: "the performance will not be affected if the data
//     transmission speed can reach β/θ".
//   - σ is the split size. A hot-queue tuple (n, t) is overdue when
//     t + σ×θ/β <= t_cur: one split's transfer time at the
//     per-connection share β/θ. Here σ is the cluster's block size and β
//     the node's NIC (cluster.Config.NICMbps); every tuple lives equally
//     long, so the queue is ordered by expiry and overdue tuples are
//     dropped from its head at every decision (the paper inspects it
//     "periodically").
//   - count_n is the number of tuples naming n; "if count_n = θ, we
//     forbid more connections to n".
//   - R_n = Σ_{j ∈ S'_sch} amt(j) × rs_jn, rs_jn the untreated maps of job
//     j with a replica on n, summed over the co-scheduled jobs
//     (infantile, teenaged, adult; senile jobs have none).
//   - GetNonHotspotNode(j) takes N_j, the nodes holding untreated maps of
//     j, drops those with count_n >= θ (and, unless allow_off_rack, those
//     outside the offered node's rack, as the paper's experiments ran),
//     and returns the one with the largest R_n, ties to the lowest node ID.
//
// A hotspot occurrence, for TDStats, is event-based: a node's concurrent
// non-local reads (maps TD launched reading from it, from launch to end)
// rising above hot_threshold. Tuples expire on a timer, reads end with
// their maps, so a slow (CPU-bound) read can outlive its tuple and a node
// can exceed θ: that is what the count measures.

// tdLoc counts a co-scheduled job's untreated maps by node: rs[n] is rs_jn,
// holders the nodes with rs[n] > 0 (N_j), at[n] a holder's position + 1.
type tdLoc struct {
	rs      []int32
	at      []int32
	holders []cluster.NodeID
	stale   bool // counts disagree with the job's MapIndex: rebuild
}

// tdHotQueue is the hot queue and its statistical table (count_n).
type tdHotQueue struct {
	node  []cluster.NodeID
	t     []float64
	head  int
	count []int32
	ttl   float64 // σθ/β, seconds
}

func (h *tdHotQueue) push(n cluster.NodeID, t float64) {
	h.node = append(h.node, n)
	h.t = append(h.t, t)
	h.count[n]++
}

// expire drops overdue tuples from the head.
func (h *tdHotQueue) expire(now float64) {
	for h.head < len(h.t) && h.t[h.head]+h.ttl <= now {
		h.count[h.node[h.head]]--
		h.head++
	}
	if h.head == len(h.t) {
		h.node, h.t, h.head = h.node[:0], h.t[:0], 0
	} else if h.head >= 256 && 2*h.head >= len(h.t) {
		k := copy(h.node, h.node[h.head:])
		copy(h.t, h.t[h.head:])
		h.node, h.t, h.head = h.node[:k], h.t[:k], 0
	}
}

// trackLocality counts the untreated maps of a job that has just been
// co-scheduled and adds its work to every node's R_n.
func (p *TD) trackLocality(s *tdJob) {
	l := &s.loc
	if l.rs == nil {
		if k := len(p.locPool); k > 0 {
			*l = p.locPool[k-1]
			p.locPool = p.locPool[:k-1]
		} else {
			nn := p.topo.NumNodes()
			*l = tdLoc{rs: make([]int32, nn), at: make([]int32, nn)}
		}
	}
	l.stale = false
	j := s.job
	for i := range j.NumMaps {
		if !j.Maps.IsPending(i) {
			continue
		}
		for _, n := range j.Input.BlockReplicas(i) {
			if l.rs[n] == 0 {
				l.holders = append(l.holders, n)
				l.at[n] = int32(len(l.holders))
			}
			l.rs[n]++
			p.remWork[n] += s.amt
		}
	}
}

// untrackLocality removes a job's remaining work and returns its counts to
// the pool.
func (p *TD) untrackLocality(s *tdJob) {
	l := &s.loc
	if l.rs == nil {
		return
	}
	for _, n := range l.holders {
		p.remWork[n] -= s.amt * float64(l.rs[n])
		l.rs[n], l.at[n] = 0, 0
	}
	l.holders = l.holders[:0]
	p.locPool = append(p.locPool, *l)
	*l = tdLoc{}
}

// freshLocality rebuilds a job's counts if they went stale.
func (p *TD) freshLocality(s *tdJob) {
	if s.loc.stale {
		p.untrackLocality(s)
		p.trackLocality(s)
	}
}

// decLocality counts one untreated map with a replica on n as launched.
func (p *TD) decLocality(s *tdJob, n cluster.NodeID) {
	l := &s.loc
	if l.rs[n] <= 0 {
		l.stale = true
		return
	}
	l.rs[n]--
	p.remWork[n] -= s.amt
	if l.rs[n] == 0 {
		k := l.at[n] - 1
		last := l.holders[len(l.holders)-1]
		l.holders[k] = last
		l.at[last] = k + 1
		l.holders = l.holders[:len(l.holders)-1]
		l.at[n] = 0
	}
}

// hasLocal reports whether node n holds an untreated map of s.
func (p *TD) hasLocal(s *tdJob, n cluster.NodeID) bool {
	p.freshLocality(s)
	return s.loc.rs[n] > 0
}

// nonHotspotNode is GetNonHotspotNode(j) for a slot on node n.
func (p *TD) nonHotspotNode(s *tdJob, n cluster.NodeID) (cluster.NodeID, bool) {
	p.freshLocality(s)
	rack := p.topo.Rack(n)
	best, found := cluster.NodeID(0), false
	bestR := 0.0
	for _, h := range s.loc.holders {
		if p.hot.count[h] >= p.cfg.conn || (!p.cfg.offRack && p.topo.Rack(h) != rack) {
			continue
		}
		if r := p.remWork[h]; !found || r > bestR || (r == bestR && h < best) {
			best, bestR, found = h, r, true
		}
	}
	return best, found
}

// tdRun is a running map TD launched: for amt(j) and the read counts.
type tdRun struct {
	job    *tdJob
	start  float64
	m      int32 // map index, -1 if TD did not decide the launch
	src    cluster.NodeID
	remote bool
}

// takeRun removes the running map of s on node n that ended. TaskEnded
// does not say which map it was; when s runs one map on n, or several
// that read alike, the oldest is taken (the sum of their durations, and so
// amt(j) once all end, does not depend on the pairing). Only when maps of
// s on n read from different sources does it ask the cluster which are
// still running (Cluster.RunningTasks allocates, so not otherwise).
func (p *TD) takeRun(c Cluster, n cluster.NodeID, s *tdJob) (tdRun, bool) {
	l := p.running[n]
	k := -1
	for i, r := range l {
		if r.job != s {
			continue
		}
		if k < 0 {
			k = i
		} else if r.src != l[k].src || r.remote != l[k].remote {
			k = p.endedRun(c, l, n, s, k)
			break
		}
	}
	if k < 0 {
		return tdRun{}, false
	}
	r := l[k]
	copy(l[k:], l[k+1:])
	p.running[n] = l[:len(l)-1]
	return r, true
}

// endedRun finds, among s's runs on n, one whose map no longer runs; dflt
// if none can be told.
func (p *TD) endedRun(c Cluster, l []tdRun, n cluster.NodeID, s *tdJob, dflt int) int {
	live := c.RunningTasks(s.job)
	for i, r := range l {
		if r.job != s || r.m < 0 {
			continue
		}
		running := false
		for _, t := range live {
			if t.Kind == MapTask && t.Node == n && t.Index == int(r.m) {
				running = true
				break
			}
		}
		if !running {
			return i
		}
	}
	return dflt
}

// pushFreed remembers that a slot on n was freed by a map of s. Records
// are kept per node, oldest first, at most one per slot.
func (p *TD) pushFreed(n cluster.NodeID, s *tdJob) {
	l := p.freed[n]
	limit := p.slotsPerNode
	if !p.topo.Uniform() {
		sl := p.topo.Slots(n) // this node's own slots
		limit = max(sl[0], sl[2], 1)
	}
	if len(l) > 0 && len(l) >= limit {
		copy(l, l[1:])
		l = l[:len(l)-1]
	}
	p.freed[n] = append(l, s)
}

// popFreed drops node n's oldest record, once a slot there is filled.
func (p *TD) popFreed(n cluster.NodeID) {
	if l := p.freed[n]; len(l) > 0 {
		copy(l, l[1:])
		l[len(l)-1] = nil
		p.freed[n] = l[:len(l)-1]
	}
}
