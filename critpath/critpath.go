// Package critpath splits each job's turnaround along its critical path
// into parts that add up to it exactly: where the job's time went.
//
// The path is walked back from the job's finish through its own tasks.
// With reduces, it starts at the reduce that finished last: its output
// write, its compute and merge, the wait for a compute place under
// copy-compute splitting, and the copy that remained once the job's last
// map was done (earlier copying overlapped the maps and is not on the
// path). If that reduce launched after the last map ended, the time
// between is a wait for a reduce slot. The path then goes through the map
// that ended last, and from each map attempt to the one of the job's map
// attempts that had ended most recently when it launched (the previous
// wave), down to the submission: each attempt contributes its start-up,
// its input read and its compute; the gap before it is a wait. Attempts
// that did not finish (failed, killed, lost with a node, a speculative
// race's loser) contribute their whole time as lost.
//
// A wait is split into held and queued: held is the time in it during
// which a slot the waiting task could take sat free, so that the policy,
// not the cluster's size, kept the task waiting; queued is the rest. Held
// time is named for the rule of the policy that declined the last offer
// of that slot kind (delay scheduling's locality wait, NAS's holds,
// ShuffleWatcher's deferrals, TD's statuses), or "heartbeat" before any
// decline: a free slot is offered at the next heartbeat.
//
// A map's input read and its compute are one flow whose rate is capped by
// the map's compute rate: the compute part is the time the read would
// take at that cap, and the input-read part is what the read took beyond
// it, named by the reach of the replica it read. A reduce's copy after
// the last map is split among the resources that bounded its fetches,
// each fetch's bound being the link on its path with the least capacity
// per flow when it started (a NIC, a rack uplink, a disk).
//
// The Recorder is fed by the job tracker (submissions, launches, ends,
// free slots and declines) and by the driver (the phases of an attempt);
// it keeps a job's records only while the job runs.
package critpath

import "math"

// Part is one part of a job's turnaround.
type Part uint8

// The parts of a job's turnaround, in the order of jobs.csv's columns.
const (
	// Queued: a task of the job waited and no slot it could take was free.
	Queued Part = iota
	// Held: a task of the job waited while a slot it could take was free.
	Held
	// Startup: a task attempt's start-up cost (engine.task_startup_s).
	Startup
	// ReadLocal, ReadRack and ReadOffRack: a map's input read beyond its
	// compute, from its own disk, its rack, another rack.
	ReadLocal
	ReadRack
	ReadOffRack
	// MapCompute: a map's compute and, where spills are modelled, its merge.
	MapCompute
	// ShuffleNIC, ShuffleUplink and ShuffleDisk: the last reduce's copy
	// after the last map, by the resource that bounded its fetches.
	ShuffleNIC
	ShuffleUplink
	ShuffleDisk
	// ReduceCompute: the last reduce's final merge and compute.
	ReduceCompute
	// OutputWrite: the last reduce's output pipeline to HDFS.
	OutputWrite
	// Lost: attempts on the path that did not finish.
	Lost
	// NumParts counts the parts.
	NumParts
)

var partNames = [NumParts]string{
	"queued", "held", "startup", "read_local", "read_rack", "read_offrack",
	"map_compute", "shuffle_nic", "shuffle_uplink", "shuffle_disk",
	"reduce_compute", "output_write", "lost",
}

// String is the part's name, as its jobs.csv column is time_NAME_s.
func (p Part) String() string { return partNames[p] }

// Column is the part's jobs.csv column.
func (p Part) Column() string { return "time_" + partNames[p] + "_s" }

// ParsePart returns the part named name (as String gives it).
func ParsePart(name string) (Part, bool) {
	for p, n := range partNames {
		if n == name {
			return Part(p), true
		}
	}
	return 0, false
}

// Bound is the kind of resource that bounded a fetch.
type Bound uint8

// The resources a fetch can be bounded by.
const (
	BoundNIC Bound = iota
	BoundUplink
	BoundDisk
)

