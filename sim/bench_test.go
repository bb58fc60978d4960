package sim

import (
	"testing"

	"github.com/mrsched/mrsched/cluster"
)

// BenchmarkEventLoop runs the first 600 jobs of FB-2009 on the default
// 100-node cluster under fair, in the exact and a quantized network mode,
// and reports the cost per engine event and per completed flow, the units
// a run's cost grows with (see docs/performance.md's growth table).
//
//	go test ./sim -run '^$' -bench EventLoop -benchtime 3x
func BenchmarkEventLoop(b *testing.B) {
	for _, m := range []struct {
		name string
		p    Params
	}{{"exact", Params{}}, {"quantum=1s", Params{NetworkQuantumS: 1}}} {
		b.Run(m.name, func(b *testing.B) {
			topo, err := cluster.New(cluster.Config{})
			if err != nil {
				b.Fatal(err)
			}
			jobs := fb2009Slice(b, 600, topo)
			var st Stats
			for b.Loop() {
				pol := mustPolicy(b, "fair")
				e, err := New(m.p, topo, jobs, pol, 1)
				if err != nil {
					b.Fatal(err)
				}
				if err := e.Run(); err != nil {
					b.Fatal(err)
				}
				st = e.Stats()
			}
			per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(per/float64(st.Events+st.Flows), "ns/event+flow")
			b.ReportMetric(float64(st.Flows), "flows/run")
			b.ReportMetric(float64(st.Network.Solves), "solves/run")
		})
	}
}
