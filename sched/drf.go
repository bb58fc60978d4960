package sched

import (
	"cmp"
	"fmt"
	"iter"
	"math"
	"slices"
	"strings"

	"github.com/mrsched/mrsched/cluster"
)

// DRFParams are the `drf` policy's parameters.
type DRFParams struct {
	// Weights gives pools weights (weighted DRF, Ghodsi et al. section
	// 4.3): a pool's dominant share is divided by its weight. A pool not
	// listed has weight 1.
	Weights map[string]float64 `yaml:"weights"`
}

// Validate names the first bad weight, in pool-name order.
func (p DRFParams) Validate() error {
	names := make([]string, 0, len(p.Weights))
	for n := range p.Weights {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if w := p.Weights[n]; !(w > 0) || math.IsInf(w, 0) {
			return fmt.Errorf("weights.%s: want a finite number > 0, got %v", n, w)
		}
	}
	return nil
}

// DRFOrder is Dominant Resource Fairness (Ghodsi et al., "Dominant Resource
// Fairness: Fair Allocation of Multiple Resource Types", NSDI 2011, section
// 4) as an Order. A user is a pool (ShuffleWatcher and NAS run DRF per
// user; a pool is one user by default). A user's dominant share is the
// largest, over CPU and memory, of the user's allocation over the cluster's
// total (NumNodes times the node's CPUCores and MemoryGB), divided by its
// weight; the allocation is the sum of the demands
// (workload.Profile.TaskDemand) of its running tasks, maps and reduces
// alike, in either cluster model.
//
// Candidates yields users by increasing dominant share, ties by pool name,
// and a user's jobs in submit order ("among the chosen user's tasks, the
// earliest enqueued task that fits", ShuffleWatcher section 2.2). Whether a
// task fits the offered node is for the placer: compose DRFOrder with a
// ResourceFit placer, which passes over the jobs whose task does not fit,
// so that the slot goes to the user with the lowest dominant share whose
// task fits. The paper's Algorithm 1 fills one pool of resources and stops
// when the neediest user's task does not fit; on many nodes a task that
// does not fit here may fit elsewhere, so mrsched moves on to the next
// user, as Mesos and YARN's DRF do. This can starve users of large tasks
// on a busy cluster (no reservations); the paper's setting has none
// either. Parameters: DRFParams (pool weights, default 1).
type DRFOrder struct {
	weights map[string]float64
	users   map[string]*drfUser // lookup only; never iterated
	active  []*drfUser          // users with jobs, sorted when not dirty
	dirty   bool
	totCPU  float64
	totMem  float64
}

type drfUser struct {
	name     string
	weight   float64
	jobs     []*Job // submit order
	cpu, mem float64
	running  int
	share    float64
}

var (
	_ Order        = (*DRFOrder)(nil)
	_ JobObserver  = (*DRFOrder)(nil)
	_ TaskObserver = (*DRFOrder)(nil)
)

// NewDRFOrder returns a DRF order.
func NewDRFOrder(p DRFParams) (*DRFOrder, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &DRFOrder{weights: p.Weights, users: map[string]*drfUser{}}, nil
}

// NewDRF returns the `drf` policy: the DRF order with locality-first
// placement among the jobs whose task fits the offered node.
func NewDRF(p DRFParams) (Policy, error) {
	o, err := NewDRFOrder(p)
	if err != nil {
		return nil, err
	}
	return Compose("drf", o, NewResourceFit(LocalityFirst{})), nil
}

// JobAdded adds the job to its user, in submit order.
func (d *DRFOrder) JobAdded(_ Cluster, j *Job) {
	u := d.users[j.Pool]
	if u == nil {
		w, ok := d.weights[j.Pool]
		if !ok {
			w = 1
		}
		u = &drfUser{name: j.Pool, weight: w}
		d.users[j.Pool] = u
	}
	if len(u.jobs) == 0 {
		d.active = append(d.active, u)
	}
	i, _ := slices.BinarySearchFunc(u.jobs, j, func(a, b *Job) int {
		return cmp.Or(cmp.Compare(a.Submit, b.Submit), cmp.Compare(a.Index, b.Index))
	})
	u.jobs = slices.Insert(u.jobs, i, j)
	d.dirty = true
}

