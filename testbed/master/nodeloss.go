package master

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/faults"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/testbed/wire"
)

// Node loss on the testbed, by the rules of docs/faults.md, which the
// simulator follows too (sim/nodeloss.go).
//
// At a kill the master has the node's worker killed (SIGKILL): its
// connections break as a dead machine's do, and the workers that were
// reading from it, fetching from it or writing through it find out at
// once (a read moves to another replica, a fetch fails, is reported and
// retried with a back-off until the outputs are declared obsolete and made
// again, a pipeline drops the node). The master itself learns
// nothing until the node expires, engine.node_expiry_s later without a
// heartbeat, as Hadoop 1's JobTracker does: then it declares the node
// lost, fails its attempts, runs again the maps whose output it held,
// forgets its replicas, and takes its slots out of the cluster. A restore
// starts a new worker on the node, with an empty store.

// faultAction is a kill, restore or expiry due at a scenario time.
type faultAction struct {
	at     float64
	seq    int // ties keep the events' order
	event  *faults.Event
	expiry cluster.NodeID // for an expiry (event nil)
	life   int            // the node's life an expiry belongs to
}

type nodeLife struct {
	// down: nothing is sent to the node's worker (killed, exited or
	// expired); gone: the node is declared lost; killed: a faults: kill
	// took it (its expiry is scheduled); expired: lost by heartbeat
	// expiry, its old worker possibly still alive.
	down, gone, killed, expired bool
	life                        int
	exit                        string // how its worker ended, if it did
}

// scheduleFaults queues the run's events.
func (m *Master) scheduleFaults() {
	for i := range m.cfg.Faults {
		ev := &m.cfg.Faults[i]
		m.pushFault(faultAction{at: ev.At, event: ev})
	}
}

func (m *Master) pushFault(a faultAction) {
	m.faultSeq++
	a.seq = m.faultSeq
	i, _ := slices.BinarySearchFunc(m.faultQ, a, func(x, y faultAction) int {
		return cmp.Or(cmp.Compare(x.at, y.at), cmp.Compare(x.seq, y.seq))
	})
	m.faultQ = slices.Insert(m.faultQ, i, a)
}

// nextFault is when the next fault action is due, or false.
func (m *Master) nextFault() (float64, bool) {
	if len(m.faultQ) == 0 {
		return 0, false
	}
	return m.faultQ[0].at, true
}

// runFaults carries out the actions due by now.
func (m *Master) runFaults() {
	now := m.Now()
	for len(m.faultQ) > 0 && m.faultQ[0].at <= now && m.err == nil {
		a := m.faultQ[0]
		m.faultQ = m.faultQ[1:]
		switch {
		case a.event == nil:
			if l := &m.lives[a.expiry]; l.down && !l.gone && l.life == a.life {
				m.loseNode(a.expiry)
			}
		case a.event.Kind == faults.RestoreNode:
			m.restoreNode(a.event.Nodes[0])
		default:
			for _, n := range a.event.Nodes {
				m.killNode(n, a.event.At)
			}
		}
	}
}

// killNode has node n's worker killed and queues its expiry.
func (m *Master) killNode(n cluster.NodeID, at float64) {
	l := &m.lives[n]
	if l.down {
		return
	}
	l.down, l.killed = true, true
	l.life++
	if err := m.cfg.Kill(int(n)); err != nil {
		m.fail("killing the worker of node %s: %v", faults.NodeName(m.cfg.Topology, n), err)
		return
	}
	m.pushFault(faultAction{at: at + m.cfg.Engine.NodeExpiryS, expiry: n, life: l.life})
}

