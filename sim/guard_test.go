package sim

import (
	"errors"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/workload"
)

// TestRunsThatWouldNotEndStopWithTheSetting: each input below would keep
// the event loop busy forever (or for longer than anyone waits). The run
// must stop with an error that names the setting to change.
func TestRunsThatWouldNotEndStopWithTheSetting(t *testing.T) {
	topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 4})
	block := topo.Config().BlockBytes()
	cases := []struct {
		name    string
		jobs    []workload.Job
		pol     sched.Policy
		p       Params
		setting string // SettingError.Setting; "" for one naming several
		want    []string
	}{
		{
			// At t = 1e20 s a 3 s heartbeat is below float64's resolution:
			// every heartbeat of a node with free slots is rescheduled at the same
			// instant, while the maps (10^6 s each) run on.
			name:    "time too late for the heartbeat to advance it",
			jobs:    []workload.Job{newJob(0, 1e20).maps(2, block, 1e6).reduces(1, 1<<20, 1).build()},
			pol:     mustPolicy(t, "fifo"),
			setting: "engine.heartbeat_s",
			want:    []string{"simulated time stopped", "does not advance"},
		},
		{
			// A map processing 1 byte a second: its read would end in ~2
			// years of simulated time, millions of heartbeats later.
			name:    "a map that would take years",
			jobs:    []workload.Job{newJob(0, 0).maps(1, block, float64(block)).reduces(1, 1<<20, 1).build()},
			pol:     mustPolicy(t, "fifo"),
			p:       Params{StallS: 100},
			setting: "",
			want:    []string{"nothing has finished for", "workload.map_mbps"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := runErr(t, topo, c.jobs, c.pol, c.p)
			var se *SettingError
			if !errors.As(err, &se) || se.Setting != c.setting {
				t.Fatalf("Run = %v, want a SettingError naming %q", err, c.setting)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// TestLivelockIsAnError: a policy that kills every attempt it launches
// makes events forever without finishing a task; the run must stop.
func TestLivelockIsAnError(t *testing.T) {
	defer func(v int64) { livelockEvents = v }(livelockEvents)
	livelockEvents = 5_000
	topo := mustTopo(t, cluster.Config{Racks: 1, NodesPerRack: 3})
	jobs := []workload.Job{newJob(0, 0).maps(2, topo.Config().BlockBytes(), 10).reduces(1, 1<<20, 1).build()}
	err := runErr(t, topo, jobs, killer{mustPolicy(t, "fifo")}, Params{PreemptionIntervalS: 1})
	if err == nil || !strings.Contains(err.Error(), "without a task finishing") {
		t.Fatalf("Run = %v, want an error saying no task finishes", err)
	}
}

// killer preempts every running attempt at every check.
type killer struct{ sched.Policy }

func (k killer) Preempt(c sched.Cluster) []sched.TaskRef {
	var out []sched.TaskRef
	for _, j := range c.Jobs() {
		out = append(out, c.RunningTasks(j)...)
	}
	return out
}
