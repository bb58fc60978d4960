package scenario

import (
	"strings"
	"testing"
)

const overrideBase = `# the base scenario
seed: 1
cluster:
  racks: 2          # two racks
  nodes_per_rack: 4
workload:
  trace: FB-2009
  max_jobs: 20
policy:
  name: delay
  params:
`

func TestOverrideSetsFieldsByPath(t *testing.T) {
	tests := []struct {
		name  string
		sets  []string
		check func(*Config) bool
		what  string
	}{
		{"an existing field", []string{"cluster.racks=4"},
			func(c *Config) bool { return c.Cluster.Racks == 4 && c.Cluster.NodesPerRack == 4 }, "racks 4, nodes_per_rack kept at 4"},
		{"a field the file leaves out", []string{"cluster.rack_uplink_mbps=1000"},
			func(c *Config) bool { return c.Cluster.RackUplinkMbps == 1000 && c.Cluster.Racks == 2 }, "uplink 1000, racks kept at 2"},
		{"a field in a section the file leaves out", []string{"engine.heartbeat_s=1.5"},
			func(c *Config) bool { return c.Engine.HeartbeatS == 1.5 }, "heartbeat 1.5"},
		{"the seed", []string{"seed=7"}, func(c *Config) bool { return c.Seed == 7 }, "seed 7"},
		{"a string", []string{"workload.trace=FB-2010"}, func(c *Config) bool { return c.Workload.Trace == "FB-2010" }, "trace FB-2010"},
		{"a policy parameter below an empty params", []string{"policy.params.t1_s=10"},
			func(c *Config) bool { return strings.Contains(FormatValue(&c.Policy.Params), "t1_s: 10") }, "params {t1_s: 10}"},
		{"a whole section", []string{"policy={name: fair}"},
			func(c *Config) bool { return c.Policy.Name == "fair" && c.Policy.Params.Kind == 0 }, "policy fair without params"},
		{"a map of values", []string{"workload.demand.by_kind={swim: 3}"},
			func(c *Config) bool { return c.Workload.Demand.ByKind["swim"].N == 3 }, "demand by_kind swim 3"},
		{"a whole number written as a float", []string{"cluster.racks=1e1"},
			func(c *Config) bool { return c.Cluster.Racks == 10 }, "racks 10"},
		{"later settings win", []string{"cluster.racks=4", "cluster.racks=5"},
			func(c *Config) bool { return c.Cluster.Racks == 5 }, "racks 5"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var sets []Setting
			for _, s := range tc.sets {
				st, err := ParseSetting(s)
				if err != nil {
					t.Fatalf("ParseSetting(%q): %v", s, err)
				}
				sets = append(sets, st)
			}
			b, err := Override([]byte(overrideBase), sets...)
			if err != nil {
				t.Fatalf("Override(%v): %v", tc.sets, err)
			}
			c, err := LoadBytes(b, "over.yaml", ".")
			if err != nil {
				t.Fatalf("the overridden scenario does not parse: %v\n%s", err, b)
			}
			if !tc.check(c) {
				t.Errorf("after %v, want %s; got\n%s", tc.sets, tc.what, b)
			}
			if !strings.Contains(string(b), "# two racks") || !strings.Contains(string(b), "# the base scenario") {
				t.Errorf("the overridden scenario lost the file's comments:\n%s", b)
			}
		})
	}
}

func TestOverrideRefusesWhatTheScenarioCannotHold(t *testing.T) {
	tests := []struct {
		set  string
		want []string
	}{
		{"cluster.rackz=4", []string{"cluster.rackz=4", "cluster has no field rackz", "racks, nodes_per_rack"}},
		{"clustr.racks=4", []string{"the scenario has no field clustr", "cluster, workload"}},
		{"cluster.racks=abc", []string{"cluster.racks=abc", "want a whole number, got abc"}},
		{"cluster.racks=2.5", []string{"cluster.racks=2.5", "want a whole number"}},
		{"seed=-1", []string{"seed=-1", "want a whole number >= 0"}},
		{"engine.check_invariants=maybe", []string{"want true or false, got maybe"}},
		{"engine.heartbeat_s=fast", []string{"want a number, got fast"}},
		{"seed.x=1", []string{"seed is a single value; it has no field x"}},
		{"policy.params.pools[0].weight=2", []string{`"pools[0]" is not a field name`, "pools=[...]"}},
		{"cluster..racks=2", []string{`"" is not a field name`}},
	}
	for _, tc := range tests {
		t.Run(tc.set, func(t *testing.T) {
			s, err := ParseSetting(tc.set)
			if err == nil {
				_, err = Override([]byte(overrideBase), s)
			}
			if err == nil {
				t.Fatalf("Override(%s) succeeded, want an error", tc.set)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q: the user must see the setting and what is wrong with it", err, w)
				}
			}
		})
	}
}

func TestParseSettingRefusesMalformed(t *testing.T) {
	for _, s := range []string{"cluster.racks", "=4", "cluster.racks=", "cluster.racks=[1"} {
		if _, err := ParseSetting(s); err == nil || !strings.Contains(err.Error(), "cluster.racks") && s != "=4" {
			t.Errorf("ParseSetting(%q) = %v, want an error naming what was given", s, err)
		}
	}
}
