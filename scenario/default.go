package scenario

import (
	"gopkg.in/yaml.v3"

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

// WithPolicy returns a copy of c that runs policy name, as a comparison of
// policies on c's cluster runs it: with the cluster's pools (Pools and
// Preemption) in any case, and with c's own parameters when name is c's
// policy, its defaults otherwise.
func (c *Config) WithPolicy(name string) *Config {
	d := *c
	p := c.Policy
	if name != p.Name {
		p.Name, p.Params = name, yaml.Node{}
	}
	d.Policy = p
	return &d
}

// OwnParams reports whether the scenario sets parameters of its policy
// other than the cluster's pools, which WithPolicy keeps for that policy
// alone.
func (c *Config) OwnParams() bool { return len(c.Policy.Params.Content) > 0 }

// PoolsNode is the scenario's policy section reduced to the cluster's
// pools under policy name, as a sweep writes a run's policy: name, and
// pools and preemption where the scenario has them.
func (c *Config) PoolsNode(name string) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	str := func(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v} }
	m.Content = append(m.Content, str("name"), str(name))
	for _, k := range poolKeys {
		if v := c.Policy.poolField(k); v.Kind != 0 {
			m.Content = append(m.Content, str(k), v)
		}
	}
	return m
}

// PolicyNames lists every registered policy, for comparisons.
func PolicyNames() []string { return sched.PolicyNames() }
