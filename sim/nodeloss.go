package sim

import (
	"fmt"
	"math"
	"slices"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/faults"
	"github.com/mrsched/mrsched/sched"
)

// Node loss, by the rules of docs/faults.md.
//
// At a kill the node stops (down): it heartbeats no more and nothing is
// offered on it; its tasks stay running to the master but are frozen
// (their flows are removed and their phase events ignored); and every
// transfer to or from it breaks at once. A map reading from it reads again
// from the nearest live replica (failing if none is left); a reduce
// fetching from it parks the host and waits; an output pipeline through it
// starts again without it.
//
// At expiry (at_s + engine.node_expiry_s), or at a restore that comes
// first, the master declares it lost (loseNode; the job tracker's
// NodeLost keeps the rules, jobtracker/loss.go): its attempts fail as
// killed ones, the finished maps of unfinished jobs whose output it held
// run again, its replicas leave the jobs' files, a job left needing a
// block with no replica fails, and its slots leave the cluster. A restore
// then brings it back empty (restoreNode). What breaks with the node,
// its flows, and the fetch state of reduces that lose outputs, is the
// engine's (breakTransfers, driver.OutputsLost).
//
// The shuffle ledger (Engine.shuffleProduced, shuffleFetched) counts each
// map's output once, at its first finish: a reduce that had fetched a lost
// output keeps it and skips the re-execution's (reduceFaults.kept); the
// others fetch the re-execution's. So produced equals fetched at the end
// of a run, as without faults.
//
// Nothing here runs, and nothing it adds to the engine's paths does more
// than a nil or zero check, in a run without faults.

// SetFaults gives the run its node losses and returns, in time order
// (faults.Resolve's events). Call it before Run.
func (e *Engine) SetFaults(evs []faults.Event) error {
	dead := make([]bool, len(e.nodes))
	for i, ev := range evs {
		if !(ev.At >= 0 && ev.At <= faults.MaxAtS) || i > 0 && ev.At < evs[i-1].At {
			return fmt.Errorf("faults[%d].at_s: %v; want times from 0 to %v in order", ev.Index, ev.At, faults.MaxAtS)
		}
		if len(ev.Nodes) == 0 {
			return fmt.Errorf("faults[%d]: names no node", ev.Index)
		}
		for _, n := range ev.Nodes {
			if n < 0 || int(n) >= len(e.nodes) {
				return fmt.Errorf("faults[%d]: node %d is not in the cluster's %d", ev.Index, n, len(e.nodes))
			}
			switch {
			case dead[n] && ev.Kind != faults.RestoreNode:
				return fmt.Errorf("faults[%d].%s: node %s is already dead", ev.Index, ev.Kind, faults.NodeName(e.topo, n))
			case !dead[n] && ev.Kind == faults.RestoreNode:
				return fmt.Errorf("faults[%d].%s: node %s is alive", ev.Index, ev.Kind, faults.NodeName(e.topo, n))
			}
			dead[n] = !dead[n]
		}
	}
	if len(evs) == 0 {
		return nil
	}
	if e.p.Speculative {
		return fmt.Errorf("engine.speculative: not modelled with faults (a backup on a node that dies is not tracked); leave one of them out")
	}
	e.faults = evs
	e.col.EnableFaults()
	// Each event and each expiry is an event at its instant.
	e.instantLimit += 2 * int64(len(evs)+len(e.nodes))
	return nil
}

// frozen reports whether node n is dead: its tasks make no progress.
func (e *Engine) frozen(n cluster.NodeID) bool { return e.downCount > 0 && e.jt.Down(n) }

// fault handles an evFault event: a kill or restore of the run's faults,
// or a node's expiry.
func (e *Engine) fault(ev event) {
	if ev.a < 0 {
		n := cluster.NodeID(-1 - ev.a)
		if e.jt.Down(n) && !e.jt.Gone(n) && e.nodes[n].life == ev.c {
			e.loseNode(n)
		}
		return
	}
	f := &e.faults[ev.a]
	if f.Kind == faults.RestoreNode {
		e.restoreNode(f.Nodes[0])
		return
	}
	for _, n := range f.Nodes {
		ns := &e.nodes[n]
		e.jt.NodeDown(n)
		ns.life++
		e.downCount++
		e.faultPending++
		e.events.push(event{t: f.At + e.p.NodeExpiryS, kind: evFault, a: -1 - int32(n), c: ns.life})
	}
	e.breakTransfers()
}

// breakTransfers ends what the nodes just killed break at once: the flows
// of their own tasks (which freeze), reads from them, fetches from them
// and pipelines through them.
func (e *Engine) breakTransfers() {
	for _, sj := range slices.Clone(e.jt.Jobs()) {
		jr := e.jobs[sj.Index]
		for _, t := range slices.Clone(e.jt.Attempts(sj.Index)) {
			if e.jt.Done(sj.Index) {
				break // a map that found no replica failed the job
			}
			if t.Kind == sched.MapTask {
				e.breakMap(jr, int(t.Index))
			} else {
				e.breakReduce(jr, int(t.Index))
			}
		}
	}
}

func (e *Engine) breakMap(jr *jobRun, i int) {
	m := &jr.maps[i]
	switch {
	case m.state != tsRunning && m.state != tsMerging:
		// Starting: its read begins at its startup's end, from a live
		// replica then (startMapRead), unless its own node is dead.
	case e.jt.Down(m.node):
		e.cancelMapFlows(m)
	case m.state == tsRunning && m.flow != 0 && e.jt.Down(m.src):
		e.removeFlow(&m.flow)
		e.startMapRead(jr, i, m) // from the beginning, from a live replica
	}
}

