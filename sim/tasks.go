package sim

import (
	"math"
	"slices"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/critpath"
	"github.com/mrsched/mrsched/jobtracker"
	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/network"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/workload"
)

type taskState uint8

const (
	tsPending taskState = iota
	tsStarting
	tsRunning     // map: reading; reduce: copying
	tsWaitCompute // copied, waiting for a compute slot (copy-compute splitting)
	tsMerging     // map: merging its spills; reduce: its final merge (costs.go)
	tsComputing
	tsWriting
	tsDone
)

// mapTask is a map attempt's physics; the job tracker keeps the task's
// bookkeeping.
type mapTask struct {
	// flow is the attempt's input read, then its merge (costs.go).
	flow network.FlowID
	// spill is the attempt's spill to its disk while it reads, in a run
	// that models spills; parts counts the read and the spill while
	// either runs.
	spill network.FlowID
	node  cluster.NodeID
	src   cluster.NodeID
	// attempt is the running attempt's number, 0 when none runs: a flow
	// or phase event of another attempt is stale.
	attempt uint32
	// failAt is where the running attempt fails, as a fraction of its
	// input read; 0 when it does not (failure.go).
	failAt float32
	state  taskState
	parts  uint8
	// backup is a speculative attempt running beside this one
	// (speculate.go), a mapTask of its own whose backup is unused.
	backup *mapTask
}

// reduceTask is a reduce attempt's physics; the job tracker keeps the
// task's bookkeeping.
type reduceTask struct {
	write   network.FlowID
	node    cluster.NodeID
	attempt uint32 // as a map's
	// failAt is as a map's, a fraction of the attempt's reduce
	// computation.
	failAt float32
	state  taskState
	cursor int // next entry of the job's map log to absorb
	// Fetch state per map-output host, indexed by the job's host index
	// (jobtracker.Tracker.Hosts), so that absorbing map output needs no lookup. A
	// host's state is read and written together, so it is one struct.
	from []hostFetch
	// queue[qhead:] are the hosts with bytes ready, in the order they got
	// them. The consumed prefix is dropped when the line empties or the
	// prefix is half the buffer (compactQueue), so the buffer is reused
	// rather than re-grown as the line slides.
	queue   []int32
	qhead   int
	fetches int
	fetched float64
	// fx is the attempt's node-loss state, only in a run with faults.
	fx *reduceFaults
	// dk is the attempt's shuffle buffer and files on disk, only in a
	// run that models the reduce's merge (costs.go).
	dk *reduceDisk
}

// reduceFaults is what a reduce attempt keeps in a run with faults
// (nodeloss.go): which map outputs it holds when a host is lost, the
// hosts it cannot fetch from, and its output pipeline.
type reduceFaults struct {
	// cnt counts, per host, the map log entries absorbed and fetched:
	// since a host's entries are fetched in the order they were absorbed,
	// the first got of them are the ones the reduce holds.
	cnt []hostCount
	// kept are maps whose lost output the attempt had fetched: it skips
	// their re-executions' output.
	kept []int32
	// parked counts the hosts it waits for because their node is dead.
	parked int
	// pipe is the output pipeline's nodes while the reduce writes.
	pipe []cluster.NodeID
}

// hostCount is a reduce's count of one host's map log entries: absorbed
// and not yet in a fetch, taken into fetches (in flight or done), and
// fetched.
type hostCount struct{ avail, taken, got int32 }

// compactQueue drops the consumed prefix of r's host queue once it is
// half the buffer, so that a line that rarely empties keeps a buffer
// about twice its length instead of one entry per fetch ever started.
func (r *reduceTask) compactQueue() {
	switch {
	case r.qhead == len(r.queue):
		r.queue, r.qhead = r.queue[:0], 0
	case r.qhead >= 16 && 2*r.qhead >= len(r.queue):
		n := copy(r.queue, r.queue[r.qhead:])
		r.queue, r.qhead = r.queue[:n], 0
	}
}

// hostFetch is a reduce's fetch state for one map-output host.
type hostFetch struct {
	avail float64        // bytes ready, not yet fetched
	flow  network.FlowID // the fetch in flight
	state uint8          // hostIdle, hostQueued or hostFetching
	// bound is the kind of resource that bounded the fetch in flight when
	// it started, in a run that records where jobs' time goes.
	bound critpath.Bound
}

// Fetch states of a map-output host, for one reduce.
const (
	hostIdle uint8 = iota
	hostQueued
	hostFetching
	hostParked // its node is dead: the reduce waits for the output to be made again
)

