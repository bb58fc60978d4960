package scenario

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/workload"
)

// The ways jobs go to pools without an allocation file (policy.pool_by).
const (
	PoolByUser  = "user"
	PoolByQueue = "queue"
)

// poolJobs puts each job in its pool by policy.pool_by. An allocation file
// places jobs by its own rules (placeJobs), so the two are not given
// together.
func (c *Config) poolJobs(jobs []workload.Job) error {
	if c.Policy.PoolBy == "" || c.Policy.PoolBy == PoolByUser {
		return nil // the readers' and generators' pools are by user
	}
	if c.Policy.Allocations != "" {
		return fmt.Errorf("policy.pool_by: the allocation file's placement rules place jobs; give pool_by without policy.allocations")
	}
	for i := range jobs {
		if jobs[i].Queue == "" {
			return fmt.Errorf("policy.pool_by: %s, but job %s has no queue: the trace names none (SWIM traces and the generator have users, not queues)", c.Policy.PoolBy, jobs[i].Name)
		}
		jobs[i].Pool = jobs[i].Queue
	}
	return nil
}

// poolKeys are the fair order's parameters that configure the cluster's
// pools rather than a policy: Parse moves them from policy.params to
// policy, so that they apply under every policy (PolicySpec.Pools).
var poolKeys = []string{"pools", "preemption", "job_limits", "size_based_weight"}

// liftPools moves pools and preemption written under params to the
// spec's own fields, and refuses them written in both places.
func (p *PolicySpec) liftPools() error {
	p.poolsAt = "policy"
	n := &p.Params
	if n.Kind != yaml.MappingNode {
		return nil
	}
	var keep []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		dst := p.poolField(k.Value)
		if dst == nil {
			keep = append(keep, k, v)
			continue
		}
		if dst.Kind != 0 {
			return fmt.Errorf("line %d: policy.params.%s: the cluster's %s are also given as policy.%s (line %d); give them once", k.Line, k.Value, k.Value, k.Value, dst.Line)
		}
		*dst = *v
		p.poolsAt = "policy.params"
	}
	n.Content = keep
	if len(keep) == 0 {
		*n = yaml.Node{} // nothing left: as if params were not written
	}
	return nil
}

func (p *PolicySpec) poolField(key string) *yaml.Node {
	switch key {
	case "pools":
		return &p.Pools
	case "preemption":
		return &p.Preemption
	case "job_limits":
		return &p.JobLimits
	case "size_based_weight":
		return &p.SizeBasedWeight
	}
	return nil
}

// poolSettings decodes the cluster's pools, with errors at the file's
// lines in the section the scenario wrote them in.
func (c *Config) poolSettings() (sched.PoolSettings, error) {
	var s sched.PoolSettings
	p := &c.Policy
	if p.Pools.Kind == 0 && p.Preemption.Kind == 0 && p.JobLimits.Kind == 0 && p.SizeBasedWeight.Kind == 0 {
		return s, nil
	}
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: p.Pools.Line}
	for _, k := range poolKeys {
		if v := p.poolField(k); v.Kind != 0 {
			m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k, Line: v.Line}, v)
		}
	}
	if m.Line == 0 {
		m.Line = max(p.Preemption.Line, p.JobLimits.Line, p.SizeBasedWeight.Line)
	}
	at := p.poolsAt
	if at == "" {
		at = "policy"
	}
	if err := decodeSection(m, at)(&s); err != nil {
		// Under policy.params decodeSection leaves the error for the
		// policy to place; these are the cluster's, placed here.
		if pe := (*paramError)(nil); errors.As(err, &pe) {
			return s, fmt.Errorf("line %d: %s.%s: %s", pe.line, at, pe.path, pe.msg)
		}
		return s, err
	}
	// Checked here as well as by the policy, so that the error is in the
	// scenario's words, at the section's line, under every policy.
	if err := s.Limits.Validate(); err != nil {
		return s, fmt.Errorf("line %d: %s.%v", p.JobLimits.Line, at, err)
	}
	return s, nil
}

// usePools gives the policy's parameters the cluster's pools, or says
// why they cannot apply. took reports whether the parameters took them.
func usePools(into any, s sched.PoolSettings) (notes []string, took bool, err error) {
	if s.Empty() {
		return nil, false, nil
	}
	pt, ok := into.(sched.PoolTaker)
	if !ok {
		return nil, false, nil
	}
	notes, err = pt.UsePools(s)
	return notes, true, err
}

// noPoolsNote says that a policy without pools runs without the
// cluster's.
func noPoolsNote(policy string, s sched.PoolSettings) string {
	var what []string
	plural := true
	switch n := len(s.Pools); {
	case n == 1:
		what, plural = append(what, "pool"), false
	case n > 1:
		what = append(what, fmt.Sprintf("%d pools", n))
	}
	if s.Preemption.Enabled {
		what, plural = append(what, "preemption"), len(what) > 0
	}
	if !s.Limits.Empty() {
		what, plural = append(what, "running-job limits"), true
	}
	if w := s.SizeBasedWeight; w != "" && w != "none" {
		what, plural = append(what, "size-based weight"), len(what) > 0
	}
	if len(what) == 0 {
		what = append(what, "preemption settings")
	}
	verb := "do"
	if !plural {
		verb = "does"
	}
	return fmt.Sprintf("%s has no pools: the scenario's %s %s not apply", policy, strings.Join(what, " and "), verb)
}

