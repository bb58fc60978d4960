package jobtracker

import (
	"fmt"
	"slices"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/faults"
	"github.com/mrsched/mrsched/sched"
)

// Node loss, by the rules of docs/faults.md: a node that dies (NodeDown)
// offers nothing and its attempts make no progress, but the tracker keeps
// them until the node is declared lost (NodeLost, JobTracker.
// lostTaskTracker): then its attempts end, the finished maps of
// unfinished jobs whose output it held are pending again (their log
// entries obsolete), its replicas leave the jobs' files, a job left
// needing a block with no replica fails, and its slots leave the
// cluster. A restored node (NodeRestored) comes back empty.

// NodeDown marks node n dead.
func (t *Tracker) NodeDown(n cluster.NodeID) {
	if !t.nodes[n].down {
		t.countFree(n, t.nodes[n].free, -1)
	}
	t.nodes[n].down = true
}

// NodeLost declares dead node d lost.
func (t *Tracker) NodeLost(d cluster.NodeID) {
	ns := &t.nodes[d]
	t.col.NodeLost()
	active := slices.Clone(t.active)
	for _, sj := range active {
		jr := t.jobs[sj.Index]
		// A backup on the node ends there; its task's own attempt runs
		// on. (An own attempt ending below stops its backup with it.)
		for k := 0; k < len(jr.backups); {
			if b := jr.backups[k]; b.node == d {
				if start, ok := t.stopBackup(jr, int(b.task), NodeLost); ok {
					t.col.FaultKilled(t.now - start)
				}
				continue
			}
			k++
		}
		for _, id := range slices.Clone(jr.running) {
			if jr.task(id.Kind, int(id.Index)).node != d {
				continue
			}
			node, slot, start := t.endAttempt(jr, id.Kind, int(id.Index), NodeLost)
			t.col.FaultKilled(t.now - start)
			t.afterKill(jr, id.Kind, node, slot, start)
			if id.Kind == sched.MapTask {
				jr.mapsBack, jr.mapsBackAt = true, t.now
			}
		}
	}
	for _, sj := range active {
		t.loseOutputs(t.jobs[sj.Index], d)
	}
	ns.wiped = true
	t.wipedCount++
	for _, sj := range active {
		if slices.Contains(sj.Input.Replicas, d) {
			*sj.Input = sj.Input.Without(func(n cluster.NodeID) bool { return n == d })
			sj.Maps.DropNode(d)
		}
	}
	for _, sj := range active {
		t.failIfInputLost(t.jobs[sj.Index])
	}
	ns.gone = true
	owned := t.SlotsOf(d)
	for k := range t.slotTotal {
		t.slotTotal[k] -= owned[k]
	}
	ns.free = [3]int{}
	t.epoch++
}

// loseOutputs returns jr's finished maps whose output lived on node d to
// pending; the driver is told first (OutputsLost), then their log
// entries become obsolete.
func (t *Tracker) loseOutputs(jr *job, d cluster.NodeID) {
	h, ok := jr.hostIndex[d]
	if !ok {
		return
	}
	var lost []int
	for i := range jr.maps {
		if m := &jr.maps[i]; m.state == done && m.node == d {
			lost = append(lost, i)
		}
	}
	if len(lost) == 0 {
		return
	}
	t.runAgain(jr, d, h, lost, true)
}

// RerunMaps runs again job's finished maps whose output on node host
// cannot be fetched, as Hadoop's JobInProgress does once reduces report
// enough fetch failures of a map (fetchFailureNotification): they are
// pending again as maps whose output was lost with a node are, but the
// node is not declared lost, and their work is not counted among the
// faults' re-executed maps. Maps not finished on host are passed over (a
// report about an output that has moved on). It reports how many ran
// again.
func (t *Tracker) RerunMaps(job int, host cluster.NodeID, maps []int) int {
	if job < 0 || job >= len(t.jobs) || t.jobs[job] == nil || t.jobs[job].done {
		return 0
	}
	jr := t.jobs[job]
	h, ok := jr.hostIndex[host]
	if !ok {
		return 0
	}
	var lost []int
	for _, i := range maps {
		if i >= 0 && i < len(jr.maps) && jr.maps[i].state == done && jr.maps[i].node == host && !slices.Contains(lost, i) {
			lost = append(lost, i)
		}
	}
	if len(lost) > 0 {
		t.runAgain(jr, host, h, lost, false)
	}
	return len(lost)
}