// JobRemoved drops the job, and its user from the active set when it has
// no jobs left.
func (d *DRFOrder) JobRemoved(_ Cluster, j *Job) {
	u := d.users[j.Pool]
	if u == nil {
		return
	}
	if i := slices.Index(u.jobs, j); i >= 0 {
		u.jobs = slices.Delete(u.jobs, i, i+1)
	}
	if len(u.jobs) == 0 {
		if i := slices.Index(d.active, u); i >= 0 {
			d.active = slices.Delete(d.active, i, i+1)
		}
	}
	d.dirty = true
}

// TaskLaunched adds the task's demand to its user's allocation.
func (d *DRFOrder) TaskLaunched(_ Cluster, j *Job, k TaskKind, _ cluster.NodeID) {
	d.account(j, k, 1)
}

// TaskEnded takes the task's demand off its user's allocation.
func (d *DRFOrder) TaskEnded(_ Cluster, j *Job, k TaskKind, _ cluster.NodeID, _ bool) {
	d.account(j, k, -1)
}

func (d *DRFOrder) account(j *Job, k TaskKind, sign int) {
	u := d.users[j.Pool]
	if u == nil {
		return
	}
	cpu, mem := taskDemand(j, k)
	u.cpu += float64(sign) * cpu
	u.mem += float64(sign) * mem
	u.running += sign
	if u.running == 0 {
		u.cpu, u.mem = 0, 0 // no drift from adding and removing fractions
	}
	d.dirty = true
}

// taskDemand is a task's CPU and memory demand.
func taskDemand(j *Job, k TaskKind) (cpu, memGB float64) {
	if j.Spec == nil {
		return 1, 1
	}
	return j.Spec.Profile.TaskDemand(k == MapTask)
}

// DominantShare is pool name's current dominant share (weighted), for
// reports and tests.
func (d *DRFOrder) DominantShare(c Cluster, name string) float64 {
	d.totals(c)
	if u := d.users[name]; u != nil {
		return d.shareOf(u)
	}
	return 0
}

func (d *DRFOrder) totals(c Cluster) {
	if d.totCPU > 0 {
		return
	}
	t := c.Topology()
	if t.Uniform() {
		cfg := t.Config()
		d.totCPU = cfg.CPUCores * float64(t.NumNodes())
		d.totMem = cfg.MemoryGB * float64(t.NumNodes())
		return
	}
	// Nodes that differ: the cluster's total is the sum of theirs.
	for n := range t.NumNodes() {
		cpu, mem := t.Resources(cluster.NodeID(n))
		d.totCPU += cpu
		d.totMem += mem
	}
}

func (d *DRFOrder) shareOf(u *drfUser) float64 {
	return max(u.cpu/d.totCPU, u.mem/d.totMem) / u.weight
}

// Candidates yields the jobs with work for the slot, users by increasing
// dominant share (ties by pool name), each user's jobs in submit order.
func (d *DRFOrder) Candidates(c Cluster, s SlotKind) iter.Seq[*Job] {
	return func(yield func(*Job) bool) {
		d.totals(c)
		if d.dirty {
			// Shares change only in observer callbacks, never while a
			// consumer iterates, so sorting in place is safe.
			for _, u := range d.active {
				u.share = d.shareOf(u)
			}
			slices.SortFunc(d.active, func(a, b *drfUser) int {
				return cmp.Or(cmp.Compare(a.share, b.share), strings.Compare(a.name, b.name))
			})
			d.dirty = false
		}
		for _, u := range d.active {
			for _, j := range u.jobs {
				if j.Runnable(s) > 0 && !yield(j) {
					return
				}
			}
		}
	}
}
