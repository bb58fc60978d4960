// Package plugin_test is a scheduling policy written outside mrsched and
// plugged in through its registry, as another module would: the module
// requires github.com/mrsched/mrsched, defines a sched.Policy (here from an
// Order composed with mrsched's locality-first placement), and registers it
// in an init function. From then on scenarios, `compare` and sweeps built
// into that module's binary name it like a built-in policy.
package plugin_test

import (
	"cmp"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/mrsched/mrsched/scenario"
	"github.com/mrsched/mrsched/sched"
)

// fewestTasksFirst is an Order: the job with the fewest tasks left goes
// first (shortest remaining work, counted in tasks), ties by submit order.
type fewestTasksFirst struct{}

func (fewestTasksFirst) Candidates(c sched.Cluster, slot sched.SlotKind) iter.Seq[*sched.Job] {
	left := func(j *sched.Job) int { return j.PendingMaps() + j.PendingReduces() }
	return func(yield func(*sched.Job) bool) {
		var jobs []*sched.Job
		for _, j := range c.Jobs() {
			if j.Runnable(slot) > 0 {
				jobs = append(jobs, j)
			}
		}
		slices.SortStableFunc(jobs, func(a, b *sched.Job) int { return cmp.Compare(left(a), left(b)) })
		for _, j := range jobs {
			if !yield(j) {
				return
			}
		}
	}
}

func init() {
	err := sched.Register(sched.Entry{
		Name:    "fewest-tasks-first",
		Summary: "the job with the fewest tasks left first, closest map first",
		New: func(sched.Decode) (sched.Policy, error) {
			return sched.Compose("fewest-tasks-first", fewestTasksFirst{}, sched.LocalityFirst{}), nil
		},
	})
	if err != nil {
		panic(err)
	}
}

// Example runs the registered policy beside FIFO: a scenario names it like
// any other. At the trace's own sizes 10 nodes are barely loaded and the
// order in which jobs go hardly matters; at three times those sizes jobs
// queue, and taking the small ones first shortens the mean turnaround.
func Example() {
	fmt.Println("registered:", slices.Contains(sched.PolicyNames(), "fewest-tasks-first"))
	mean := map[string]float64{}
	for _, name := range []string{"fifo", "fewest-tasks-first"} {
		c, err := scenario.Parse(strings.NewReader(`
cluster: {racks: 2, nodes_per_rack: 5}
workload: {trace: FB-2009, max_jobs: 60, scale: 3}
policy: {name: `+name+`}
`), "plugin.yaml")
		if err != nil {
			fmt.Println(err)
			return
		}
		res, err := c.Run(nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		s := res.Summary
		fmt.Printf("%s: %d of %d jobs finished\n", s.Policy, s.JobsCompleted, s.JobsSubmitted)
		mean[name] = s.Turnaround.Mean
	}
	fmt.Println("fewest tasks first turns jobs around faster than FIFO:", mean["fewest-tasks-first"] < mean["fifo"])
	// Output:
	// registered: true
	// fifo: 60 of 60 jobs finished
	// fewest-tasks-first: 60 of 60 jobs finished
	// fewest tasks first turns jobs around faster than FIFO: true
}
