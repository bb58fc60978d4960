package sim

import (
	"math"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/workload"
)

func mustTD(t *testing.T, p sched.TDParams) *sched.TD {
	t.Helper()
	td, err := sched.NewTDPolicy(p)
	if err != nil {
		t.Fatal(err)
	}
	return td
}

// tdQueue is a miniature of the TD paper's job queues (section V): jobs of
// the four applications, IO-bound (grep, sort: 2 s a 64 MB map) and
// CPU-bound (word count, inverted index: 8 s), submitted together, sizes
// cycling through sizes.
func tdQueue(topo *cluster.Topology, n int, sizes ...int) []workload.Job {
	block := topo.Config().BlockBytes()
	secs := []float64{2, 8, 2, 8}
	kinds := []string{"grep", "wordcount", "sort", "invertedindex"}
	var jobs []workload.Job
	for i := range n {
		j := newJob(i, 0).maps(sizes[i%len(sizes)], block, secs[i%4]).reduces(2, 1<<20, 1).output(1 << 20).build()
		j.Kind = kinds[i%4]
		jobs = append(jobs, j)
	}
	return jobs
}

// TestTDCompletesEveryJob runs TD under the real engine with its
// invariants on, in both slot models, on a queue of small and mixed jobs
// and on a slice of the FB-2009 trace (many one-map jobs arriving over
// time): every job must finish, TD must have decided every map, and its
// local assignment ratio must be the engine's node-local fraction (TD
// reads a map non-locally exactly when it sets a remote Source).
func TestTDCompletesEveryJob(t *testing.T) {
	models := []struct {
		name string
		cfg  cluster.Config
	}{
		{"slots", cluster.Config{Racks: 2, NodesPerRack: 5, MapSlots: 2, ReduceSlots: 2}},
		{"containers", cluster.Config{Racks: 2, NodesPerRack: 5, Containers: 4}},
	}
	queues := []struct {
		name string
		jobs func(*cluster.Topology) []workload.Job
	}{
		{"small", func(topo *cluster.Topology) []workload.Job { return tdQueue(topo, 24, 3, 8, 5, 12) }},
		{"mix", func(topo *cluster.Topology) []workload.Job { return tdQueue(topo, 8, 15, 40, 25, 60) }},
		{"fb2009", func(topo *cluster.Topology) []workload.Job { return fb2009Slice(t, 80, topo) }},
	}
	for _, m := range models {
		topo := mustTopo(t, m.cfg)
		for _, q := range queues {
			t.Run(m.name+"/"+q.name, func(t *testing.T) {
				jobs := q.jobs(topo)
				td := mustTD(t, sched.TDParams{})
				e := runJobs(t, topo, jobs, td, Params{})
				s := e.Collector().Summarize("td")
				st := td.Stats()
				if s.JobsCompleted != len(jobs) || st.JobsFinished != len(jobs) {
					t.Fatalf("engine completed %d, TD saw %d finish, of %d jobs: want all", s.JobsCompleted, st.JobsFinished, len(jobs))
				}
				maps := 0
				for _, j := range jobs {
					maps += j.NumMaps
				}
				if got := st.LocalMaps + st.NonLocalMaps; got != maps {
					t.Errorf("TD counted %d map launches, want %d: it decides every map and nothing is killed", got, maps)
				}
				if math.Abs(st.LocalRatio()-s.Locality.Node) > 1e-9 {
					t.Errorf("TD's local ratio %.4f differs from the engine's node-local fraction %.4f: a map is local exactly when TD reads it on its node", st.LocalRatio(), s.Locality.Node)
				}
				for _, js := range st.Jobs {
					if js.StatusAt[sched.TDFinished] < 0 {
						t.Errorf("job %d never became finished in TD (status times %v)", js.Job, js.StatusAt)
					}
				}
				t.Logf("queue completion %.1f s, local assignment ratio %.1f%% (engine: node %.1f%%, rack %.1f%%), hotspots %d %v, H violations %d (tightest bound %.2f)",
					st.QueueCompletionS, 100*st.LocalRatio(), 100*s.Locality.Node, 100*s.Locality.Rack, st.Hotspots, st.HotspotsByStage, st.HViolations, st.MinHBound)
			})
		}
	}
}