// Breakdown is a job's turnaround by part.
type Breakdown struct {
	Parts [NumParts]float64
	// HeldBy is the rule that held the job longest ("" when nothing
	// held it).
	HeldBy string
}

// Sum is the parts' total, the turnaround.
func (b *Breakdown) Sum() float64 {
	s := 0.0
	for _, v := range b.Parts {
		s += v
	}
	return s
}

// Mark is a phase boundary of an attempt the driver reports.
type Mark uint8

// The phase boundaries.
const (
	// Ready: the start-up ended; a map starts reading, a reduce copying.
	Ready Mark = iota
	// ReadDone: a map's input read (and its spills) ended.
	ReadDone
	// Copied: a reduce fetched all its input.
	Copied
	// ComputeStart: a reduce began its final merge and compute (after any
	// wait for a compute place).
	ComputeStart
	// WriteStart: a reduce began writing its output.
	WriteStart
)

// Key names an attempt: its job, its task (maps from 0, reduces as
// -1-index) and its attempt number.
type Key struct {
	Job, Task int32
	N         uint32
}

// Outcome is how an attempt ended.
type Outcome uint8

// How attempts end.
const (
	Succeeded Outcome = iota
	Ended             // failed, killed, lost, or lost a race
)

// attempt is an attempt's phase times while it runs and after.
type attempt struct {
	launch, ready, readEnd, end float64
	// copied, compute and write are a reduce's phase starts.
	copied, compute, write float64
	// floor is a map's compute time at its rate cap.
	floor float64
	reach uint8
	ok    bool
	// pred is the job's map attempt (index in job.maps) that had ended
	// most recently when this one launched, -1 for none.
	pred int32
	// gap and held are the wait before the attempt's launch (from pred's
	// end, or the submission, or for a reduce from the last map's end)
	// and the part of it a free slot existed; rule names what held it.
	gap, held float64
	rule      int16
	// A reduce's copy after the last map, by bound (Bound), for the
	// maps-done epoch mdEpoch; lastFetch is its last fetch's end.
	shuffle   [3]float64
	lastFetch float64
	mdEpoch   int32
	// tm, tmRec and tmEpoch are, for a reduce, the job's maps-done time,
	// its map record and epoch when the reduce's copy ended: the maps it
	// waited for (a map run again later, whose output it already held,
	// is not on its path).
	tm      float64
	tmRec   int32
	tmEpoch int32
	// n is the attempt's number (Key.N).
	n uint32
}

// mapRec is an ended map attempt, as the path reads it.
type mapRec struct {
	launch, ready, readEnd, end, floor, gap, held float64
	pred                                          int32
	rule                                          int16
	reach                                         uint8
	ok                                            bool
}

// job is a running job's records.
type job struct {
	submit float64
	// open are the running attempts by task, maps then reduces (nMaps
	// of them); a task's second running attempt (a speculative backup)
	// goes in Recorder.extra.
	open  []*attempt
	nMaps int32
	// maps are the job's ended map attempts, in the order they ended.
	maps []mapRec
	// lastEnd is when the latest map attempt ended (or the submission);
	// mapIdle is the free-slot time by rule at that moment.
	lastEnd float64
	mapIdle []float64
	// mapsDone is when the job's maps were last all done, -1 while not;
	// doneRec is the map attempt that ended then; redIdle the free-slot
	// time by rule then; mdEpoch counts the times they were all done.
	mapsDone float64
	doneRec  int32
	redIdle  []float64
	mdEpoch  int32
	// last is the reduce attempt that finished last.
	last    attempt
	hasLast bool
}

// Recorder collects the records and computes each job's Breakdown when it
// completes. Its zero value is not usable; build it with New.
type Recorder struct {
	jobs  []*job
	extra map[Key]*attempt
	pool  []*attempt
	// The free-slot clock: per slot group (0 maps, 1 reduces) whether a
	// slot is free, since when, under which rule; idle accumulates the
	// free time by group and rule.
	free    [2]bool
	since   [2]float64
	rule    [2]int16
	idle    [2][]float64
	rules   []string
	ruleIdx map[string]int16
}

