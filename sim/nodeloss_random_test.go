package sim

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/faults"
	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/sched"
)

// TestRandomFaultSchedules runs random kill, rack-kill and restore
// schedules on a small busy cluster, under every policy and engine
// feature (the costs beyond bandwidth among them), with invariants on: every run must end, every job complete or
// fail with a reason, and the same seed give the same bytes.
func TestRandomFaultSchedules(t *testing.T) {
	policies := []string{"fifo", "fair", "delay", "drf", "nas", "td", "sw-fair", "preempt"}
	runs := 64
	if testing.Short() {
		runs = 16
	}
	for seed := 0; seed < runs; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		cfg := cluster.Config{Racks: 2 + rng.IntN(2), NodesPerRack: 2 + rng.IntN(2), Replication: 1 + rng.IntN(3)}
		slow := []float64{0, 0.05, 1}[rng.IntN(3)]
		p := Params{NodeExpiryS: []float64{1, 10, 60, 600}[rng.IntN(4)], ParallelCopies: 1 + rng.IntN(5), SlowStart: &slow}
		switch rng.IntN(7) {
		case 0:
			cfg.Containers = 3
		case 1:
			p.CopyCompute = CopyCompute{Enabled: true, MaxReducers: 4, MaxComputing: 1}
		case 2:
			p.TaskStartupS = 2
		case 3:
			p.NetworkQuantumS = 1
		case 4:
			p.TaskFailureRate, p.MaxAttempts = 0.2, 3
		case 5:
			// The costs beyond bandwidth but speculation, which faults
			// refuse: a seeking disk, spills, merges, reduce merges.
			cfg.Disk = &costDisk
			p.SortBufferMB, p.MergeFactor, p.ReduceBufferMB = 2, 3, 4
		}
		topo := mustTopo(t, cfg)
		specs := randomFaults(rng, topo, []float64{50, 200, 1000}[rng.IntN(3)])
		name := policies[rng.IntN(len(policies))]
		t.Run(strconv.Itoa(seed)+"-"+name, func(t *testing.T) {
			run := func() ([]byte, metrics.Summary, []metrics.JobRecord) {
				pol := preemptingFairOr(t, name)
				e := runFaults(t, topo, failureJobs(topo.Config().BlockBytes()), pol, p, specs)
				var b strings.Builder
				if err := e.Collector().WriteJobsCSV(&b); err != nil {
					t.Fatal(err)
				}
				return []byte(b.String()), e.Collector().Summarize(name), e.Collector().Jobs()
			}
			csv, s, recs := run()
			for _, r := range recs {
				if st := r.Status(); st != "completed" && (st != "failed" || r.Reason == "") {
					t.Errorf("job %d ended %s (%q); want completed, or failed with a reason; faults %+v", r.ID, st, r.Reason, specs)
				}
			}
			if s.Faults == nil || s.JobsFailed < s.Faults.FailedJobs {
				t.Errorf("summary faults %+v with %d jobs failed; want a faults object counting at most the failed jobs", s.Faults, s.JobsFailed)
			}
			if seed%8 == 0 {
				again, _, _ := run()
				if string(again) != string(csv) {
					t.Error("the same run twice gave different jobs.csv")
				}
			}
		})
	}
}

// randomFaults draws a valid schedule over [0, span): kills of live
// nodes, kills of racks with a live node, restores of dead nodes.
func randomFaults(rng *rand.Rand, topo *cluster.Topology, span float64) []faults.Spec {
	dead := make([]bool, topo.NumNodes())
	var specs []faults.Spec
	at := 0.0
	for k := 0; k < 1+rng.IntN(10); k++ {
		at += rng.Float64() * span / 4
		n := cluster.NodeID(rng.IntN(topo.NumNodes()))
		name := faults.NodeName(topo, n)
		switch {
		case dead[n]:
			specs = append(specs, restore(name, at))
			dead[n] = false
		case rng.IntN(4) == 0:
			r := topo.Rack(n)
			first, count := topo.RackNodes(r)
			for i := 0; i < count; i++ {
				dead[first+cluster.NodeID(i)] = true
			}
			specs = append(specs, killRack(int(r), at))
		default:
			specs = append(specs, kill(name, at))
			dead[n] = true
		}
	}
	return specs
}

func preemptingFairOr(t *testing.T, name string) sched.Policy {
	if name == "preempt" {
		return preemptingFair(t)
	}
	return mustPolicy(t, name)
}
