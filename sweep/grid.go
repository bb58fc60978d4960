package sweep

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mrsched/mrsched/scenario"
	"github.com/mrsched/mrsched/sched"
)

// Grid is a sweep as a grid file describes it: a base scenario, the
// policies and seeds to run it with, and axes that each set one scenario
// field to each of a list of values. Its runs are every combination of
// one value of each axis (a cell), a policy and a seed.
//
//	base: ../fb2009-fair.yaml            # a scenario file, relative to the grid file
//	policies: [fair, delay, nas]         # default: the base scenario's policy
//	seeds: 3                             # 1, 2, 3; or a list: [1, 7, 9]
//	axes:                                # in this order: the first varies slowest
//	  cluster.rack_uplink_mbps: [250, 500, 1000]
//	  workload.users: [10, 30]
type Grid struct {
	// Name is the grid file's path, for errors and the plan's record.
	Name string
	// Base is the base scenario's path, as the grid file gives it
	// (relative to the grid file's directory).
	Base     string
	Policies []string
	Seeds    []uint64
	Axes     []Axis

	dir     string // the grid file's directory
	baseSrc []byte // the base scenario's bytes
	src     []byte // the grid file's bytes
}

// Axis is one scenario field and the values a sweep gives it.
type Axis struct {
	// Path names the field as a scenario file does ("cluster.racks").
	Path   string
	Values []*yaml.Node
}

// LoadGrid reads a grid file and the base scenario it names, checking
// every policy, seed, path and value; errors name the file, line and key.
func LoadGrid(path string) (*Grid, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseGrid(b, path)
}