// checkPoolsReached refuses a configured pool that no job goes to: a
// pool named for a trace's queue while jobs go to pools by user, say,
// would otherwise run as if it were not there.
func (c *Config) checkPoolsReached(s sched.PoolSettings, jobs []workload.Job) error {
	if len(s.Pools) == 0 && len(s.Limits.Pools) == 0 && len(s.Limits.Users) == 0 {
		return nil
	}
	reached, users := map[string]bool{}, map[string]bool{}
	for i := range jobs {
		reached[jobs[i].Pool] = true
		users[jobs[i].Owner()] = true
	}
	at := c.Policy.poolsAt
	if at == "" {
		at = "policy"
	}
	// A running-job limit names a pool or a queue above pools: some job
	// must go to one at or below it, or the limit is a typo that limits
	// nothing.
	names := make([]string, 0, len(s.Limits.Pools))
	for name := range s.Limits.Pools {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		under := name == "root" || reached[name]
		for p := range reached {
			under = under || strings.HasPrefix(p, name+".")
		}
		if !under {
			return fmt.Errorf("%s.job_limits.pools.%s: no job goes to pool %q or a queue below it: jobs go to %s", at, name, name, poolRange(reached))
		}
	}
	names = names[:0]
	for name := range s.Limits.Users {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if !users[name] {
			return fmt.Errorf("%s.job_limits.users.%s: no job is user %q's: the jobs' users are %s", at, name, name, nameRange(users, "users"))
		}
	}
	for i, pc := range s.Pools {
		if reached[pc.Name] {
			continue
		}
		by := "one pool a user"
		switch {
		case c.Policy.Allocations != "":
			by = "the pools the allocation file's rules choose"
		case c.Policy.PoolBy == PoolByQueue:
			by = "one pool a queue (policy.pool_by: queue)"
		}
		return fmt.Errorf("%s.pools[%d].name: no job goes to pool %q: jobs go to %s, %s", at, i, pc.Name, by, poolRange(reached))
	}
	return nil
}

// poolRange names the pools jobs reach, in order, shortened when long:
// "user0, user1, ..., user29 (30 pools)".
func poolRange(reached map[string]bool) string { return nameRange(reached, "pools") }

// nameRange lists the names of set in order, shortened when long, the
// count naming them as what.
func nameRange(set map[string]bool, what string) string {
	names := make([]string, 0, len(set))
	for n := range set {
		names = append(names, n)
	}
	slices.SortFunc(names, comparePoolNames)
	if len(names) <= 6 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s, %s, %s, ..., %s (%d %s)", names[0], names[1], names[2], names[len(names)-1], len(names), what)
}

// comparePoolNames orders "user2" before "user10".
func comparePoolNames(a, b string) int {
	pa, na := splitNum(a)
	pb, nb := splitNum(b)
	if pa != pb || na < 0 || nb < 0 {
		return strings.Compare(a, b)
	}
	return na - nb
}

func splitNum(s string) (string, int) {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	if i == len(s) || len(s)-i > 9 {
		return s, -1
	}
	n := 0
	for _, r := range s[i:] {
		n = n*10 + int(r-'0')
	}
	return s[:i], n
}

// NotApplied names what of the scenario its policy cannot apply, a line
// each (the cluster's pools under a policy that has none), as a run
// records it in summary.json's config.policy.not_applied: for a warning
// before the run. A scenario that cannot be built has none; building it
// says why.
func (c *Config) NotApplied() []string {
	pools, err := c.poolSettings()
	if err != nil || pools.Empty() {
		return nil
	}
	var notes []string
	took := false
	decode := decodeParams(&c.Policy.Params)
	_, err = sched.NewPolicy(c.Policy.Name, func(into any) error {
		if err := decode(into); err != nil {
			return err
		}
		notes, took, err = usePools(into, pools)
		return err
	})
	if err != nil {
		return nil
	}
	if !took {
		notes = append(notes, noPoolsNote(c.Policy.Name, pools))
	}
	return notes
}

// CheckPolicy builds the scenario's policy and checks the cluster's pools,
// without reading its workload: for a command to refuse a misspelt
// parameter before it touches its output directory. Build checks the
// rest.
func (c *Config) CheckPolicy() error {
	pools, err := c.poolSettings()
	if err != nil {
		return c.fileErr(err)
	}
	decode := decodeParams(&c.Policy.Params)
	var params any
	_, err = sched.NewPolicy(c.Policy.Name, func(into any) error {
		params = into
		if err := decode(into); err != nil {
			return err
		}
		_, _, err := usePools(into, pools)
		return err
	})
	if err != nil {
		return c.policyErr(err)
	}
	if params == nil && len(c.Policy.Params.Content) > 0 {
		return c.fileErr(fmt.Errorf("policy.params: policy %s takes no parameters", c.Policy.Name))
	}
	return nil
}
