package sched

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Decode fills a policy's parameter struct from the user's configuration,
// rejecting unknown fields. It hides the configuration format (YAML) from
// the policies. A field tagged zero:"D" reads 0 as "not set" and takes the
// default D: a configuration file must leave it out, not write 0 (the
// scenario's reader refuses a written 0 there).
type Decode func(into any) error

// Factory builds a policy from its decoded parameters.
type Factory func(decode Decode) (Policy, error)

// Entry describes a registered policy for help output and docs.
type Entry struct {
	Name    string
	Summary string
	New     Factory
	// Ablation marks a paper's breakdown variant (a policy with parts
	// switched off), which `mrsched compare` runs only when asked.
	Ablation bool
}

// mu guards registry: Register may run while policies are built (a
// plug-in that registers lazily), though it is meant for init functions.
var mu sync.RWMutex

// registry holds the built-in policies, then those added by Register in the
// order they were added.
var registry = []Entry{
	{Name: "fifo", Summary: "Hadoop's default: jobs in submit order, closest map first", New: func(Decode) (Policy, error) { return NewFIFO(), nil }},
	{Name: "fair", Summary: "Fair Scheduler: pools with min shares and weights, max-min fair, closest map first", New: factoryOf(NewFair)},
	{Name: "delay", Summary: "Fair Scheduler with delay scheduling: a job waits up to t1_s for a node-local slot, t2_s more for a rack-local one", New: factoryOf(NewFairDelay)},
	{Name: "fifo-delay", Summary: "FIFO order with delay scheduling", New: factoryOf(NewFIFODelay)},
	{Name: "drf", Summary: "Dominant Resource Fairness between pools; closest map first among tasks that fit the node", New: factoryOf(NewDRF)},
	// ShuffleWatcher (sw_policy.go): the full scheduler on three fairness
	// set-ups, then the additive ablations of its section 5.3.
	{Name: "sw-fair", Summary: "ShuffleWatcher on the Fair order: NASS shapes the shuffle by NetSat's per-rack saturation, SAMP and SARP localise maps and reduces", New: factoryOf(NewSWFair)},
	{Name: "sw-drf", Summary: "ShuffleWatcher on DRF, among the tasks that fit the node", New: factoryOf(NewSWDRF)},
	{Name: "sw-relaxed", Summary: "sw-fair with relaxed fairness: a user with no preferred task may be passed over for relaxed_fairness_s (5)", New: factoryOf(NewSWRelaxed)},
	{Name: "sw-delay", Summary: "ShuffleWatcher on the Delay scheduler: the maps NASS picks are bounded by delay scheduling's locality waits", New: factoryOf(NewSWDelay)},
	{Name: "sw-nass", Summary: "ShuffleWatcher's NASS alone on the Fair order (ablation: no SAMP, no SARP)", New: factoryOf(NewSWNASS), Ablation: true},
	{Name: "sw-nass-sarp", Summary: "NASS and SARP on the Fair order (ablation: no SAMP)", New: factoryOf(NewSWNASSSARP), Ablation: true},
	// NAS (nas_policy.go): the full scheduler on the Fair order, then the
	// ablations of its section IV.
	{Name: "nas", Summary: "NAS on the Fair order: MTS caps each node's predicted shuffle by TrafficThreshold, CA-RTS spreads reduces like map output, CR-RTS runs only shuffle-light reduces on congested racks", New: factoryOf(NewNASFair)},
	{Name: "nas-mts", Summary: "NAS's MTS alone on the Fair order (ablation: reduces as under Delay)", New: factoryOf(NewNASMTS), Ablation: true},
	{Name: "nas-mts-carts", Summary: "NAS's MTS and CA-RTS (ablation: no CR-RTS)", New: factoryOf(NewNASMTSCARTS), Ablation: true},
	{Name: "nas-no-tt", Summary: "nas without MTS's TrafficThreshold (ablation \"w/o TT\")", New: factoryOf(NewNASNoTT), Ablation: true},
	{Name: "nas-no-tt-crrts", Summary: "nas without TrafficThreshold and CR-RTS (ablation \"w/o both\")", New: factoryOf(NewNASNoTTCRRTS), Ablation: true},
	{Name: "td", Summary: "Throughput Driven: co-scheduled job statuses, IO-bound jobs local, CPU-bound jobs non-local from non-hot nodes", New: NewTD},
}

// factoryOf is the Factory of a policy whose constructor takes a parameter
// struct P: it decodes the user's parameters into P and builds the policy.
func factoryOf[P any](build func(P) (Policy, error)) Factory {
	return func(d Decode) (Policy, error) {
		var p P
		if err := d(&p); err != nil {
			return nil, err
		}
		return build(p)
	}
}

// validName is what a policy may be called: a lower-case letter, then
// lower-case letters, digits and single hyphens, as the built-in names are,
// so that a name reads the same in a scenario file, a -policies list and a
// CSV column.
var validName = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// Register adds a policy to the registry, so that scenarios, `compare` and
// sweeps can name it like a built-in one. It is how a policy written in
// another module plugs in: call it from that package's init function. A
// policy registered as an ablation runs in `compare` only with
// `-policies all`.
//
// Register refuses an entry without a factory, a name that is not lower
// case letters, digits and hyphens (at most 40 characters), and a name
// already registered; the built-in ones cannot be replaced. It is safe
// for concurrent use. Registered policies follow the built-in ones in
// Policies, in the order they were registered (for init functions, the
// order Go initialises their packages in, which is fixed).
func Register(e Entry) error {
	if !validName.MatchString(e.Name) || len(e.Name) > 40 {
		return fmt.Errorf("sched.Register: policy name %q: want lower-case letters, digits and hyphens, starting with a letter, at most 40 characters", e.Name)
	}
	if e.New == nil {
		return fmt.Errorf("sched.Register: policy %s: no factory (Entry.New is nil)", e.Name)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, r := range registry {
		if r.Name == e.Name {
			return fmt.Errorf("sched.Register: policy %s is already registered", e.Name)
		}
	}
	registry = append(registry, e)
	return nil
}

// Policies lists the registered policies in registry order (the order
// `mrsched compare` runs them).
func Policies() []Entry {
	mu.RLock()
	defer mu.RUnlock()
	return slices.Clone(registry)
}

// MainPolicyNames lists the registered policies that are not ablations,
// in registry order: what `mrsched compare` runs by default.
func MainPolicyNames() []string {
	mu.RLock()
	defer mu.RUnlock()
	var names []string
	for _, e := range registry {
		if !e.Ablation {
			names = append(names, e.Name)
		}
	}
	return names
}

// PolicyNames lists the registered names.
func PolicyNames() []string {
	mu.RLock()
	defer mu.RUnlock()
	names := make([]string, len(registry))
	for i, e := range registry {
		names[i] = e.Name
	}
	return names
}

// lookup returns the entry registered as name.
func lookup(name string) (Entry, bool) {
	mu.RLock()
	defer mu.RUnlock()
	i := slices.IndexFunc(registry, func(e Entry) bool { return e.Name == name })
	if i < 0 {
		return Entry{}, false
	}
	return registry[i], true
}

// NewPolicy builds the named policy. A nil decode means no parameters.
func NewPolicy(name string, decode Decode) (Policy, error) {
	if decode == nil {
		decode = func(any) error { return nil }
	}
	e, ok := lookup(name)
	if !ok {
		return nil, fmt.Errorf("unknown policy %q (known: %s)", name, strings.Join(PolicyNames(), ", "))
	}
	p, err := e.New(decode)
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", name, err)
	}
	return p, nil
}
