package sim

import (
	"math"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/workload"
)

// taskClock wraps a policy and records, per pool and task kind, every
// change in its number of running tasks, to integrate task-seconds
// afterwards, and each pool's last map launch.
type taskClock struct {
	observing
	events  [2][]poolEvent // by sched.TaskKind
	lastMap map[string]float64
}

type poolEvent struct {
	t     float64
	pool  string
	delta int
}

func (r *taskClock) TaskLaunched(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID) {
	r.observing.TaskLaunched(c, j, k, n)
	r.events[k] = append(r.events[k], poolEvent{c.Now(), j.Pool, 1})
	if k == sched.MapTask {
		r.lastMap[j.Pool] = c.Now()
	}
}

func (r *taskClock) TaskEnded(c sched.Cluster, j *sched.Job, k sched.TaskKind, n cluster.NodeID, killed bool) {
	r.observing.TaskEnded(c, j, k, n, killed)
	r.events[k] = append(r.events[k], poolEvent{c.Now(), j.Pool, -1})
}

// shares integrates each pool's running tasks of the given kinds over
// [0, until] and returns each pool's fraction of the total.
func (r *taskClock) shares(until float64, kinds ...sched.TaskKind) map[string]float64 {
	out := map[string]float64{}
	total := 0.0
	for _, k := range kinds {
		running := map[string]int{}
		last := 0.0
		for _, e := range append(r.events[k], poolEvent{t: math.Inf(1)}) {
			t := math.Min(e.t, until)
			for p, n := range running {
				out[p] += float64(n) * (t - last)
				total += float64(n) * (t - last)
			}
			if last = t; e.t > until {
				break
			}
			running[e.pool] += e.delta
		}
	}
	for p := range out {
		out[p] /= total
	}
	return out
}

// backlogged is 4 users that each submit 3 jobs at once, 40 maps of 10 s
// and 4 reduces; users 0 and 1 shuffle-heavy (4 GiB of shuffle from
// 2.5 GiB of input, ratio 1.6), users 2 and 3 light (ratio 0.006).
func backlogged(topo *cluster.Topology) []workload.Job {
	block := topo.Config().BlockBytes()
	var jobs []workload.Job
	for k := range 3 {
		for u := range 4 {
			per := int64(1 << 30)
			if u >= 2 {
				per = 4 << 20
			}
			b := newJob(len(jobs), float64(k)).maps(40, block, 10).reduces(4, per, 20).output(per)
			b.j.User, b.j.Pool = u, workload.PoolOf(u)
			jobs = append(jobs, b.build())
		}
	}
	return jobs
}

// TestShuffleWatcherKeepsFairness: NASS only chooses among the tasks of
// the user the fairness order selects (section 3.1), so each user's share
// of the slots all users contend for stays, under sw-fair, close to its
// share under fair. A share is a user's task-seconds (its running tasks
// integrated over time) over everyone's, from the start to the first time
// some user has no map left to launch, under either policy: until then
// every user wants every slot. In the slot model the shares are of map
// slots: reduce slots are a separate resource whose demand ShuffleWatcher
// changes on purpose (it enables a user's reduces only when a job's maps
// are done or the user has none left, section 3.3; fair starts them at
// 5%), so users' reduce demand differs between the policies. In the
// container model tasks of both kinds share containers, and the shares are
// of all of them. Tolerance: 0.03 of the cluster, an eighth of the fair
// share of 0.25.
func TestShuffleWatcherKeepsFairness(t *testing.T) {
	const tol = 0.03
	for _, m := range []struct {
		name  string
		cfg   cluster.Config
		kinds []sched.TaskKind
	}{
		{"slots", cluster.Config{Racks: 3, NodesPerRack: 4, MapSlots: 2, ReduceSlots: 1}, []sched.TaskKind{sched.MapTask}},
		{"containers", cluster.Config{Racks: 3, NodesPerRack: 4, Containers: 3}, []sched.TaskKind{sched.MapTask, sched.ReduceTask}},
	} {
		t.Run(m.name, func(t *testing.T) {
			topo := mustTopo(t, m.cfg)
			jobs := backlogged(topo)
			run := func(name string) (*taskClock, float64) {
				rec := &taskClock{observing: observing{mustPolicy(t, name)}, lastMap: map[string]float64{}}
				runJobs(t, topo, jobs, rec, Params{})
				end := math.Inf(1)
				for _, at := range rec.lastMap {
					end = math.Min(end, at)
				}
				return rec, end
			}
			fair, endFair := run("fair")
			sw, endSW := run("sw-fair")
			end := math.Min(endFair, endSW)
			sf, ss := fair.shares(end, m.kinds...), sw.shares(end, m.kinds...)
			for u := range 4 {
				p := workload.PoolOf(u)
				if d := math.Abs(ss[p] - sf[p]); d > tol {
					t.Errorf("%s: share %.3f under sw-fair, %.3f under fair (first %.0f s), want within %.2f: NASS must pick a task of the user fairness selects", p, ss[p], sf[p], end, tol)
				}
			}
		})
	}
}

// TestShuffleWatcherDelaysTheShuffle: with the maps of other jobs of the
// same user to run, ShuffleWatcher enables a job's reduces only once its
// map phase is complete (section 3.3), so its first reduce starts late;
// the fair scheduler starts reduces at the 5% slow-start. The NAS paper
// measures the same (Fig. 3d: map progress at the first reduce, SW-delay
// above Delay and Fair).
func TestShuffleWatcherDelaysTheShuffle(t *testing.T) {
	topo := mustTopo(t, cluster.Config{Racks: 3, NodesPerRack: 4, MapSlots: 2, ReduceSlots: 1})
	jobs := backlogged(topo)
	progress := func(name string) float64 {
		e := runJobs(t, topo, jobs, mustPolicy(t, name), Params{})
		sum := 0.0
		for _, r := range e.Collector().Jobs() {
			sum += r.MapProgressAtFirstReduce
		}
		return sum / float64(len(jobs))
	}
	fair, sw := progress("fair"), progress("sw-fair")
	if sw < 0.9 || fair > 0.5 {
		t.Errorf("mean map progress at the first reduce: sw-fair %.2f, fair %.2f; want sw-fair >= 0.9 (each user has other jobs' maps to run while a job maps) and fair <= 0.5 (reduces at slow-start, 0.05, but for each user's last job)", sw, fair)
	}
}