// restoreNode brings dead node n back with a new, empty worker: declared
// lost first if it had not expired.
func (m *Master) restoreNode(n cluster.NodeID) {
	l := &m.lives[n]
	if !l.gone {
		m.loseNode(n)
	}
	c, err := m.cfg.Restore(int(n))
	if err != nil {
		m.fail("restoring node %s: %v", faults.NodeName(m.cfg.Topology, n), err)
		return
	}
	l.down, l.gone, l.killed, l.expired, l.exit = false, false, false, false, ""
	l.life++
	m.cfg.Workers[n] = c
	m.out[n].close()
	m.out[n] = newOutbox(c)
	m.heard(int(n))
	m.listen(int(n), c, l.life)
	m.send(n, wire.Msg{Start: &wire.Start{EpochUnixNano: m.epochWall.UnixNano()}})
	ns := &m.nodes[n]
	ns.usedCPU, ns.usedMem = 0, 0
	ns.free = m.capacity
	for k := range m.slotTotal {
		m.slotTotal[k] += m.capacity[k]
	}
	m.epoch++
}

// loseNode declares node d lost.
func (m *Master) loseNode(d cluster.NodeID) {
	m.col.NodeLost()
	now := m.Now()
	active := slices.Clone(m.active)
	for _, sj := range active {
		jr := m.jobs[sj.Index]
		for i := range jr.maps {
			if t := &jr.maps[i]; t.state == running && t.node == d {
				start := m.stop(jr, sched.MapTask, i)
				m.col.TaskKilled(now - start)
				m.col.FaultKilled(now - start)
				jr.mapsBack, jr.mapsBackAt = true, now
			}
		}
		for i := range jr.reduces {
			if t := &jr.reduces[i]; t.state == running && t.node == d {
				start := m.stop(jr, sched.ReduceTask, i)
				m.col.TaskKilled(now - start)
				m.col.FaultKilled(now - start)
			}
		}
	}
	for _, sj := range active {
		m.loseOutputs(m.jobs[sj.Index], d)
	}
	for _, sj := range active {
		if slices.Contains(sj.Input.Replicas, d) {
			*sj.Input = sj.Input.Without(func(n cluster.NodeID) bool { return n == d })
			sj.Maps.DropNode(d)
		}
	}
	for _, sj := range active {
		m.failIfInputLost(m.jobs[sj.Index])
	}
	m.lives[d].gone = true
	m.lost = append(m.lost, d)
	for k := range m.slotTotal {
		m.slotTotal[k] -= m.capacity[k]
	}
	m.nodes[d].free = [3]int{}
	m.epoch++
}

// loseOutputs returns jr's finished maps whose output lived on node d to
// pending: they run again. Reduces keep what they had fetched of them.
func (m *Master) loseOutputs(jr *jobRun, d cluster.NodeID) {
	var lost []int
	for i := range jr.maps {
		if t := &jr.maps[i]; t.state == done && t.node == d {
			lost = append(lost, i)
		}
	}
	if len(lost) == 0 {
		return
	}
	for _, i := range lost {
		m.col.MapReexecuted(jr.maps[i].ran)
	}
	m.runMapsAgain(jr, d, lost)
}

// runMapsAgain returns jr's finished maps lost, whose output lived on node
// d, to pending, and tells the job's reduces their outputs are obsolete.
func (m *Master) runMapsAgain(jr *jobRun, d cluster.NodeID, lost []int) {
	sj := jr.sj
	now := m.Now()
	if sj.FinishedMaps == sj.NumMaps {
		// The reduces' wait, charged when the maps were all done, goes on.
		for k := range jr.reduces {
			if r := &jr.reduces[k]; r.state == running && r.start <= jr.mapsDoneAt {
				jr.waitS += r.start - jr.mapsDoneAt
			}
		}
	}
	obsolete := make([]wire.MapOutput, 0, len(lost))
	for _, i := range lost {
		t := &jr.maps[i]
		t.state = pending
		sj.Maps.Return(i)
		sj.FinishedMaps--
		m.launchableMaps++
		jr.mapNode[i] = -1
		jr.fetchFails[i] = 0
		obsolete = append(obsolete, wire.MapOutput{Map: i, Node: -1})
	}
	m.announce(jr, obsolete...)
	jr.mapsBack, jr.mapsBackAt = true, now
	rack := m.cfg.Topology.Rack(d)
	out := 0.0
	bb := m.cfg.Topology.Config().BlockBytes()
	for i := range jr.maps {
		if t := &jr.maps[i]; t.state == done && m.cfg.Topology.Rack(t.node) == rack {
			out += jr.spec.MapOutputBytes(i, bb)
		}
	}
	sj.MapOutputByRack[rack] = out
	m.epoch++
	if m.lossObs != nil {
		m.lossObs.MapOutputsLost(m, sj, d, len(lost))
	}
}