// jobRun is a job's physics: its attempts' flows and fetch state. The
// job tracker keeps its bookkeeping (e.jt).
type jobRun struct {
	spec    *workload.Job
	sj      *sched.Job
	id      int
	maps    []mapTask
	reduces []reduceTask
	copying []int // reduces in their copy phase
	// nameHash keys the job's attempt failures by its name, as its input
	// placement is (sched.InputFile), so that they do not depend on
	// the rest of the workload.
	nameHash uint64
	// produced and fetched are the job's part of the shuffle ledger
	// (Engine.shuffleProduced, shuffleFetched), taken out of it when the
	// job fails.
	produced, fetched float64
}

// flowRef tells what a network flow belongs to. The network holds it by
// value inside the flow, so starting and ending a flow cost no object of
// their own.
type flowRef struct {
	job     int32
	task    int32
	attempt uint32
	kind    uint8 // flowMapRead, flowFetch, flowWrite
	host    cluster.NodeID
	hostIdx int32 // a fetch's index in its job's hosts
	cross   bool
	remote  bool
	backup  bool // a map's speculative backup attempt (speculate.go)
}

const (
	flowMapRead uint8 = iota
	flowFetch
	flowWrite
	flowSpill       // a map's spills to its disk (costs.go)
	flowMapMerge    // a map's merge of its spills
	flowReduceMerge // a reduce's final merge
)

// afterStartup starts task t (a map index, or -1-reduce index) now, or
// after the configured startup cost.
func (e *Engine) afterStartup(jr *jobRun, t int32, attempt uint32) {
	if e.p.TaskStartupS > 0 {
		e.phasePending++
		e.events.push(event{t: e.now + e.p.TaskStartupS, kind: evPhaseDone, a: int32(jr.spec.ID), b: t, c: attempt})
		return
	}
	e.startPhase(jr, t)
}

func (e *Engine) phaseDone(job, t int, attempt uint32) {
	jr := e.jobs[job]
	if e.jt.Done(job) {
		return // the job failed; its attempts were killed
	}
	if t >= 0 {
		m := &jr.maps[t]
		if m.attempt == attempt && m.state == tsStarting && !e.frozen(m.node) {
			e.startPhase(jr, int32(t))
		} else if b := m.backup; b != nil && attempt&jobtracker.BackupAttempt != 0 && b.attempt == attempt && b.state == tsStarting {
			e.startMap(jr, t, b)
		}
		return
	}
	r := &jr.reduces[-1-t]
	if r.attempt != attempt || e.frozen(r.node) {
		return
	}
	switch r.state {
	case tsStarting:
		e.startPhase(jr, int32(t))
	case tsComputing:
		if r.failAt > 0 {
			e.failAttempt(jr, sched.ReduceTask, -1-t)
			return
		}
		e.startWrite(jr, -1-t)
	}
}

func (e *Engine) startPhase(jr *jobRun, t int32) {
	if t >= 0 {
		e.startMap(jr, int(t), &jr.maps[t])
		return
	}
	i := int(-1 - t)
	r := &jr.reduces[i]
	r.state = tsRunning
	e.jt.Phase(jr.reduceAttempt(i), critpath.Ready)
	jr.copying = append(jr.copying, i)
	e.pump(jr, i)
}

// addFlow starts a flow; crossing a rack uplink it also crosses its cause's
// accounting link.
func (e *Engine) addFlow(path []network.LinkID, bytes, rateCap float64, ref flowRef, cause metrics.Cause) network.FlowID {
	if ref.cross {
		path = append(path, e.acct[cause])
	}
	id, err := e.net.AddFlow(e.now, path, bytes, rateCap, ref)
	if err != nil {
		e.fail("network: %v", err)
	}
	return id
}

// startMap starts attempt m of map i (the task's own, or its backup):
// its read and, in a run that models spills, its spill (costs.go).
func (e *Engine) startMap(jr *jobRun, i int, m *mapTask) {
	m.parts = 1
	e.jt.Phase(jobtracker.Attempt{Job: int32(jr.id), Task: int32(i), Kind: sched.MapTask, N: m.attempt}, critpath.Ready)
	e.startMapRead(jr, i, m)
	if e.p.SortBufferMB > 0 && !e.jt.Done(jr.id) && m.state == tsRunning {
		e.startSpill(jr, i, m)
	}
}

