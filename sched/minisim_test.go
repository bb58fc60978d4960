package sched_test

import (
	"slices"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/workload"
)

// miniSim is a small engine for policy tests, after sim.Engine but without
// a network: every node has `slots` slots of one kind (map slots, or
// containers), a task runs for a duration the test chooses, and a node is
// offered its free slots when a task ends and on a heartbeat every hb
// seconds, phased over the period. Jobs are map-only. It implements
// sched.Cluster, with FreeResources from the node's CPUCores and MemoryGB
// minus the demands of its running tasks.
type miniSim struct {
	t     *testing.T
	topo  *cluster.Topology
	pol   sched.Policy
	slot  sched.SlotKind
	slots int
	hb    float64
	dur   func(j *sched.Job, reach cluster.Reach) float64

	now      float64
	epoch    uint64
	jobs     []*sched.Job
	free     []int
	cpu, mem []float64
	nextHB   []float64
	running  []miniTask

	launches []miniLaunch
	finish   map[int]float64
}

type miniTask struct {
	end  float64
	job  *sched.Job
	node cluster.NodeID
}

type miniLaunch struct {
	t     float64
	job   int
	node  cluster.NodeID
	reach cluster.Reach
}

var _ sched.Cluster = (*miniSim)(nil)

func newMiniSim(t *testing.T, topo *cluster.Topology, pol sched.Policy, slot sched.SlotKind, slots int) *miniSim {
	n := topo.NumNodes()
	s := &miniSim{t: t, topo: topo, pol: pol, slot: slot, slots: slots, hb: 3,
		free: make([]int, n), cpu: make([]float64, n), mem: make([]float64, n), nextHB: make([]float64, n),
		finish: map[int]float64{},
		dur:    func(*sched.Job, cluster.Reach) float64 { return 10 },
	}
	for i := range s.free {
		s.free[i] = slots
		s.nextHB[i] = s.hb * float64(i) / float64(n)
	}
	return s
}

func (s *miniSim) Now() float64                { return s.now }
func (s *miniSim) Topology() *cluster.Topology { return s.topo }
func (s *miniSim) Jobs() []*sched.Job          { return s.jobs }
func (s *miniSim) Epoch() uint64               { return s.epoch }
func (s *miniSim) FreeSlots(n cluster.NodeID, k sched.SlotKind) int {
	if k != s.slot {
		return 0
	}
	return s.free[n]
}
func (s *miniSim) TotalSlots(k sched.SlotKind) int {
	if k != s.slot {
		return 0
	}
	return s.slots * s.topo.NumNodes()
}
func (s *miniSim) ReduceAdmissible(*sched.Job, cluster.NodeID) bool { return true }

func (s *miniSim) FreeResources(n cluster.NodeID) (cpu, memGB float64) {
	cfg := s.topo.Config()
	return cfg.CPUCores - s.cpu[n], cfg.MemoryGB - s.mem[n]
}
func (s *miniSim) RunningTasks(*sched.Job) []sched.TaskRef             { return nil }
func (s *miniSim) UplinkUtilization(cluster.RackID) (up, down float64) { return 0, 0 }

// mapJob builds a map-only job of pool whose block i has replicas
// blocks[i]; spec, when given, supplies input size and task demands.
func mapJob(t *testing.T, topo *cluster.Topology, index int, pool string, spec *workload.Job, blocks ...[]cluster.NodeID) *sched.Job {
	t.Helper()
	f := fileWith(t, topo, blocks...)
	if spec == nil {
		spec = &workload.Job{}
	}
	spec.ID, spec.Pool, spec.NumMaps, spec.NumReduces = index, pool, len(blocks), 0
	return &sched.Job{Spec: spec, Index: index, Pool: pool, NumMaps: len(blocks),
		Maps: sched.NewMapIndex(topo, f), Input: f}
}