// failIfInputLost fails jr if a map it has still to run reads a block with
// no replica left.
func (m *Master) failIfInputLost(jr *jobRun) {
	if jr.done {
		return
	}
	for i := range jr.maps {
		if jr.maps[i].state == done || len(jr.sj.Input.BlockReplicas(i)) > 0 {
			continue
		}
		placed := sched.InputFile(m.cfg.Topology, m.cfg.Seed, jr.spec)
		m.col.FaultFailedJob()
		m.failJob(jr, fmt.Sprintf("block %d of its input has no live replica (lost with nodes %s) at t=%.3f s",
			i, faults.NodeNames(m.cfg.Topology, placed.BlockReplicas(i)), m.Now()))
		return
	}
}

// freeForMaps kills reduces that wait for maps with nowhere to run, by the
// simulator's rule (jobtracker.Tracker.StarvedMaps, docs/faults.md "Maps that
// starve"): a job with maps pending again because of a loss kills its most
// recently launched reduce, one a job a monitor period; in the container
// model when no live node has a free container, or when none of its maps
// has launched for reducePreemptS; in the slot model when a live node has
// a free map slot but none has the cores and memory its map needs.
func (m *Master) freeForMaps() {
	containers := m.cfg.Topology.ContainerModel()
	full := containers
	for n := range m.nodes {
		if !full {
			break
		}
		if !m.lives[n].down && m.nodes[n].free[sched.AnySlot] > 0 {
			full = false
		}
	}
	now := m.Now()
	for _, sj := range slices.Clone(m.active) {
		jr := m.jobs[sj.Index]
		if !jr.mapsBack || sj.PendingMaps() == 0 {
			continue
		}
		if containers && !full && now-max(jr.lastMapLaunch, jr.mapsBackAt) < reducePreemptS ||
			!containers && !m.mapSlotsHeldBack(jr) {
			continue
		}
		last, at := -1, -1.0
		for k := range jr.reduces {
			if r := &jr.reduces[k]; r.state == running && !m.lives[r.node].down && r.start >= at {
				last, at = k, r.start
			}
		}
		if last >= 0 {
			m.kill(sched.TaskRef{Job: sj, Kind: sched.ReduceTask, Index: last})
		}
	}
}

// mapSlotsHeldBack reports whether a live node has a free map slot but
// none has one with the cores and memory a map of jr needs.
func (m *Master) mapSlotsHeldBack(jr *jobRun) bool {
	cpu, mem := jr.spec.Profile.TaskDemand(true)
	cfg := m.cfg.Topology.Config()
	free := false
	for n := range m.nodes {
		ns := &m.nodes[n]
		if m.lives[n].down || ns.free[sched.MapSlot] == 0 {
			continue
		}
		free = true
		if cfg.CPUCores-ns.usedCPU >= min(cpu, cfg.CPUCores)-1e-9 && cfg.MemoryGB-ns.usedMem >= min(mem, cfg.MemoryGB)-1e-9 {
			return false
		}
	}
	return free
}

// reducePreemptS is how long a job's maps may starve before it kills a
// reduce whatever is free: YARN's
// mapreduce.job.reducer.unconditional-preempt.delay.sec, 300 s.
const reducePreemptS = 300

// wallOfScenario is the wall-clock instant of scenario time t.
func (m *Master) wallOfScenario(t float64) time.Time {
	return m.wall0.Add(time.Duration((t - m.t0) * m.cfg.TimeScale * float64(time.Second)))
}
