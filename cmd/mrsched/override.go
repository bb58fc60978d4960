package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mrsched/mrsched/scenario"
	"github.com/mrsched/mrsched/sched"
)

// overrideFlags are the flags that change a scenario file's settings for
// one run (-policy, -seed, -set), shared by the commands that run one
// scenario, so that a run on the testbed is asked for as a simulation is.
type overrideFlags struct {
	policy *string
	seed   *uint64
	sets   []scenario.Setting
}

func addOverrideFlags(fs *flag.FlagSet) *overrideFlags {
	o := &overrideFlags{
		policy: fs.String("policy", "", "run this policy instead of the scenario's, on the scenario's pools and with its own defaults (give parameters with -set policy.params.NAME=V)"),
		seed:   fs.Uint64("seed", 0, "run with this seed instead of the scenario's"),
	}
	fs.Func("set", "set a scenario field by its path, as `path=value` (cluster.racks=4, policy.params.t1_s=10); repeatable", func(s string) error {
		st, err := scenario.ParseSetting(s)
		if err != nil {
			return err
		}
		o.sets = append(o.sets, st)
		return nil
	})
	return o
}

// settings returns the settings the parsed flags make, in the order they
// apply (-policy first, so that -set can give the new policy its
// parameters), and each as the command line gave it.
func (o *overrideFlags) settings(fs *flag.FlagSet) (sets []scenario.Setting, described []string, err error) {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if given["policy"] {
		if _, err := sched.NewPolicy(*o.policy, nil); err != nil && strings.HasPrefix(err.Error(), "unknown policy") {
			return nil, nil, fmt.Errorf("-policy: %w", err)
		}
		sets = append(sets, scenario.Setting{Path: "policy", Value: &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map",
			Content: []*yaml.Node{{Kind: yaml.ScalarNode, Tag: "!!str", Value: "name"}, {Kind: yaml.ScalarNode, Tag: "!!str", Value: *o.policy}}}})
		described = append(described, "-policy "+*o.policy)
	}
	if given["seed"] {
		sets = append(sets, scenario.Setting{Path: "seed", Value: &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatUint(*o.seed, 10)}})
		described = append(described, fmt.Sprint("-seed ", *o.seed))
	}
	sets = append(sets, o.sets...)
	for _, s := range o.sets {
		described = append(described, "-set "+s.String())
	}
	return sets, described, nil
}