func (e *Engine) breakReduce(jr *jobRun, i int) {
	r := &jr.reduces[i]
	if e.jt.Down(r.node) {
		e.cancelReduceFlows(r)
		return
	}
	switch r.state {
	case tsRunning:
		broke := false
		hosts := e.jt.Hosts(jr.id)
		for h := range r.from {
			if hf := &r.from[h]; hf.state == hostFetching && e.jt.Down(hosts[h]) {
				e.removeFlow(&hf.flow)
				e.cancelFetch(r, int32(h))
				hf.state = hostParked
				r.fetches--
				r.fx.parked++
				r.fx.cnt[h].taken = r.fx.cnt[h].got
				broke = true
			}
		}
		if broke {
			e.pump(jr, i) // fetch from other hosts in the freed places
		}
	case tsWriting:
		if slices.ContainsFunc(r.fx.pipe, func(n cluster.NodeID) bool { return e.jt.Down(n) }) {
			e.removeFlow(&r.write)
			e.writeFlow(jr, i, r.fx.pipe)
		}
	}
}

// readSource is the replica among reps a map on node n reads: the one the
// cluster's replica choice reads on a live node (cluster.ReadReplica),
// or, when none is live, the one it would read, from which the read will
// fail.
func (e *Engine) readSource(reps []cluster.NodeID, n cluster.NodeID) cluster.NodeID {
	if len(reps) == 0 {
		e.fail("invariant: a map whose block has no replica left was launched on node %d; its job should have failed", n)
		return n
	}
	var down func(cluster.NodeID) bool
	if e.downCount > 0 {
		down = func(r cluster.NodeID) bool { return e.jt.Down(r) }
	}
	return cluster.ReadReplica(e.topo, reps, n, down, e.rng)
}

// rereadFrom points map i's read, whose source is dead, at the nearest
// live replica, and reports true; with none left, it fails the attempt
// and reports false.
func (e *Engine) rereadFrom(jr *jobRun, i int) bool {
	m := &jr.maps[i]
	reps := jr.sj.Input.BlockReplicas(i)
	m.src = e.readSource(reps, m.node)
	if !e.jt.Down(m.src) {
		return true
	}
	m.state = tsStarting // its flow is gone
	e.failAttemptFor(jr, sched.MapTask, i, fmt.Sprintf("block %d of its input has no live replica (nodes %s are dead)", i, faults.NodeNames(e.topo, reps)))
	return false
}

// loseNode declares node d lost (jobtracker.Tracker.NodeLost): its
// reducers waiting for a compute slot are ended with its attempts, so
// none is admitted there.
func (e *Engine) loseNode(d cluster.NodeID) {
	e.nodes[d].computeWait = nil
	e.jt.NodeLost(d)
}

// OutputsLost has job's copying reduces forget the outputs of maps lost
// with host: a reduce keeps the outputs it had fetched (and will skip
// those maps' new output) and forgets the rest, which it fetches from
// the maps' re-executions.
func (d *driver) OutputsLost(job int, host cluster.NodeID, _ []int) {
	e := (*Engine)(d)
	jr := e.jobs[job]
	hosts, log := e.jt.Hosts(job), e.jt.Log(job)
	h := int32(slices.Index(hosts, host))
	var entries []int // log entries of the host's live outputs
	for k := range log {
		if mo := &log[k]; mo.Host == h && mo.PerReduce > 0 {
			entries = append(entries, k)
		}
	}
	for i := range jr.reduces {
		r := &jr.reduces[i]
		if r.state != tsRunning || e.jt.Down(r.node) || int(h) >= len(r.fx.cnt) {
			continue // holds all of its input, none of the host's, or is lost itself
		}
		fx := r.fx
		got, seen, held := fx.cnt[h].got, int32(0), len(fx.kept)
		for _, k := range entries {
			if seen == got || k >= r.cursor {
				break
			}
			mo := &log[k]
			if e.jt.Rerun(job, int(mo.Map)) && slices.Contains(fx.kept[:held], mo.Map) {
				continue // skipped when absorbed
			}
			seen++
			fx.kept = append(fx.kept, mo.Map)
		}
		fx.cnt[h] = hostCount{}
		hf := &r.from[h]
		hf.avail = 0
		if hf.state == hostParked {
			hf.state = hostIdle
			fx.parked--
		}
		// A host still in line is dropped when it comes up (pump).
	}
}

// restoreNode brings dead node d back, empty: declared lost first if it
// had not expired yet, then its slots return and it heartbeats from its
// next phase.
func (e *Engine) restoreNode(d cluster.NodeID) {
	ns := &e.nodes[d]
	if !e.jt.Gone(d) {
		e.loseNode(d)
	}
	if cpu, mem := e.jt.Used(d); e.p.CheckInvariants && (ns.computing != 0 || math.Abs(cpu) > 1e-9 || math.Abs(mem) > 1e-9) {
		e.fail("invariant: node %d is restored with %d reducers computing and %v cores, %v GB held", d, ns.computing, cpu, mem)
	}
	ns.life++ // its expiry, if still queued, is stale
	e.downCount--
	e.jt.NodeRestored(d)
	if !ns.hb && len(e.jt.Jobs()) > 0 {
		e.scheduleHeartbeatAfter(d, e.now)
	}
}