// New returns a recorder for a run of n jobs.
func New(n int) *Recorder {
	r := &Recorder{jobs: make([]*job, n), extra: map[Key]*attempt{}, ruleIdx: map[string]int16{}}
	r.ruleID("heartbeat")
	return r
}

func (r *Recorder) ruleID(name string) int16 {
	if id, ok := r.ruleIdx[name]; ok {
		return id
	}
	id := int16(len(r.rules))
	r.rules = append(r.rules, name)
	r.ruleIdx[name] = id
	for g := range r.idle {
		r.idle[g] = append(r.idle[g], 0)
	}
	return id
}

// snapshot copies group g's free-slot time by rule at now into dst.
func (r *Recorder) snapshot(dst []float64, g int, now float64) []float64 {
	dst = append(dst[:0], r.idle[g]...)
	if r.free[g] {
		dst[r.rule[g]] += now - r.since[g]
	}
	return dst
}

// SlotsFree says whether a slot a map (group 0) or a reduce (group 1)
// could take is free on a live node, from now on.
func (r *Recorder) SlotsFree(now float64, g int, free bool) {
	if r.free[g] == free {
		return
	}
	if r.free[g] {
		r.idle[g][r.rule[g]] += now - r.since[g]
	}
	r.free[g], r.since[g] = free, now
}

// Declined records that the policy declined an offer of a slot of group g
// by rule: free slots of that group are held by it from now on.
func (r *Recorder) Declined(now float64, g int, rule string) {
	id := r.ruleID(rule)
	if id == r.rule[g] {
		return
	}
	if r.free[g] {
		r.idle[g][r.rule[g]] += now - r.since[g]
		r.since[g] = now
	}
	r.rule[g] = id
}

// Submitted records job j's submission at now, of maps maps and reduces
// reduces; its turnaround counts from submit, the time it was due, which
// a driver running in wall-clock time reaches a little after it.
func (r *Recorder) Submitted(now, submit float64, j, maps, reduces int) {
	submit = min(submit, now)
	jb := &job{submit: submit, lastEnd: submit, mapsDone: -1, doneRec: -1, open: make([]*attempt, maps+reduces), nMaps: int32(maps)}
	jb.mapIdle = r.snapshot(nil, 0, now)
	r.jobs[j] = jb
}

// Launched records attempt k's launch; a map reads from reach (a
// cluster.Reach) and computes for floor seconds at its rate cap.
func (r *Recorder) Launched(now float64, k Key, reach uint8, floor float64) {
	jb := r.jobs[k.Job]
	if jb == nil {
		return
	}
	var a *attempt
	if n := len(r.pool); n > 0 {
		a, r.pool = r.pool[n-1], r.pool[:n-1]
	} else {
		a = new(attempt)
	}
	*a = attempt{launch: now, ready: now, readEnd: now, copied: now, compute: now, write: now,
		floor: floor, reach: reach, pred: int32(len(jb.maps)) - 1, lastFetch: now, mdEpoch: -1, n: k.N}
	if k.Task >= 0 {
		a.gap = now - jb.lastEnd
		a.held, a.rule = r.heldSince(jb.mapIdle, 0, now)
	} else if jb.mapsDone >= 0 {
		a.gap = now - jb.mapsDone
		a.held, a.rule = r.heldSince(jb.redIdle, 1, now)
	}
	if i := jb.slot(k.Task); jb.open[i] == nil {
		jb.open[i] = a
	} else {
		r.extra[k] = a
	}
}

// slot is task's index in open.
func (jb *job) slot(task int32) int32 {
	if task >= 0 {
		return task
	}
	return jb.nMaps - 1 - task
}

// find is attempt k's record while it runs, nil otherwise.
func (r *Recorder) find(k Key) *attempt {
	jb := r.jobs[k.Job]
	if jb == nil {
		return nil
	}
	if a := jb.open[jb.slot(k.Task)]; a != nil && a.n == k.N {
		return a
	}
	if len(r.extra) == 0 {
		return nil
	}
	return r.extra[k]
}