// startMapRead starts (or, its source lost, starts again) attempt m's
// read of map i's input block.
func (e *Engine) startMapRead(jr *jobRun, i int, m *mapTask) {
	if e.downCount > 0 && e.jt.Down(m.src) && !e.rereadFrom(jr, i) {
		return // no replica is left to read; the attempt failed
	}
	m.state = tsRunning
	bytes := float64(jr.spec.MapInputBytes(i, e.topo.Config().BlockBytes()))
	if m.failAt > 0 {
		bytes *= float64(m.failAt) // the attempt fails there (failure.go)
	}
	rateCap := math.Inf(1)
	if c := jr.spec.Profile.MapSecPerByte; c > 0 {
		rateCap = 1 / c
	}
	path := e.topo.Path(e.pathBuf[:0], m.src, m.node, true, false)
	ref := flowRef{job: int32(jr.spec.ID), task: int32(i), attempt: m.attempt, kind: flowMapRead,
		host: m.src, cross: e.topo.Rack(m.src) != e.topo.Rack(m.node), remote: m.src != m.node, backup: m != &jr.maps[i]}
	m.flow = e.addFlow(path, bytes, rateCap, ref, metrics.RemoteMap)
	e.pathBuf = path[:0]
}

// completeFlow handles a flow the network reports complete.
func (e *Engine) completeFlow(c *network.Completed[flowRef]) {
	ref := &c.Data
	e.lastProgress = e.now
	jr := e.jobs[ref.job]
	if e.jt.Done(int(ref.job)) || !e.current(jr, ref) {
		// The attempt was killed, and its flow removed, or it ended at
		// this instant, this flow among the completions being handled.
		e.staleDiskFlow(ref, c.Bytes)
		return
	}
	switch ref.kind {
	case flowMapRead:
		if ref.remote {
			e.col.Transfer(metrics.RemoteMap, ref.cross, c.Bytes)
		}
		m := jr.attemptOf(ref)
		m.flow = 0
		if m.failAt > 0 {
			e.failAttempt(jr, sched.MapTask, int(ref.task))
			return
		}
		e.mapPartDone(jr, int(ref.task), m)
	case flowSpill:
		e.diskDone(metrics.Spill, c.Bytes)
		m := jr.attemptOf(ref)
		m.spill = 0
		e.mapPartDone(jr, int(ref.task), m)
	case flowMapMerge:
		e.diskDone(metrics.Merge, 2*c.Bytes)
		m := jr.attemptOf(ref)
		m.flow = 0
		e.finishMap(jr, int(ref.task), m)
	case flowReduceMerge:
		e.reduceMergeDone(jr, int(ref.task))
	case flowFetch:
		e.col.Transfer(metrics.Shuffle, ref.cross, c.Bytes)
		e.fetchDone(jr, int(ref.task), ref.hostIdx, c.Bytes)
	case flowWrite:
		e.col.Transfer(metrics.Output, ref.cross, c.Bytes)
		e.reduceDone(jr, int(ref.task))
	}
}

// fetchState returns the buffers of a reduce's per-host fetch state and
// host queue, empty, from a reduce that finished copying if there is one.
// The fetch state's buffer holds zeros to its capacity, and the job's
// outputs lie on at most every node, so a reduce only takes in its hosts'
// state as the outputs spread, without copying or clearing it.
func (e *Engine) fetchState() ([]hostFetch, []int32) {
	var from []hostFetch
	var queue []int32
	if k := len(e.spareFrom); k > 0 {
		from, e.spareFrom = e.spareFrom[k-1], e.spareFrom[:k-1]
	} else {
		from = make([]hostFetch, 0, e.topo.NumNodes())
	}
	if k := len(e.spareQueue); k > 0 {
		queue, e.spareQueue = e.spareQueue[k-1], e.spareQueue[:k-1]
	}
	return from, queue
}

// releaseFetchState keeps reduce r's fetch buffers for the next reduce
// to copy, zeroed as fetchState promises, once r has fetched everything.
func (e *Engine) releaseFetchState(r *reduceTask) {
	if r.from != nil {
		clear(r.from)
		e.spareFrom = append(e.spareFrom, r.from[:0])
	}
	if r.queue != nil {
		e.spareQueue = append(e.spareQueue, r.queue[:0])
	}
	r.from, r.queue, r.qhead = nil, nil, 0
}

