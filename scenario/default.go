package scenario

import (
	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/traces"
)

// Default is the scenario `mrsched` runs with no arguments: the embedded
// FB-2009 trace (5,894 jobs over a day, traced on 600 nodes) replayed on the
// default 100-node cluster (10 racks of 10, 4 map + 2 reduce slots, 250 Mbps
// NICs, 500 Mbps rack uplinks, 64 MB blocks), bytes scaled by SWIM's rule to
// 100/600, jobs spread over 30 users, seed 1, under the fair policy.
func Default() *Config {
	return &Config{
		Seed:     1,
		Cluster:  cluster.Config{}.WithDefaults(),
		Workload: Workload{Trace: traces.FB2009Name, Users: DefaultUsers},
		Policy:   PolicySpec{Name: "fair"},
	}
}

// WithPolicy returns a copy of c that runs policy name with no parameters.
func (c *Config) WithPolicy(name string) *Config {
	d := *c
	d.Policy = PolicySpec{Name: name, Allocations: c.Policy.Allocations, Site: c.Policy.Site}
	return &d
}

// PolicyNames lists every registered policy, for comparisons.
func PolicyNames() []string { return sched.PolicyNames() }
