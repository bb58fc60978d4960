package metrics

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/workload"
)

func TestDistribute(t *testing.T) {
	cases := []struct {
		name string
		in   []float64
		want Distribution
		why  string
	}{
		{"empty", nil, Distribution{}, "no jobs, no numbers"},
		{"one", []float64{7}, Distribution{Count: 1, Mean: 7, Median: 7, P95: 7, Max: 7}, "a single value is every statistic"},
		{"even count", []float64{4, 1, 3, 2}, Distribution{Count: 4, Mean: 2.5, Median: 2.5, P95: 4, Max: 4},
			"median of 1,2,3,4 is (2+3)/2; nearest-rank p95 is the ceil(0.95*4)=4th value"},
		{"twenty", seq(1, 20), Distribution{Count: 20, Mean: 10.5, Median: 10.5, P95: 19, Max: 20},
			"nearest-rank p95 of 1..20 is the ceil(0.95*20)=19th value"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Distribute(c.in); got != c.want {
				t.Errorf("Distribute(%v) = %+v, want %+v: %s", c.in, got, c.want, c.why)
			}
		})
	}
}

func seq(a, b int) []float64 {
	var v []float64
	for i := a; i <= b; i++ {
		v = append(v, float64(i))
	}
	return v
}

// TestSummarize builds a collector by hand and checks each derived number
// against its definition.
func TestSummarize(t *testing.T) {
	c := New(Options{CongestionThreshold: 0.8, MonitorPeriodS: 3})
	jobs := []workload.Job{
		{ID: 0, Name: "a", Submit: 0, ShuffleBytes: 10, NumMaps: 2, NumReduces: 1},      // light
		{ID: 1, Name: "b", Submit: 100, ShuffleBytes: 50e6, NumMaps: 2, NumReduces: 1},  // medium
		{ID: 2, Name: "c", Submit: 200, ShuffleBytes: 500e6, NumMaps: 2, NumReduces: 1}, // heavy, never finishes
	}
	for i := range jobs {
		c.JobSubmitted(&jobs[i])
	}
	c.TaskLaunched(0, 5, true, cluster.NodeLocal, 0)
	c.TaskLaunched(0, 6, true, cluster.RackLocal, 0)
	c.TaskLaunched(1, 110, true, cluster.OffRack, 0)
	c.TaskLaunched(1, 111, true, cluster.NodeLocal, 0)
	c.TaskLaunched(0, 20, false, 0, 0.5)
	c.JobFinished(0, 60)   // turnaround 60
	c.JobFinished(1, 3700) // turnaround 3600
	c.Transfer(Shuffle, true, 100)
	c.Transfer(Shuffle, false, 50)
	c.Transfer(RemoteMap, true, 30)
	c.Transfer(Output, true, 20)
	c.MonitorSample(2)
	c.MonitorSample(0)
	c.TaskKilled(12)
	s := c.Summarize("p")

	checks := []struct {
		name      string
		got, want float64
		why       string
	}{
		{"jobs completed", float64(s.JobsCompleted), 2, "jobs a and b finished, c did not"},
		{"makespan", s.MakespanS, 3700, "last finish 3700 - first submit 0"},
		{"throughput", s.ThroughputJobsPerHour, 2 / 3700.0 * 3600, "2 jobs / 3700 s, per hour"},
		{"mean turnaround", s.Turnaround.Mean, (60 + 3600) / 2.0, "mean of 60 and 3600"},
		{"node locality", s.Locality.Node, 0.5, "2 of 4 map launches were node-local"},
		{"rack locality", s.Locality.Rack, 0.25, "1 of 4"},
		{"shuffle total", s.Bytes.ShuffleTotal, 150, "100 cross-rack + 50 in-rack"},
		{"cross-rack total", s.Bytes.CrossRackTotal, 150, "100 shuffle + 30 remote map + 20 output"},
		{"congestion", float64(s.CongestionOccurrences), 2, "two uplink directions over the threshold in one sample"},
		{"steady window jobs", float64(s.SteadyState.JobsCompleted), 1, "default window is first to last submit, [0, 200]: only a finished inside it"},
		{"map progress at first reduce", c.Jobs()[0].MapProgressAtFirstReduce, 0.5, "recorded at the first reduce launch"},
		{"kills", float64(s.TasksKilled), 1, "one TaskKilled call"},
		{"wasted", s.WastedTaskS, 12, "the killed attempt ran 12 s"},
	}
	for _, k := range checks {
		if math.Abs(k.got-k.want) > 1e-9 {
			t.Errorf("%s = %v, want %v: %s", k.name, k.got, k.want, k.why)
		}
	}
	if _, ok := s.TurnaroundByClass["medium"]; !ok {
		t.Errorf("turnaround by class lacks medium: job b shuffles 50 MB")
	}
	if _, ok := s.TurnaroundByClass["heavy"]; ok {
		t.Errorf("turnaround by class has heavy, but the heavy job never finished")
	}

	var out bytes.Buffer
	if err := c.WriteJobsCSV(&out); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(out.String(), "\n"); lines != 4 {
		t.Errorf("jobs.csv has %d lines, want a header and 3 jobs", lines)
	}
}