// pump absorbs newly finished map output into reduce i's host queue, starts
// fetches up to the parallel-copy limit, and moves the reduce to compute
// once every map is done and every byte is fetched. A fetch takes all the
// bytes a host has ready for the reduce, as Hadoop 2's Fetcher copies every
// available map output of one host over one connection.
func (e *Engine) pump(jr *jobRun, i int) {
	r := &jr.reduces[i]
	if e.frozen(r.node) {
		return
	}
	fx := r.fx
	hosts, log := e.jt.Hosts(jr.id), e.jt.Log(jr.id)
	if n := len(hosts); len(r.from) < n {
		if r.from == nil {
			r.from, r.queue = e.fetchState()
		}
		// What lies past len(r.from) in its buffer is zero (fetchState),
		// so the new hosts' state is only taken in.
		r.from = slices.Grow(r.from, n-len(r.from))[:n]
		if fx != nil {
			fx.cnt = append(fx.cnt, make([]hostCount, n-len(fx.cnt))...)
		}
	}
	for ; r.cursor < len(log); r.cursor++ {
		mo := log[r.cursor]
		if mo.PerReduce <= 0 {
			continue // no output for the reduce, or an output lost with its node
		}
		if fx != nil {
			if e.jt.Rerun(jr.id, int(mo.Map)) && slices.Contains(fx.kept, mo.Map) {
				continue // it holds the lost output this one replaces
			}
			fx.cnt[mo.Host].avail++
		}
		hf := &r.from[mo.Host]
		hf.avail += mo.PerReduce
		if hf.state == hostIdle {
			hf.state = hostQueued
			r.queue = append(r.queue, mo.Host)
		}
	}
	for r.fetches < e.p.ParallelCopies && r.qhead < len(r.queue) {
		hi := r.queue[r.qhead]
		r.qhead++
		r.compactQueue()
		hf := &r.from[hi]
		h := hosts[hi]
		if fx != nil {
			switch {
			case hf.avail == 0: // its outputs were lost while it waited in line
				hf.state = hostIdle
				continue
			case e.jt.Down(h):
				hf.state = hostParked
				fx.parked++
				continue
			}
			c := &fx.cnt[hi]
			c.taken += c.avail
			c.avail = 0
		}
		bytes := hf.avail
		hf.avail = 0
		hf.state = hostFetching
		r.fetches++
		path := e.topo.Path(e.pathBuf[:0], h, r.node, true, false)
		if r.dk != nil && r.dk.reserve(hi, bytes, e.p.ReduceBufferMB*mib) {
			path = append(path, e.topo.DiskLink(r.node)) // it does not fit in the buffer (costs.go)
			e.ledger.planned[metrics.Spill] += bytes
		}
		ref := flowRef{job: int32(jr.spec.ID), task: int32(i), attempt: r.attempt, kind: flowFetch,
			host: h, hostIdx: hi, cross: e.topo.Rack(h) != e.topo.Rack(r.node), remote: h != r.node}
		hf.flow = e.addFlow(path, bytes, 0, ref, metrics.Shuffle)
		if e.jt.Recording() {
			hf.bound = e.boundOf(path)
		}
		e.pathBuf = path[:0]
	}
	if r.fetches == 0 && r.qhead == len(r.queue) && jr.sj.FinishedMaps == jr.sj.NumMaps && r.state == tsRunning && (fx == nil || fx.parked == 0) {
		e.startCompute(jr, i)
	}
}

func (e *Engine) fetchDone(jr *jobRun, i int, h int32, bytes float64) {
	r := &jr.reduces[i]
	r.fetches--
	r.fetched += bytes
	hf := &r.from[h]
	hf.flow = 0
	e.jt.Fetched(jr.reduceAttempt(i), hf.bound)
	if r.dk != nil {
		if toDisk, b := r.dk.land(h); toDisk {
			e.diskDone(metrics.Spill, b)
		}
	}
	if r.fx != nil {
		c := &r.fx.cnt[h]
		c.got = c.taken
	}
	e.shuffleFetched += bytes
	jr.fetched += bytes
	if hf.avail > 0 {
		hf.state = hostQueued
		r.queue = append(r.queue, h)
	} else {
		hf.state = hostIdle
	}
	e.pump(jr, i)
}

