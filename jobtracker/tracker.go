// Package jobtracker is the master's bookkeeping of a MapReduce run, as
// Hadoop 1's JobTracker keeps it in its JobInProgress and TaskInProgress
// objects: the active jobs and the sched.Job each policy reads, every
// task's attempts, where they run and how they ended, the slots, cores and
// memory each node has free, and the rules that connect them (slow start,
// retries, failing a job, kills for preemption).
//
// A Tracker is a single-threaded, deterministic state machine: what it
// does depends only on the sequence of calls it is given, never on a
// clock, a goroutine or a random draw, and it keeps per-node data in
// slices and orders everything it walks (jobs by submit, attempts by
// launch). Both the simulator (sim) and the testbed's master drive it;
// what differs between them, time, transfers, disks, random draws and
// wire messages, stays with the driver, which must:
//
//   - call SetNow before each event it feeds the tracker, so that the
//     clock does not move inside a call;
//   - hand it the uplink sample the policies read (SetUplinks) and the
//     nodes that die and come back;
//   - carry out what the tracker asks of it, in the order it asks.
//
// The Tracker is also the policies' view of the cluster: it implements
// sched.Cluster from its own state.
package jobtracker

import (
	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
)

// Config is what a Tracker needs to know of the run besides its jobs.
type Config struct {
	// Topology is the cluster's shape: its nodes, racks and their slots.
	Topology *cluster.Topology
	// Slots is what every node of a uniform cluster owns, by slot kind
	// (map, reduce, container): the topology's, or more reduce places
	// under copy-compute splitting. A cluster whose nodes differ takes
	// each node's own from the topology.
	Slots [3]int
}

// node is the tracker's view of one node: its slots, and what its
// running attempts hold.
type node struct {
	free [3]int
	// freed counts the slots, by kind, that attempts ending on the node
	// have freed since its last offer (sched.Offer.Freed).
	freed            [3]int32
	usedCPU, usedMem float64
	// down: the node is dead (killed, not restored); gone: it has been
	// declared lost, so its slots left the cluster; wiped: it was
	// declared lost at some time, so it holds no replica of the files
	// placed before.
	down, gone, wiped bool
}

// Tracker is one run's job tracker. Build it with New.
type Tracker struct {
	cfg  Config
	topo *cluster.Topology
	now  float64
	// epoch changes whenever a job's demand may have changed
	// (sched.Cluster.Epoch).
	epoch  uint64
	active []*sched.Job
	nodes  []node
	// slotTotal is the cluster's slots by kind, without the lost nodes'.
	slotTotal [3]int
	// running counts the attempts that hold a slot.
	running int
	// launchableMaps and launchableReduces count the tasks a policy could
	// launch now, over every active job: pending maps, and pending reduces
	// of jobs whose reduces are enabled.
	launchableMaps, launchableReduces int
	uplink                            [][2]float64
}

// New returns a tracker for a run on cfg.Topology with every node alive
// and idle.
func New(cfg Config) *Tracker {
	t := &Tracker{cfg: cfg, topo: cfg.Topology}
	t.nodes = make([]node, t.topo.NumNodes())
	for i := range t.nodes {
		t.nodes[i].free = t.SlotsOf(cluster.NodeID(i))
		for k := range t.slotTotal {
			t.slotTotal[k] += t.nodes[i].free[k]
		}
	}
	return t
}

// SetNow sets the time the tracker's next calls happen at.
func (t *Tracker) SetNow(now float64) { t.now = now }

// SetUplinks gives the tracker the uplink sample policies read, one entry
// a rack (up, down). The tracker reads u as the driver rewrites it, so
// that it is given once.
func (t *Tracker) SetUplinks(u [][2]float64) { t.uplink = u }

// SlotsOf is the slots node n owns, by kind.
func (t *Tracker) SlotsOf(n cluster.NodeID) [3]int {
	if t.topo.Uniform() {
		return t.cfg.Slots
	}
	return t.topo.Slots(n)
}

// BumpEpoch marks that a job's demand may have changed.
func (t *Tracker) BumpEpoch() { t.epoch++ }

// HasFree reports whether node n has a free slot of any kind.
func (t *Tracker) HasFree(n cluster.NodeID) bool { return t.nodes[n].free != [3]int{} }

// Take takes one of node n's free slots of kind k for an attempt.
func (t *Tracker) Take(n cluster.NodeID, k sched.SlotKind) {
	t.nodes[n].free[k]--
	t.running++
}

// Release gives back node n's slot of kind k, which an attempt held, and
// reports whether the node now has more free slots of the kind than it
// owns (a broken invariant).
func (t *Tracker) Release(n cluster.NodeID, k sched.SlotKind) (over bool) {
	ns := &t.nodes[n]
	ns.free[k]++
	ns.freed[k]++
	t.running--
	return ns.free[k] > t.SlotsOf(n)[k]
}

// TakeFreed returns how many slots of each kind attempts ending on node n
// freed since the last call, and resets the count.
func (t *Tracker) TakeFreed(n cluster.NodeID) [3]int32 {
	f := t.nodes[n].freed
	t.nodes[n].freed = [3]int32{}
	return f
}

