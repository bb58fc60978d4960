package harness

import (
	"fmt"
	"slices"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/workload"
)

// WorkerPlan describes closed-loop submitters, as in the Fair Scheduler
// paper's section 6.2.4: each worker submits a job, waits for it to finish,
// and submits the next. The engine takes its jobs up front, so every job is
// submitted to the engine at time 0 and a gate in front of the policy
// hides it until its worker releases it.
type WorkerPlan struct {
	// Owner[i] is the worker of job i; a worker's jobs run in ID order.
	Owner []int
	// HorizonS stops the workers: no job is released at or after it
	// (0: no horizon, every job runs).
	HorizonS float64
}

// ClosedLoopJobs lays out workers' jobs in rounds (round k holds every
// worker's k-th job), all submitted to the engine at time 0 for the gate to
// release; mk builds job id, the k-th of worker w.
func ClosedLoopJobs(perWorker []int, mk func(id, w, k int) workload.Job) ([]workload.Job, *WorkerPlan) {
	var jobs []workload.Job
	plan := &WorkerPlan{}
	most := 0
	for _, n := range perWorker {
		most = max(most, n)
	}
	for k := range most {
		for w, n := range perWorker {
			if k < n {
				jobs = append(jobs, mk(len(jobs), w, k))
				plan.Owner = append(plan.Owner, w)
			}
		}
	}
	return jobs, plan
}

// gateStallS is the engine's stall timeout in closed-loop runs: once the
// workers stop at their horizon and the last released job finishes, the
// engine sees jobs that no one schedules and stops after this long.
const gateStallS = 60

// gate is a policy wrapper that shows the inner policy only the jobs the
// workers have released. It forwards job and task events for released jobs
// and presents a view of the cluster whose Jobs are the released, unfinished
// jobs in release order and whose Epoch also changes at each release.
// Preemption is not supported (the gate would hide other workers' jobs from
// it); runs with workers use policies that do not kill.
type gate struct {
	// PassThrough gives the gate the inner policy's name, idle-offer
	// wish and names for its declines; the gate overrides what it
	// filters.
	PassThrough
	plan *WorkerPlan

	next     []int        // per worker: index into its jobs of the next to release
	jobsOf   [][]int      // per worker: its job indices, in order
	added    []*sched.Job // engine jobs by index, once submitted
	busy     []bool       // per worker: a released job is unfinished
	visible  []*sched.Job // released, unfinished, in release order
	released []float64    // release time by job index, -1 if never
	epoch    uint64
	stopped  bool // a release was refused at the horizon
	view     gateView
}

func newGate(inner sched.Policy, plan *WorkerPlan) *gate {
	workers := 0
	for _, w := range plan.Owner {
		workers = max(workers, w+1)
	}
	g := &gate{PassThrough: PassTo(inner), plan: plan,
		next: make([]int, workers), jobsOf: make([][]int, workers), busy: make([]bool, workers),
		added: make([]*sched.Job, len(plan.Owner)), released: make([]float64, len(plan.Owner))}
	for i, w := range plan.Owner {
		g.jobsOf[w] = append(g.jobsOf[w], i)
		g.released[i] = -1
	}
	g.view.g = g
	return g
}

// checkGateable refuses a policy the gate cannot run: one that kills tasks.
func checkGateable(p sched.Policy) error {
	if _, ok := p.(sched.Preempter); ok {
		return fmt.Errorf("policy %s kills tasks; closed-loop workers do not support preemption", p.Name())
	}
	return nil
}

// gateView is the cluster as the inner policy sees it.
type gateView struct {
	sched.Cluster
	g *gate
}

// Jobs returns the released, unfinished jobs in release order.
func (v *gateView) Jobs() []*sched.Job { return v.g.visible }

// Epoch changes when the engine's does and when a job is released.
func (v *gateView) Epoch() uint64 { return v.Cluster.Epoch() + v.g.epoch }

func (g *gate) on(c sched.Cluster) *gateView {
	g.view.Cluster = c
	return &g.view
}

// Assign asks the inner policy, over the released jobs.
func (g *gate) Assign(c sched.Cluster, o sched.Offer) (sched.Decision, bool) {
	return g.Inner.Assign(g.on(c), o)
}

// OfferIdle forwards, over the released jobs.
func (g *gate) OfferIdle(c sched.Cluster, o sched.Offer) {
	if i := sched.IdleOffersOf(g.Inner); i != nil {
		i.OfferIdle(g.on(c), o)
	}
}

// JobAdded records a submitted job and releases it if its worker is idle.
func (g *gate) JobAdded(c sched.Cluster, j *sched.Job) {
	g.added[j.Index] = j
	g.release(c, g.plan.Owner[j.Index])
}

// JobRemoved forwards the finish and releases the worker's next job.
func (g *gate) JobRemoved(c sched.Cluster, j *sched.Job) {
	if i := slices.Index(g.visible, j); i >= 0 {
		g.visible = slices.Delete(g.visible, i, i+1)
	}
	if g.jobObs != nil {
		g.jobObs.JobRemoved(g.on(c), j)
	}
	w := g.plan.Owner[j.Index]
	g.busy[w] = false
	g.epoch++
	g.release(c, w)
}

// release hands worker w's next job to the inner policy if the worker is
// idle, the job has been submitted and the horizon has not passed.
func (g *gate) release(c sched.Cluster, w int) {
	if g.busy[w] || g.next[w] >= len(g.jobsOf[w]) {
		return
	}
	if g.plan.HorizonS > 0 && c.Now() >= g.plan.HorizonS {
		g.stopped = true
		return
	}
	j := g.added[g.jobsOf[w][g.next[w]]]
	if j == nil {
		return
	}
	g.next[w]++
	g.busy[w] = true
	g.released[j.Index] = c.Now()
	g.visible = append(g.visible, j)
	g.epoch++
	if g.jobObs != nil {
		g.jobObs.JobAdded(g.on(c), j)
	}
}

// drained reports whether the workers have stopped at their horizon and
// every released job has finished: the run is over.
func (g *gate) drained() bool { return g.stopped && len(g.visible) == 0 }

// TaskLaunched forwards.
func (g *gate) TaskLaunched(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID) {
	if g.taskObs != nil {
		g.taskObs.TaskLaunched(g.on(c), j, k, n)
	}
}

// TaskEnded forwards.
func (g *gate) TaskEnded(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID, killed bool) {
	if g.taskObs != nil {
		g.taskObs.TaskEnded(g.on(c), j, k, n, killed)
	}
}

// ReducesEnabled forwards for a released job; a job released later is
// added whole.
func (g *gate) ReducesEnabled(c sched.Cluster, j *sched.Job) {
	if ob, ok := g.Inner.(sched.DemandObserver); ok && slices.Contains(g.visible, j) {
		ob.ReducesEnabled(g.on(c), j)
	}
}

// MapOutputsLost forwards for a released job.
func (g *gate) MapOutputsLost(c sched.Cluster, j *sched.Job, n cluster.NodeID, maps int) {
	if ob, ok := g.Inner.(sched.OutputLossObserver); ok && slices.Contains(g.visible, j) {
		ob.MapOutputsLost(g.on(c), j, n, maps)
	}
}
