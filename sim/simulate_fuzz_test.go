package sim_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mrsched/mrsched/scenario"
	"github.com/mrsched/mrsched/sim"
)

// fuzzRunBound is how long one fuzzed run may take. The guards' budgets
// are lowered for the fuzz (a run that would not end stops after 10^5
// events without progress, not 10^8), so a run of these few tiny jobs
// that takes this long has escaped them: it hangs.
const fuzzRunBound = 20 * time.Second

// FuzzSimulate runs a tiny simulation from fuzzed scenario settings:
// engine periods and limits (dynamic max assign among them), bandwidths and rates, the failure rate, the
// policy (and each job's run alone, for slowdowns), and three trace jobs'
// submit times and sizes. Each value is
// written into the scenario as the fuzzer gives it, or left out, so the
// run goes through the scenario's own checks. Every input must give a
// result or an error naming the file within fuzzRunBound, never a hang or
// a panic.
func FuzzSimulate(f *testing.F) {
	f.Add(uint32(0), 3.0, 0.0, 0.0, 0.05, 3.0, 60.0, 0.5, 86400.0, 250.0, 400.0, 500.0, 8.0, 8.0, 0.0, int64(4), uint8(0), uint8(0), 1.0, 50.0, 1e8, 1e7, 1e6)
	f.Add(uint32(1<<6), 1e-300, 0.0, 0.0, 0.05, 3.0, 60.0, 0.5, 86400.0, 250.0, 400.0, 500.0, 8.0, 8.0, 0.0, int64(4), uint8(1), uint8(0), 1.0, 50.0, 1e8, 1e7, 1e6)
	f.Add(uint32(1<<7), 3.0, 1e9, 0.0, 0.05, 3.0, 60.0, 0.5, 86400.0, 250.0, 400.0, 500.0, 8.0, 8.0, 0.0, int64(4), uint8(2), uint8(1), 1.0, 50.0, 1e8, 1e7, 1e6)
	f.Add(uint32(0xffffffff), 0.001, 60.0, 3600.0, 0.0, 0.001, 0.001, 0.001, 1.0, 1.0, 1.0, 1.0, 0.001, 0.001, 0.5, int64(1), uint8(3), uint8(3), 0.0, 999.0, 4e9, 4e9, 4e9)
	f.Add(uint32(1<<0|1<<3), 3.0, 0.0, 0.0, 0.05, 3.0, 60.0, 0.5, 86400.0, 1e-9, 400.0, 500.0, 1e-9, 8.0, 1.0, int64(2), uint8(4), uint8(2), 0.0, 0.0, 1e12, 1e12, 1e12)
	f.Add(uint32(0), 1.0, 0.0, 0.0, 0.05, 3.0, 60.0, 0.5, 86400.0, 250.0, 400.0, 500.0, 8.0, 8.0, 0.0, int64(4), uint8(1), uint8(64|8), 1.0, 50.0, 1e8, 1e7, 1e6)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, present uint32,
		heartbeat, quantum, startup, slowStart, monitor, series, preempt, stall,
		nic, disk, uplink, mapMBps, reduceMBps, failRate float64, attempts int64,
		policy, shape uint8, submit1, submit2, bytes0, bytes1, bytes2 float64) {
		defer func(r, l, p float64) {
			*sim.RunawayEvents, *sim.LivelockEvents, *sim.ProjectAfter = r, int64(l), int64(p)
		}(*sim.RunawayEvents, float64(*sim.LivelockEvents), float64(*sim.ProjectAfter))
		*sim.RunawayEvents, *sim.LivelockEvents, *sim.ProjectAfter = 1e5, 1e6, 1e4

		var b strings.Builder
		bit := 0
		field := func(indent, key string, v any) {
			if present&(1<<bit) != 0 {
				fmt.Fprintf(&b, "%s%s: %v\n", indent, key, yamlNumber(v))
			}
			bit++
		}
		fmt.Fprintf(&b, "seed: 3\ncluster:\n  racks: %d\n  nodes_per_rack: %d\n", 1+int(shape)%2, 1+int(shape/2)%3)
		if shape&8 != 0 {
			b.WriteString("  containers: 3\n")
		}
		field("  ", "nic_mbps", nic)
		field("  ", "disk_mbps", disk)
		field("  ", "rack_uplink_mbps", uplink)
		b.WriteString("  replication: 1\nworkload:\n  trace: t.tsv\n  source_nodes: 6\n")
		field("  ", "map_mbps", mapMBps)
		field("  ", "reduce_mbps", reduceMBps)
		field("  ", "task_failure_rate", failRate)
		policies := []string{"fifo", "fair", "delay", "nas", "td", "sw-fair", "drf"}
		fmt.Fprintf(&b, "policy:\n  name: %s\n", policies[int(policy)%len(policies)])
		if policy&16 != 0 && policies[int(policy)%len(policies)] == "fair" {
			b.WriteString("  params: {preemption: {enabled: true, min_share_timeout_s: 1, fair_share_timeout_s: 2}}\n")
		}
		b.WriteString("engine:\n")
		field("  ", "heartbeat_s", heartbeat)
		field("  ", "network_quantum_s", quantum)
		field("  ", "task_startup_s", startup)
		field("  ", "slow_start", slowStart)
		field("  ", "monitor_period_s", monitor)
		field("  ", "timeseries_period_s", series)
		field("  ", "preemption_interval_s", preempt)
		field("  ", "stall_s", stall)
		field("  ", "max_attempts", attempts)
		if shape&16 != 0 && shape&8 == 0 {
			b.WriteString("  copy_compute: {enabled: true}\n")
		}
		if shape&64 != 0 {
			b.WriteString("  dynamic_max_assign: true\n")
		}
		if shape&128 != 0 {
			b.WriteString("  heartbeat_offers_only: true\n")
		}
		if shape&32 != 0 {
			b.WriteString("metrics: {slowdown: true}\n")
		}
		trace := fmt.Sprintf("a\t0\t0\t%s\t%s\t%s\nb\t%s\t%s\t%s\t%s\t%s\nc\t%s\t%s\t%s\t%s\t%s\n",
			tsvBytes(bytes0), tsvBytes(bytes1), tsvBytes(bytes2),
			tsvTime(submit1), tsvTime(submit1), tsvBytes(bytes1), tsvBytes(bytes2), tsvBytes(bytes0),
			tsvTime(submit1+submit2), tsvTime(submit2), tsvBytes(bytes2), tsvBytes(bytes0), tsvBytes(bytes1))
		if err := os.WriteFile(filepath.Join(dir, "t.tsv"), []byte(trace), 0o644); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "s.yaml")
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := scenario.Load(path)
		if err == nil {
			done := make(chan error, 1)
			go func() {
				_, err := cfg.Run(nil)
				done <- err
			}()
			select {
			case err = <-done:
			case <-time.After(fuzzRunBound):
				t.Fatalf("the run did not end within %v:\n%s\ntrace:\n%s", fuzzRunBound, b.String(), trace)
			}
		}
		if os.Getenv("FUZZ_SHOW") != "" {
			t.Logf("%v\n%s", err, b.String())
		}
		if err != nil {
			msg := err.Error()
			if !strings.Contains(msg, path) || strings.Contains(msg, "unmarshal") || strings.Contains(msg, "!!") {
				t.Errorf("error %q: want one naming the file in the scenario's words", msg)
			}
		}
	})
}

// yamlNumber writes a fuzzed number as YAML reads it back.
func yamlNumber(v any) string {
	switch x := v.(type) {
	case float64:
		switch {
		case math.IsNaN(x):
			return ".nan"
		case math.IsInf(x, 1):
			return ".inf"
		case math.IsInf(x, -1):
			return "-.inf"
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

// tsvTime and tsvBytes write a fuzzed submit time (seconds, kept under
// 1000 so the trace's span stays small) and a size (bytes, kept under a
// gigabyte) as trace fields.
func tsvTime(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		v = 0
	}
	return strconv.FormatFloat(math.Mod(math.Abs(v), 1000), 'f', 3, 64)
}

func tsvBytes(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		v = 0
	}
	return strconv.FormatInt(int64(math.Mod(math.Abs(v), 1<<30)), 10)
}