// Running is the number of attempts holding a slot.
func (t *Tracker) Running() int { return t.running }

// Hold adds (sign 1) or releases (sign -1) cpu cores and mem GB of a
// task's demand on node n.
func (t *Tracker) Hold(n cluster.NodeID, cpu, mem, sign float64) {
	t.nodes[n].usedCPU += sign * cpu
	t.nodes[n].usedMem += sign * mem
}

// Used is the CPU and memory node n's attempts hold.
func (t *Tracker) Used(n cluster.NodeID) (cpu, mem float64) {
	return t.nodes[n].usedCPU, t.nodes[n].usedMem
}

// Down reports whether node n is dead: killed and not restored.
func (t *Tracker) Down(n cluster.NodeID) bool { return t.nodes[n].down }

// Gone reports whether node n has been declared lost since its last kill.
func (t *Tracker) Gone(n cluster.NodeID) bool { return t.nodes[n].gone }

// Wiped reports whether node n was ever declared lost: it holds no
// replica of the files placed before the run.
func (t *Tracker) Wiped(n cluster.NodeID) bool { return t.nodes[n].wiped }

// SetDown marks node n dead.
func (t *Tracker) SetDown(n cluster.NodeID) { t.nodes[n].down = true }

// SetLost declares dead node n lost: it holds no replica any more, and
// its slots leave the cluster.
func (t *Tracker) SetLost(n cluster.NodeID) {
	ns := &t.nodes[n]
	ns.wiped = true
	ns.gone = true
	owned := t.SlotsOf(n)
	for k := range t.slotTotal {
		t.slotTotal[k] -= owned[k]
	}
	ns.free = [3]int{}
}

// SetRestored brings node n back empty, its slots in the cluster again.
func (t *Tracker) SetRestored(n cluster.NodeID) {
	ns := &t.nodes[n]
	ns.down, ns.gone = false, false
	ns.usedCPU, ns.usedMem = 0, 0
	ns.free = t.SlotsOf(n)
	for k := range t.slotTotal {
		t.slotTotal[k] += ns.free[k]
	}
}

// Activate adds job j, just submitted, to the active jobs, its maps
// launchable.
func (t *Tracker) Activate(j *sched.Job) {
	t.active = append(t.active, j)
	t.launchableMaps += j.NumMaps
}

// Deactivate takes job j out of the active jobs.
func (t *Tracker) Deactivate(j *sched.Job) {
	for k, a := range t.active {
		if a == j {
			t.active = append(t.active[:k], t.active[k+1:]...)
			break
		}
	}
}

// AddLaunchable changes the launchable counts by maps and reduces.
func (t *Tracker) AddLaunchable(maps, reduces int) {
	t.launchableMaps += maps
	t.launchableReduces += reduces
}

// Launchable returns the launchable maps and reduces.
func (t *Tracker) Launchable() (maps, reduces int) { return t.launchableMaps, t.launchableReduces }

// LaunchableFor reports whether some active job has a task a slot of
// kind k could take: an offer for a slot no task could take is not made.
func (t *Tracker) LaunchableFor(k sched.SlotKind) bool {
	switch k {
	case sched.MapSlot:
		return t.launchableMaps > 0
	case sched.ReduceSlot:
		return t.launchableReduces > 0
	}
	return t.launchableMaps > 0 || t.launchableReduces > 0
}

// SlotTotals is the cluster's slots by kind, as TotalSlots gives them.
func (t *Tracker) SlotTotals() [3]int { return t.slotTotal }

// The policies' view (sched.Cluster), from the tracker's state.

// Now is the time of the tracker's current call (SetNow).
func (t *Tracker) Now() float64 { return t.now }

// Topology is the cluster's shape.
func (t *Tracker) Topology() *cluster.Topology { return t.topo }

// Jobs returns the active jobs in submit order.
func (t *Tracker) Jobs() []*sched.Job { return t.active }

// FreeSlots returns node n's free slots of kind k.
func (t *Tracker) FreeSlots(n cluster.NodeID, k sched.SlotKind) int { return t.nodes[n].free[k] }

// TotalSlots returns the cluster's slots of kind k.
func (t *Tracker) TotalSlots(k sched.SlotKind) int { return t.slotTotal[k] }

// Epoch changes whenever demand may have changed.
func (t *Tracker) Epoch() uint64 { return t.epoch }

// UplinkUtilization is rack r's uplink use over the last monitor period,
// as the driver's last sample (SetUplinks) gives it.
func (t *Tracker) UplinkUtilization(r cluster.RackID) (up, down float64) {
	u := t.uplink[r]
	return u[0], u[1]
}

// FreeResources is node n's CPU and memory not held by running attempts.
func (t *Tracker) FreeResources(n cluster.NodeID) (cpu, memGB float64) {
	c, m := t.topo.Resources(n)
	return c - t.nodes[n].usedCPU, m - t.nodes[n].usedMem
}