// runAgain returns jr's finished maps lost, whose output lived on node d
// (host h in jr's log), to pending; the driver is told first
// (OutputsLost), then their log entries become obsolete. nodeLost: d is
// lost, so all its log entries go, and the maps' run time counts
// among the faults' re-executed work.
func (t *Tracker) runAgain(jr *job, d cluster.NodeID, h int32, lost []int, nodeLost bool) {
	sj := jr.sj
	if sj.FinishedMaps == sj.NumMaps {
		for i := range jr.reduces {
			if r := &jr.reduces[i]; r.state == copying && r.start <= jr.mapsDoneAt {
				// Charged its wait when the maps were all done; it waits on.
				jr.addWait(r.start-jr.mapsDoneAt, t.cfg.MaxComputing > 0)
			}
		}
	}
	t.d.OutputsLost(sj.Index, d, lost)
	if t.cp != nil {
		t.cp.MapsLost(t.now, sj.Index)
	}
	for k := range jr.log {
		// Every output of a lost node goes; of a node left alive, those
		// of the maps that run again.
		if mo := &jr.log[k]; mo.Host == h && (nodeLost || slices.Contains(lost, int(mo.Map))) {
			mo.PerReduce = 0
		}
	}
	if jr.rerun == nil {
		jr.rerun = make([]bool, len(jr.maps))
	}
	jr.mapsBack, jr.mapsBackAt = true, t.now
	for _, i := range lost {
		m := &jr.maps[i]
		m.state = pending
		sj.Maps.Return(i)
		sj.FinishedMaps--
		t.launchableMaps++
		jr.rerun[i] = true
		if nodeLost {
			t.col.MapReexecuted(float64(m.ran))
		}
	}
	// Recounted rather than decremented, so that no rounding is left.
	rack := t.topo.Rack(d)
	out := 0.0
	bb := t.topo.Config().BlockBytes()
	for i := range jr.maps {
		if m := &jr.maps[i]; m.state == done && t.topo.Rack(m.node) == rack {
			out += jr.spec.MapOutputBytes(i, bb)
		}
	}
	sj.MapOutputByRack[rack] = out
	t.epoch++
	if t.lossObs != nil {
		t.lossObs.MapOutputsLost(t, sj, d, len(lost))
	}
}

// failIfInputLost fails jr if a map it has still to run reads a block
// with no replica left.
func (t *Tracker) failIfInputLost(jr *job) {
	if jr.done {
		return
	}
	for i := range jr.maps {
		if jr.maps[i].state == done || len(jr.sj.Input.BlockReplicas(i)) > 0 {
			continue
		}
		placed := sched.InputFile(t.topo, t.cfg.Seed, jr.spec)
		t.col.FaultFailedJob()
		t.failJob(jr, fmt.Sprintf("block %d of its input has no live replica (lost with nodes %s) at t=%.3f s",
			i, faults.NodeNames(t.topo, placed.BlockReplicas(i)), t.now))
		return
	}
}

// NodeRestored brings node d, declared lost, back empty: its slots
// return to the cluster.
func (t *Tracker) NodeRestored(d cluster.NodeID) {
	ns := &t.nodes[d]
	ns.down, ns.gone = false, false
	ns.usedCPU, ns.usedMem = 0, 0
	ns.free = t.SlotsOf(d)
	t.countFree(d, ns.free, 1)
	for k := range t.slotTotal {
		t.slotTotal[k] += ns.free[k]
	}
	t.epoch++
}

// StarvedMaps kills reduces that keep maps from running, as YARN's
// MapReduce application master preempts reducers when its maps starve
// (RMContainerAllocator.preemptReducesIfNeeded). A job with maps pending
// again because of a loss (their attempt or output was lost with a node)
// kills its most recently launched reduce still copying, one a job a call
// (the driver calls it every monitor period):
//   - in the container model, when every container of the live nodes is
//     held (YARN's mapreduce.job.reducer.preempt.delay.sec, 0), or when
//     none of its maps has launched for reducePreemptS;
//   - in the slot model, when a live node has a free map slot but none
//     has one with the cores and memory its map needs: running reduces
//     hold them, for a policy that counts them (drf, sw-drf).
//
// Without it the reduces of such jobs, launched when none of their maps
// was pending, could hold for ever the containers or resources their maps
// need. A job whose maps starve for any other reason keeps its reduces.
func (t *Tracker) StarvedMaps() {
	containers := t.topo.ContainerModel()
	full := containers
	for n := range t.nodes {
		if !full {
			break
		}
		if !t.nodes[n].down && t.nodes[n].free[sched.AnySlot] > 0 {
			full = false
		}
	}
	for _, sj := range slices.Clone(t.active) {
		jr := t.jobs[sj.Index]
		if !jr.mapsBack || sj.PendingMaps() == 0 {
			continue
		}
		if containers && !full && t.now-max(jr.lastMapLaunch, jr.mapsBackAt) < reducePreemptS ||
			!containers && !t.mapSlotsHeldBack(jr) {
			continue
		}
		for k := len(jr.running) - 1; k >= 0; k-- {
			id := jr.running[k]
			if id.Kind != sched.ReduceTask {
				continue
			}
			if r := &jr.reduces[id.Index]; r.state == copying && !t.nodes[r.node].down {
				node, slot, start := t.endAttempt(jr, id.Kind, int(id.Index), Killed)
				t.afterKill(jr, id.Kind, node, slot, start)
				break
			}
		}
	}
}

// mapSlotsHeldBack reports whether a live node has a free map slot but
// none has one with the cores and memory a map of jr needs.
func (t *Tracker) mapSlotsHeldBack(jr *job) bool {
	cpu, mem := jr.spec.Profile.TaskDemand(true)
	free := false
	for n := range t.nodes {
		ns := &t.nodes[n]
		if ns.down || ns.free[sched.MapSlot] == 0 {
			continue
		}
		free = true
		nodeCPU, nodeMem := t.topo.Resources(cluster.NodeID(n))
		if nodeCPU-ns.usedCPU >= min(cpu, nodeCPU)-1e-9 && nodeMem-ns.usedMem >= min(mem, nodeMem)-1e-9 {
			return false
		}
	}
	return free
}

// reducePreemptS is how long a job's maps may starve before it kills a
// reduce whatever is free: YARN's
// mapreduce.job.reducer.unconditional-preempt.delay.sec, 300 s.
const reducePreemptS = 300
