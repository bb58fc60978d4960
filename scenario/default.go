package scenario

import (
	"strings"

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
//
// The copy shares c's own-cluster inputs, read at most once for all of
// them, and their warnings, so that what one policy's run notes (a site
// setting it has no use for) reaches c's InputWarnings. WithPolicy is
// not safe to call from more than one goroutine at once.
func (c *Config) WithPolicy(name string) *Config {
	if c.inputs == nil {
		c.inputs = &ownInputs{}
	}
	d := *c
	p := c.Policy
	if name != p.Name {
		p.Name, p.Params = name, yaml.Node{}
	}
	d.Policy = p
	return &d
}

// PolicyNode is the scenario's policy section as a run of policy name
// under it is written: name; the scenario's own parameters when name is
// its policy (less the cluster's pools); and the cluster's pools and
// preemption, under policy.
func (c *Config) PolicyNode(name string) *yaml.Node {
	m := c.PoolsNode(name)
	if name == c.Policy.Name && len(c.Policy.Params.Content) > 0 {
		p := c.Policy.Params
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "params"}, &p)
	}
	return m
}

// HasPools reports whether the scenario configures the cluster's pools
// or preemption, wherever it wrote them.
func (c *Config) HasPools() bool {
	return c.Policy.Pools.Kind != 0 || c.Policy.Preemption.Kind != 0 || c.Policy.JobLimits.Kind != 0 || c.Policy.SizeBasedWeight.Kind != 0
}

// PoolPath is path with the cluster's pools named where they live
// (policy.pools, policy.preemption) when it names them under
// policy.params, where a scenario may also write them: so that a setting
// of them reaches every policy.
func PoolPath(path string) string {
	for _, k := range poolKeys {
		if rest, ok := strings.CutPrefix(path, "policy.params."+k); ok && (rest == "" || rest[0] == '.') {
			return "policy." + k + rest
		}
	}
	return path
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
	if p := c.Policy.PoolBy; p != "" {
		m.Content = append(m.Content, str("pool_by"), str(p))
	}
	// The operator's files are the cluster's too.
	for _, f := range []struct{ key, path string }{{"allocations", c.Policy.Allocations}, {"site", c.Policy.Site}} {
		if f.path != "" {
			m.Content = append(m.Content, str(f.key), str(f.path))
		}
	}
	return m
}

// PolicyNames lists every registered policy, for comparisons.
func PolicyNames() []string { return sched.PolicyNames() }
