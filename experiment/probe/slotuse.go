package probe

import (
	"slices"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/experiment/harness"
	"github.com/mrsched/mrsched/sched"
)

// SlotUse wraps a policy and integrates, over a run, the map slots in use
// and those left idle while some job still has a map to launch, and times
// every map against its CPU time, split by where it read its input. It
// changes no decision.
type SlotUse struct {
	harness.PassThrough
	block int64

	// T is the cluster's map slots.
	T         int
	now       float64
	running   int
	pending   bool // some job has a map to launch
	busySlotS float64
	idleSlotS float64 // map slots free while pending
	idleLastS float64 // the part after every job had launched a map
	unstarted bool    // some job has launched no map yet
	// LastMapEnd is when the last map attempt ended.
	LastMapEnd float64

	runs    harness.MapRuns[probeRun]
	stretch [2]harness.Stat // duration / CPU time: [0] node-local, [1] remote
}

// probeRun is when a map attempt started and whether it reads another
// node's block.
type probeRun struct {
	start  float64
	remote bool
}

// NewSlotUse watches inner's map slots.
func NewSlotUse(inner sched.Policy) *SlotUse {
	return &SlotUse{PassThrough: harness.PassTo(inner)}
}

// Shares are the map-slot time busy, idle while a map waited, and idle
// while one waited after every job had launched a map, each over T x the
// last map's end (zeros when no map ran).
func (p *SlotUse) Shares() (busy, idle, idleLast float64) {
	if span := float64(p.T) * p.LastMapEnd; span > 0 {
		return p.busySlotS / span, p.idleSlotS / span, p.idleLastS / span
	}
	return 0, 0, 0
}

// Stretch is the mean of a map's duration over its CPU time, for the maps
// that read a local block or, with remote, another node's (NaN with none).
func (p *SlotUse) Stretch(remote bool) float64 {
	if remote {
		return p.stretch[1].Mean()
	}
	return p.stretch[0].Mean()
}

// LocalShare is the share of the timed maps that read a local block, 0
// with none.
func (p *SlotUse) LocalShare() float64 {
	if maps := p.stretch[0].N + p.stretch[1].N; maps > 0 {
		return 1 - float64(p.stretch[1].N)/float64(maps)
	}
	return 0
}

// advance integrates up to now with the state since the last event.
func (p *SlotUse) advance(c sched.Cluster) {
	if p.T == 0 {
		p.T = c.TotalSlots(sched.MapSlot)
		p.block = c.Topology().Config().BlockBytes()
	}
	t := c.Now()
	if dt := t - p.now; dt > 0 {
		p.busySlotS += float64(p.running) * dt
		if p.pending {
			p.idleSlotS += float64(p.T-p.running) * dt
			if !p.unstarted {
				p.idleLastS += float64(p.T-p.running) * dt
			}
		}
	}
	p.now = t
}

func (p *SlotUse) refresh(c sched.Cluster) {
	p.pending = slices.ContainsFunc(c.Jobs(), func(j *sched.Job) bool { return j.PendingMaps() > 0 })
	p.unstarted = slices.ContainsFunc(c.Jobs(), func(j *sched.Job) bool { return j.PendingMaps() == j.NumMaps })
}

// Assign asks the inner policy and notes whether a map it chose reads
// another node's block.
func (p *SlotUse) Assign(c sched.Cluster, o sched.Offer) (sched.Decision, bool) {
	p.advance(c)
	p.runs.Forget()
	d, ok := p.Inner.Assign(c, o)
	if ok && d.Kind == sched.MapTask {
		reps := d.Job.Input.BlockReplicas(d.Map)
		p.runs.Decided(d.Job, d.Map, o.Node, probeRun{remote: !slices.Contains(reps, o.Node)})
	}
	return d, ok
}

// JobAdded forwards, integrating up to now.
func (p *SlotUse) JobAdded(c sched.Cluster, j *sched.Job) {
	p.advance(c)
	p.PassThrough.JobAdded(c, j)
	p.refresh(c)
}

// JobRemoved forwards, integrating up to now.
func (p *SlotUse) JobRemoved(c sched.Cluster, j *sched.Job) {
	p.advance(c)
	p.PassThrough.JobRemoved(c, j)
	p.refresh(c)
}

// TaskLaunched forwards and counts a running map.
func (p *SlotUse) TaskLaunched(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID) {
	p.advance(c)
	p.PassThrough.TaskLaunched(c, j, k, n)
	if k == sched.MapTask {
		p.running++
		p.runs.Launched(c, j, n, probeRun{}).Note.start = p.now
	}
	p.runs.Forget()
	p.refresh(c)
}

// TaskEnded forwards and times an ended map.
func (p *SlotUse) TaskEnded(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID, killed bool) {
	p.advance(c)
	p.PassThrough.TaskEnded(c, j, k, n, killed)
	if k == sched.MapTask {
		p.running--
		p.LastMapEnd = p.now
		// An unchosen attempt (a backup) counts as ended first: it has
		// no map to find running.
		if r, ok := p.runs.Ended(c, j, n, nil, true); ok {
			if cpu := j.Spec.Profile.MapSecPerByte * float64(j.Spec.MapInputBytes(r.Map, p.block)); !killed && r.Map >= 0 && cpu > 0 {
				k := 0
				if r.Note.remote {
					k = 1
				}
				p.stretch[k].Add((p.now - r.Note.start) / cpu)
			}
		}
	}
	p.refresh(c)
}