// heldSince is the free-slot time of group g since the snapshot from,
// and the rule that held most of it.
func (r *Recorder) heldSince(from []float64, g int, now float64) (float64, int16) {
	total, best, rule := 0.0, 0.0, int16(-1)
	for id := range r.rules {
		v := r.idle[g][id]
		if r.free[g] && int16(id) == r.rule[g] {
			v += now - r.since[g]
		}
		if id < len(from) {
			v -= from[id]
		}
		if v > 0 {
			total += v
			if v > best {
				best, rule = v, int16(id)
			}
		}
	}
	return total, rule
}

// Phase records that attempt k reached phase boundary m.
func (r *Recorder) Phase(now float64, k Key, m Mark) {
	a := r.find(k)
	if a == nil {
		return
	}
	switch m {
	case Ready:
		a.ready, a.readEnd, a.copied, a.compute, a.write, a.lastFetch = now, now, now, now, now, now
	case ReadDone:
		a.readEnd = now
	case Copied:
		a.copied, a.compute, a.write = now, now, now
		jb := r.jobs[k.Job]
		a.tm, a.tmRec, a.tmEpoch = jb.mapsDone, jb.doneRec, jb.mdEpoch
		if a.tm < 0 { // it held every output it needed while some ran again
			a.tm, a.tmRec, a.tmEpoch = jb.lastEnd, int32(len(jb.maps))-1, -2
		}
	case ComputeStart:
		a.compute, a.write = now, now
	case WriteStart:
		a.write = now
	}
}

// Fetched records that a fetch of reduce attempt k, bounded by b, ended.
// The time since its previous fetch ended counts toward b, from when the
// job's maps were all done.
func (r *Recorder) Fetched(now float64, k Key, b Bound) {
	a := r.find(k)
	if a == nil {
		return
	}
	jb := r.jobs[k.Job]
	if jb.mapsDone >= 0 {
		if a.mdEpoch != jb.mdEpoch {
			a.shuffle, a.mdEpoch = [3]float64{}, jb.mdEpoch
		}
		if from := max(a.lastFetch, jb.mapsDone, a.ready); now > from {
			a.shuffle[b] += now - from
		}
	}
	a.lastFetch = now
}

// MapsLost records that some of job j's finished maps must run again:
// the time since its last map attempt ended is lost, as the path through
// a map run again sees it.
func (r *Recorder) MapsLost(now float64, j int) {
	jb := r.jobs[j]
	if jb == nil {
		return
	}
	jb.mapsDone = -1
	jb.maps = append(jb.maps, mapRec{launch: jb.lastEnd, ready: jb.lastEnd, readEnd: jb.lastEnd, end: now, pred: int32(len(jb.maps)) - 1})
	jb.lastEnd = now
	jb.mapIdle = r.snapshot(jb.mapIdle, 0, now)
}

// AttemptEnded records attempt k's end, and, for a map whose end makes
// all of the job's maps done, so. A finished reduce's records are kept
// if it ends last so far.
func (r *Recorder) AttemptEnded(now float64, k Key, o Outcome, allMapsDone bool) {
	a := r.find(k)
	if a == nil {
		return
	}
	jb := r.jobs[k.Job]
	if i := jb.slot(k.Task); jb.open[i] == a {
		jb.open[i] = nil
	} else {
		delete(r.extra, k)
	}
	a.end, a.ok = now, o == Succeeded
	if k.Task >= 0 {
		if jb.maps == nil {
			// Sized for one attempt a map at the first end, not at
			// submission: a backlog's queued jobs hold nothing yet, and
			// a large job's records are not copied as they grow.
			jb.maps = make([]mapRec, 0, jb.nMaps)
		}
		jb.maps = append(jb.maps, mapRec{launch: a.launch, ready: a.ready, readEnd: a.readEnd, end: now,
			floor: a.floor, gap: a.gap, held: a.held, pred: a.pred, rule: a.rule, reach: a.reach, ok: a.ok})
		jb.lastEnd = now
		jb.mapIdle = r.snapshot(jb.mapIdle, 0, now)
		if a.ok && allMapsDone {
			jb.mapsDone, jb.doneRec = now, int32(len(jb.maps))-1
			jb.mdEpoch++
			jb.redIdle = r.snapshot(jb.redIdle, 1, now)
		}
	} else if a.ok {
		jb.last, jb.hasLast = *a, true
	}
	r.pool = append(r.pool, a)
}

