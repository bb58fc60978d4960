package probe

import (
	"math"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/experiment/harness"
	"github.com/mrsched/mrsched/sched"
)

// MapTimer wraps a policy and times every map attempt it launches, launch
// to end, by where the map reads its block (node-local, rack-local,
// off-rack: the replica the engine reads, the nearest, unless the policy
// names one) and by a class of its job. It changes no decision. Backups
// the engine launches on its own (speculation) and killed attempts are
// not timed.
type MapTimer struct {
	harness.PassThrough
	classOf func(*sched.Job) int

	runs harness.MapRuns[mtRun]
	// Dur[class][reach] is the attempts' durations in seconds.
	Dur [][3]harness.Stat
}

// mtRun is where a map attempt reads from and when it started.
type mtRun struct {
	reach cluster.Reach
	start float64
}

// NewMapTimer times inner's maps in classes classes, job j's in
// classOf(j) (nil: one class).
func NewMapTimer(inner sched.Policy, classes int, classOf func(*sched.Job) int) *MapTimer {
	if classOf == nil {
		classOf = func(*sched.Job) int { return 0 }
	}
	return &MapTimer{PassThrough: harness.PassTo(inner), classOf: classOf, Dur: make([][3]harness.Stat, classes)}
}

// Assign asks the inner policy and notes where a map it chose reads.
func (t *MapTimer) Assign(c sched.Cluster, o sched.Offer) (sched.Decision, bool) {
	t.runs.Forget()
	d, ok := t.Inner.Assign(c, o)
	if ok && d.Kind == sched.MapTask {
		topo := c.Topology()
		reach := cluster.Reach(math.MaxInt8)
		if d.SourceSet {
			reach = topo.ReachOf(d.Source, o.Node)
		} else {
			for _, r := range d.Job.Input.BlockReplicas(d.Map) {
				reach = min(reach, topo.ReachOf(r, o.Node))
			}
		}
		t.runs.Decided(d.Job, d.Map, o.Node, mtRun{reach: reach})
	}
	return d, ok
}

// TaskLaunched forwards and notes when a map attempt started.
func (t *MapTimer) TaskLaunched(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID) {
	t.PassThrough.TaskLaunched(c, j, k, n)
	if k != sched.MapTask {
		return
	}
	t.runs.Launched(c, j, n, mtRun{}).Note.start = c.Now()
}

// TaskEnded forwards and times a map attempt the policy chose that
// finished.
func (t *MapTimer) TaskEnded(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID, killed bool) {
	t.PassThrough.TaskEnded(c, j, k, n, killed)
	if k != sched.MapTask {
		return
	}
	if r, ok := t.runs.Ended(c, j, n, nil, false); ok && !killed && r.Map >= 0 {
		t.Dur[t.classOf(j)][r.Note.reach].Add(c.Now() - r.Note.start)
	}
}

// TimedRun is a run whose maps a MapTimer times between the engine (or
// the closed-loop gate) and the policy: Classes classes, job j's in
// ClassOf(j) (nil: one class).
type TimedRun struct {
	harness.Run
	Classes int
	ClassOf func(*sched.Job) int
}

// Timed is a timed run's outcome and its map durations, Dur[class][reach].
type Timed struct {
	harness.Outcome
	Dur [][3]harness.Stat
}

// Exec runs r as harness.Run.Exec does, its maps timed.
func (r TimedRun) Exec() (*Timed, error) {
	var t *MapTimer
	r.Probe = func(p sched.Policy, _ *cluster.Topology) sched.Policy {
		t = NewMapTimer(p, max(1, r.Classes), r.ClassOf)
		return t
	}
	out, err := r.Run.Exec()
	if err != nil {
		return nil, err
	}
	return &Timed{Outcome: *out, Dur: t.Dur}, nil
}

// Under is r under policy p, its maps timed (Exec): r is a copy, so that
// the policies of one scenario, which run at once, each have their own.
func (r TimedRun) Under(p harness.PolicySpec) (*Timed, error) {
	r.Policy = p
	return r.Exec()
}

// ByReach accumulates one class's map durations by reach (a MapTimer's
// Dur[class]) over runs: every attempt's duration, pooled.
type ByReach [3]harness.Stat

// Add pools a run's durations by reach into d.
func (d *ByReach) Add(s [3]harness.Stat) {
	for k := range s {
		d[k].Merge(s[k])
	}
}

// Text is "node / rack / off" mean seconds, "-" where no map read so.
func (d ByReach) Text(reaches int) string {
	out := ""
	for k := range reaches {
		if k > 0 {
			out += " / "
		}
		if d[k].N == 0 {
			out += "-"
		} else {
			out += harness.Num(d[k].Mean(), 1)
		}
	}
	return out
}

// CSV is the mean seconds by reach at three decimals, empty where no map
// read so.
func (d ByReach) CSV() []string {
	out := make([]string, 3)
	for k := range out {
		if d[k].N > 0 {
			out[k] = harness.Num(d[k].Mean(), 3)
		}
	}
	return out
}

// MapTimes is the column of a row's map durations by reach (d), the
// first reaches of them shown.
func MapTimes[R any](head string, reaches int, d func(R) ByReach) harness.Column[R] {
	return harness.Column[R]{Head: head, Text: func(r R) string { return d(r).Text(reaches) },
		CSV: []string{"map_s_node", "map_s_rack", "map_s_off"}, Cells: func(r R) []string { return d(r).CSV() }}
}
