package scenario

import (
	"testing"

	"github.com/mrsched/mrsched/sched"
)

// TestNoPoolsNoteCounts: the note a policy without pools gets names what
// of the cluster's it cannot take, in the singular where there is one.
func TestNoPoolsNoteCounts(t *testing.T) {
	pool := sched.PoolConfig{Name: "a"}
	on := sched.PreemptionParams{Enabled: true}
	for _, tc := range []struct {
		name string
		s    sched.PoolSettings
		want string
	}{
		{"one pool", sched.PoolSettings{Pools: []sched.PoolConfig{pool}}, "fifo has no pools: the scenario's pool does not apply"},
		{"two pools", sched.PoolSettings{Pools: []sched.PoolConfig{pool, pool}}, "fifo has no pools: the scenario's 2 pools do not apply"},
		{"a pool and preemption", sched.PoolSettings{Pools: []sched.PoolConfig{pool}, Preemption: on}, "fifo has no pools: the scenario's pool and preemption do not apply"},
		{"preemption alone", sched.PoolSettings{Preemption: on}, "fifo has no pools: the scenario's preemption does not apply"},
		{"limits", sched.PoolSettings{Limits: sched.JobLimits{PoolDefault: 2}}, "fifo has no pools: the scenario's running-job limits do not apply"},
		{"size-based weight", sched.PoolSettings{SizeBasedWeight: "tasks"}, "fifo has no pools: the scenario's size-based weight does not apply"},
	} {
		if got := noPoolsNote("fifo", tc.s); got != tc.want {
			t.Errorf("%s: %q; want %q", tc.name, got, tc.want)
		}
	}
}