// JobEnded drops job j's records; a completed job's breakdown is returned
// with ok true.
func (r *Recorder) JobEnded(now float64, j int, completed bool) (Breakdown, bool) {
	jb := r.jobs[j]
	r.jobs[j] = nil
	if jb == nil || !completed {
		return Breakdown{}, false
	}
	return r.walk(jb, now), true
}

// walk computes the breakdown of job jb, finished at end.
func (r *Recorder) walk(jb *job, end float64) Breakdown {
	var b Breakdown
	var held [64]float64 // by rule id; rules beyond fold into the last
	addHeld := func(gap, h float64, rule int16) {
		h = min(h, gap)
		b.Parts[Held] += h
		b.Parts[Queued] += gap - h
		if h > 0 && rule >= 0 {
			held[min(int(rule), len(held)-1)] += h
		}
	}
	// Without reduces, or when the job completed at a map that ran again
	// after its last reduce ended, the path starts at the last map.
	cursor, m := end, jb.doneRec
	if jb.hasLast && jb.last.end >= jb.mapsDone {
		a := &jb.last
		b.Parts[OutputWrite] += cursor - a.write
		b.Parts[ReduceCompute] += a.write - a.compute
		b.Parts[Queued] += a.compute - a.copied
		tm := a.tm
		from := max(tm, a.ready)
		shuffle := a.copied - from
		var by [3]float64
		if a.mdEpoch == a.tmEpoch {
			by = a.shuffle
		}
		split(&b, shuffle, by)
		switch {
		case tm >= a.ready:
		case tm >= a.launch:
			b.Parts[Startup] += a.ready - tm
		default:
			b.Parts[Startup] += a.ready - a.launch
			// The wait since the maps were done; what was measured at the
			// launch applies when it measured this wait.
			gap, h := a.launch-tm, 0.0
			if math.Abs(gap-a.gap) <= 1e-9*max(1, gap) {
				h = a.held
			}
			addHeld(gap, h, a.rule)
		}
		cursor, m = tm, a.tmRec
	}
	for m >= 0 {
		a := &jb.maps[m]
		// cursor is a's end.
		if a.ok {
			b.Parts[MapCompute] += cursor - a.readEnd
			read := a.readEnd - a.ready
			c := min(a.floor, read)
			b.Parts[MapCompute] += c
			b.Parts[ReadLocal+Part(min(a.reach, 2))] += read - c
			b.Parts[Startup] += a.ready - a.launch
		} else {
			b.Parts[Lost] += cursor - a.launch
		}
		addHeld(a.gap, a.held, a.rule)
		cursor = a.launch - a.gap
		m = a.pred
	}
	// What is left is the wait before the first attempt on the path, or
	// the whole turnaround for a job that ran nothing.
	b.Parts[Queued] += cursor - jb.submit
	best := 0.0
	for id, h := range held {
		if h > best {
			best, b.HeldBy = h, r.rules[id]
		}
	}
	return b
}

// split adds shuffle seconds to b's shuffle parts in the proportions of
// by (all to the NIC when by is empty).
func split(b *Breakdown, shuffle float64, by [3]float64) {
	tot := by[0] + by[1] + by[2]
	if tot <= 0 || math.IsNaN(tot) {
		b.Parts[ShuffleNIC] += shuffle
		return
	}
	done := 0.0
	for i := BoundNIC; i < BoundDisk; i++ {
		v := shuffle * by[i] / tot
		b.Parts[ShuffleNIC+Part(i)] += v
		done += v
	}
	b.Parts[ShuffleDisk] += shuffle - done
}