func (e *Engine) startCompute(jr *jobRun, i int) {
	r := &jr.reduces[i]
	for k, c := range jr.copying {
		if c == i {
			jr.copying = append(jr.copying[:k], jr.copying[k+1:]...)
			break
		}
	}
	e.releaseFetchState(r)
	e.jt.ReduceCopied(jobtracker.Attempt{Job: int32(jr.id), Task: int32(i), Kind: sched.ReduceTask, N: r.attempt})
	if e.p.CopyCompute.Enabled {
		ns := &e.nodes[r.node]
		if ns.computing >= e.p.CopyCompute.MaxComputing {
			r.state = tsWaitCompute
			ns.computeWait = append(ns.computeWait, [2]int32{int32(jr.spec.ID), int32(i)})
			e.markDirty(r.node) // the job may launch another copying reducer here
			return
		}
		ns.computing++
		e.markDirty(r.node)
	}
	e.reduceMerge(jr, i)
}

func (e *Engine) compute(jr *jobRun, i int) {
	r := &jr.reduces[i]
	if e.p.CheckInvariants && e.p.CopyCompute.Enabled && e.nodes[r.node].computing > e.p.CopyCompute.MaxComputing {
		e.fail("invariant: node %d computes %d reducers, above max_computing %d", r.node, e.nodes[r.node].computing, e.p.CopyCompute.MaxComputing)
	}
	r.state = tsComputing
	dur := r.fetched * jr.spec.Profile.ReduceSecPerByte
	if r.failAt > 0 {
		dur *= float64(r.failAt) // the attempt fails there (failure.go)
	}
	e.phasePending++
	e.events.push(event{t: e.now + dur, kind: evPhaseDone, a: int32(jr.spec.ID), b: int32(-1 - i), c: r.attempt})
}

// releaseCompute frees a compute slot on n and admits the oldest waiting
// reducer, under copy-compute splitting.
func (e *Engine) releaseCompute(n cluster.NodeID) {
	ns := &e.nodes[n]
	ns.computing--
	for len(ns.computeWait) > 0 {
		w := ns.computeWait[0]
		ns.computeWait = ns.computeWait[1:]
		jr := e.jobs[w[0]]
		if e.jt.Done(int(w[0])) || jr.reduces[w[1]].state != tsWaitCompute {
			continue // killed while waiting
		}
		ns.computing++
		e.reduceMerge(jr, int(w[1]))
		return
	}
}

// startWrite writes reduce i's output to HDFS as one replication pipeline:
// a single flow over the union of the pipeline's links (writer's disk, the
// hop to the off-rack second replica, the hop to the third), which moves
// at the rate of its slowest hop as a pipeline does.
func (e *Engine) startWrite(jr *jobRun, i int) {
	r := &jr.reduces[i]
	r.state = tsWriting
	e.jt.Phase(jr.reduceAttempt(i), critpath.WriteStart)
	if e.p.CopyCompute.Enabled {
		e.releaseCompute(r.node)
	}
	reps := e.placer.PlaceBlock(nil, r.node)
	if r.fx != nil {
		r.fx.pipe = reps
	}
	e.writeFlow(jr, i, reps)
}

// writeFlow starts reduce i's output pipeline through nodes reps, the
// writer first, leaving out dead nodes (HDFS drops a failed datanode from a
// write pipeline).
func (e *Engine) writeFlow(jr *jobRun, i int, reps []cluster.NodeID) {
	r := &jr.reduces[i]
	if e.downCount > 0 {
		reps = slices.DeleteFunc(reps, func(n cluster.NodeID) bool { return e.jt.Down(n) })
		if r.fx != nil {
			r.fx.pipe = reps
		}
	}
	bytes := float64(jr.spec.OutputBytes) / float64(jr.sj.NumReduces)
	path := append(e.pathBuf[:0], e.topo.DiskLink(r.node))
	cross := false
	for k := 1; k < len(reps); k++ {
		path = e.topo.Path(path, reps[k-1], reps[k], false, true)
		if e.topo.Rack(reps[k-1]) != e.topo.Rack(reps[k]) {
			cross = true
		}
	}
	ref := flowRef{job: int32(jr.spec.ID), task: int32(i), attempt: r.attempt, kind: flowWrite,
		host: r.node, cross: cross, remote: len(reps) > 1}
	r.write = e.addFlow(path, bytes, 0, ref, metrics.Output)
	e.pathBuf = path[:0]
}

// boundOf is the kind of resource a fetch over path is bounded by: its
// link with the least capacity per flow (network.Tightest).
func (e *Engine) boundOf(path []network.LinkID) critpath.Bound {
	l, ok := e.net.Tightest(path)
	if !ok {
		return critpath.BoundNIC
	}
	switch e.topo.KindOf(l) {
	case cluster.DiskKind:
		return critpath.BoundDisk
	case cluster.UplinkKind:
		return critpath.BoundUplink
	}
	return critpath.BoundNIC
}