// on repeats one replica list n times: n blocks all stored on nodes.
func on(n int, nodes ...cluster.NodeID) [][]cluster.NodeID {
	out := make([][]cluster.NodeID, n)
	for i := range out {
		out[i] = nodes
	}
	return out
}

// add submits j now.
func (s *miniSim) add(j *sched.Job) {
	j.Submit = s.now
	s.jobs = append(s.jobs, j)
	s.epoch++
	if o, ok := s.pol.(sched.JobObserver); ok {
		o.JobAdded(s, j)
	}
}

// offer asks the policy to fill node n's free slots.
func (s *miniSim) offer(n cluster.NodeID) {
	for s.free[n] > 0 {
		d, ok := s.pol.Assign(s, sched.Offer{Node: n, Slot: s.slot})
		if !ok {
			return
		}
		s.apply(n, d)
	}
}

func (s *miniSim) apply(n cluster.NodeID, d sched.Decision) {
	s.t.Helper()
	j := d.Job
	if d.Kind != sched.MapTask || !j.Maps.IsPending(d.Map) {
		s.t.Fatalf("t=%v: policy decided %+v on node %d: not a pending map", s.now, d, n)
	}
	reach := j.Maps.Reach(d.Map, n)
	j.Maps.Take(d.Map)
	j.RunningMaps++
	s.free[n]--
	c, m := j.Spec.Profile.TaskDemand(true)
	s.cpu[n] += c
	s.mem[n] += m
	s.running = append(s.running, miniTask{end: s.now + s.dur(j, reach), job: j, node: n})
	s.launches = append(s.launches, miniLaunch{t: s.now, job: j.Index, node: n, reach: reach})
	if o, ok := s.pol.(sched.TaskObserver); ok {
		o.TaskLaunched(s, j, sched.MapTask, n)
	}
}

// run steps until every job has finished or the clock passes until.
func (s *miniSim) run(until float64) {
	for len(s.jobs) > 0 && s.now <= until {
		next := slices.Min(s.nextHB)
		for _, r := range s.running {
			next = min(next, r.end)
		}
		s.now = next
		var freed []cluster.NodeID
		keep := s.running[:0]
		var ended []miniTask
		for _, r := range s.running {
			if r.end <= s.now {
				ended = append(ended, r)
			} else {
				keep = append(keep, r)
			}
		}
		s.running = keep
		for _, r := range ended {
			s.end(r)
			if !slices.Contains(freed, r.node) {
				freed = append(freed, r.node)
			}
		}
		for _, n := range freed {
			s.offer(n)
		}
		for n := range s.nextHB {
			if s.nextHB[n] <= s.now {
				s.nextHB[n] += s.hb
				s.offer(cluster.NodeID(n))
			}
		}
	}
}

func (s *miniSim) end(r miniTask) {
	j := r.job
	j.RunningMaps--
	j.FinishedMaps++
	s.free[r.node]++
	c, m := j.Spec.Profile.TaskDemand(true)
	s.cpu[r.node] -= c
	s.mem[r.node] -= m
	s.epoch++
	if o, ok := s.pol.(sched.TaskObserver); ok {
		o.TaskEnded(s, j, sched.MapTask, r.node, false)
	}
	if j.FinishedMaps == j.NumMaps {
		s.jobs = slices.DeleteFunc(s.jobs, func(x *sched.Job) bool { return x == j })
		s.finish[j.Index] = s.now
		if o, ok := s.pol.(sched.JobObserver); ok {
			o.JobRemoved(s, j)
		}
	}
}

// nodesUsed is the number of distinct nodes that ran a task of job.
func (s *miniSim) nodesUsed(job int) int {
	var seen []cluster.NodeID
	for _, l := range s.launches {
		if l.job == job && !slices.Contains(seen, l.node) {
			seen = append(seen, l.node)
		}
	}
	return len(seen)
}

// runningOf counts the running tasks of pool's jobs.
func (s *miniSim) runningOf(pool string) int {
	n := 0
	for _, r := range s.running {
		if r.job.Pool == pool {
			n++
		}
	}
	return n
}