// ParseGrid reads a grid from its bytes; name is its path, from which the
// base scenario's path is taken.
func ParseGrid(b []byte, name string) (*Grid, error) {
	g := &Grid{Name: name, dir: filepath.Dir(name), src: b}
	fail := func(n *yaml.Node, format string, args ...any) error {
		if n != nil && n.Line > 0 {
			return fmt.Errorf("%s: line %d: %s", name, n.Line, fmt.Sprintf(format, args...))
		}
		return fmt.Errorf("%s: %s", name, fmt.Sprintf(format, args...))
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %s", name, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(doc.Content) == 0 {
		return nil, fail(nil, "empty grid: want base, policies, seeds and axes")
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, fail(root, "want a mapping of base, policies, seeds and axes")
	}
	var policies, seeds, axes *yaml.Node
	var baseKey *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "base":
			if v.Kind != yaml.ScalarNode || v.Value == "" {
				return nil, fail(v, "base: want the path of a scenario file")
			}
			g.Base, baseKey = v.Value, k
		case "policies":
			policies = v
		case "seeds":
			seeds = v
		case "axes":
			axes = v
		default:
			return nil, fail(k, "unknown key %q (a grid has base, policies, seeds and axes)", k.Value)
		}
	}
	if g.Base == "" {
		return nil, fail(nil, "base: required, the scenario file the sweep varies")
	}
	basePath := g.basePath()
	src, err := os.ReadFile(basePath)
	if err != nil {
		return nil, fail(baseKey, "base: %v", err)
	}
	base, err := scenario.LoadBytes(src, basePath, filepath.Dir(basePath))
	if err != nil {
		return nil, fail(baseKey, "base: %v", err)
	}
	g.baseSrc = src

	// Policies: names, each registered and named once.
	switch {
	case policies == nil:
		g.Policies = []string{base.Policy.Name}
	case policies.Kind != yaml.SequenceNode || len(policies.Content) == 0:
		return nil, fail(policies, "policies: want a list of policy names, as in [fair, delay]")
	default:
		for i, p := range policies.Content {
			if p.Kind != yaml.ScalarNode {
				return nil, fail(p, "policies[%d]: want a policy name", i)
			}
			if _, ok := registered(p.Value); !ok {
				return nil, fail(p, "policies[%d]: unknown policy %q (known: %s)", i, p.Value, strings.Join(sched.PolicyNames(), ", "))
			}
			if slices.Contains(g.Policies, p.Value) {
				return nil, fail(p, "policies[%d]: %s is named twice", i, p.Value)
			}
			g.Policies = append(g.Policies, p.Value)
		}
	}

	// Seeds: a count n (1..n) or a list, each at least 1 and given once.
	switch {
	case seeds == nil:
		g.Seeds = []uint64{1}
	case seeds.Kind == yaml.ScalarNode:
		n, err := strconv.Atoi(seeds.Value)
		if err != nil || n < 1 || seeds.ShortTag() != "!!int" {
			return nil, fail(seeds, "seeds: want a count of seeds (3 runs seeds 1, 2, 3) or a list of seeds, got %s", seeds.Value)
		}
		for s := range n {
			g.Seeds = append(g.Seeds, uint64(s+1))
		}
	case seeds.Kind == yaml.SequenceNode && len(seeds.Content) > 0:
		for i, s := range seeds.Content {
			v, err := strconv.ParseUint(s.Value, 10, 64)
			if err != nil || v == 0 || s.Kind != yaml.ScalarNode || s.ShortTag() != "!!int" {
				return nil, fail(s, "seeds[%d]: want a whole number >= 1, got %s", i, scenario.FormatValue(s))
			}
			if slices.Contains(g.Seeds, v) {
				return nil, fail(s, "seeds[%d]: seed %d is given twice", i, v)
			}
			g.Seeds = append(g.Seeds, v)
		}
	default:
		return nil, fail(seeds, "seeds: want a count of seeds or a non-empty list of seeds")
	}

	// Axes: a mapping of paths to non-empty lists of distinct values,
	// each value one the base scenario can take.
	if axes != nil {
		if axes.Kind != yaml.MappingNode {
			return nil, fail(axes, "axes: want a mapping of scenario field paths to lists of values, as in cluster.racks: [4, 8]")
		}
		for i := 0; i+1 < len(axes.Content); i += 2 {
			k, v := axes.Content[i], axes.Content[i+1]
			switch k.Value {
			case "seed":
				return nil, fail(k, "axes: %s: give seeds with the grid's seeds key", k.Value)
			case "policy", "policy.name":
				return nil, fail(k, "axes: %s: give policies with the grid's policies key", k.Value)
			}
			if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
				return nil, fail(v, "axes: %s: want a non-empty list of values", k.Value)
			}
			a := Axis{Path: k.Value}
			seen := map[string]bool{}
			for j, val := range v.Content {
				s := scenario.FormatValue(val)
				if seen[s] {
					return nil, fail(val, "axes: %s[%d]: %s is given twice", k.Value, j, s)
				}
				seen[s] = true
				if _, err := scenario.Override(src, scenario.Setting{Path: a.Path, Value: val}); err != nil {
					return nil, fail(val, "axes: %v", err)
				}
				a.Values = append(a.Values, val)
			}
			g.Axes = append(g.Axes, a)
		}
	}
	return g, nil
}

// registered reports whether a policy of that name is registered.
func registered(name string) (sched.Entry, bool) {
	for _, e := range sched.Policies() {
		if e.Name == name {
			return e, true
		}
	}
	return sched.Entry{}, false
}

// basePath is the base scenario's path from the working directory.
func (g *Grid) basePath() string {
	if filepath.IsAbs(g.Base) {
		return g.Base
	}
	return filepath.Join(g.dir, g.Base)
}

// Cells is the number of cells: the product of the axes' lengths.
func (g *Grid) Cells() int {
	n := 1
	for _, a := range g.Axes {
		n *= len(a.Values)
	}
	return n
}

// cell returns the settings of cell c: the first axis varies slowest.
func (g *Grid) cell(c int) []scenario.Setting {
	out := make([]scenario.Setting, len(g.Axes))
	for i := len(g.Axes) - 1; i >= 0; i-- {
		a := g.Axes[i]
		out[i] = scenario.Setting{Path: a.Path, Value: a.Values[c%len(a.Values)]}
		c /= len(a.Values)
	}
	return out
}
