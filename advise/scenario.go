package advise

import (
	"fmt"
	"math"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/mrsched/mrsched/scenario"
)

// Workload is the scenario advice runs its candidates on: a scenario's
// text and its parsed form, the number of jobs it replays (a stage's
// slice is its first jobs), and the cost profile the runs take.
type Workload struct {
	// Src is the scenario's text, Name labels its errors and Dir is the
	// directory its relative paths are taken from.
	Src       []byte
	Name, Dir string
	Config    *scenario.Config
	Jobs      int
	// Profile is the cluster.profile the runs take ("" keeps the
	// scenario's own).
	Profile string
}

// NewWorkload reads the scenario's jobs once, for the slices' sizes.
func NewWorkload(src []byte, name, dir string, c *scenario.Config, profile string) (*Workload, error) {
	_, jobs, _, err := c.Build()
	if err != nil {
		return nil, err
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("%s: the workload has no jobs", name)
	}
	return &Workload{Src: src, Name: name, Dir: dir, Config: c, Jobs: len(jobs), Profile: profile}, nil
}

// ProfileFor is the cost profile advice runs a scenario under: the one it
// names, or else a realistic one for its cluster's task model: yarn-hdd
// for containers, hadoop1-hdd for slots (task start-up, disks that seek,
// and, on YARN, heartbeat-paced launches). named reports whether the
// scenario chose it.
func ProfileFor(c *scenario.Config) (profile string, named bool) {
	if c.Cluster.Profile != "" || c.LineOf("cluster.profile") > 0 {
		if c.Cluster.Profile == "" {
			return scenario.FluidProfile, true
		}
		return c.Cluster.Profile, true
	}
	if c.ContainerModel() {
		return "yarn-hdd", false
	}
	return "hadoop1-hdd", false
}

// SliceJobs is the number of jobs a stage of the given fraction replays:
// the workload's first jobs, at least one.
func (w *Workload) SliceJobs(fraction float64) int {
	return max(1, int(math.Ceil(float64(w.Jobs)*fraction)))
}

// RunText is the scenario text of candidate c's run of one request: the
// workload's scenario with the candidate's policy (the cluster's pools
// kept, its thresholds set), the slice, the seed and the profile.
func (w *Workload) RunText(c Candidate, fraction float64, seed uint64) ([]byte, error) {
	pol := w.Config.PoolsNode(c.Policy)
	if c.Own {
		pol = w.Config.PolicyNode(c.Policy)
	}
	sets := []scenario.Setting{{Path: "policy", Value: pol}}
	for _, s := range c.Settings {
		st, err := scenario.ParseSetting(s.Path() + "=" + s.Value)
		if err != nil {
			return nil, err
		}
		sets = append(sets, st)
	}
	if fraction < 1 {
		sets = append(sets, scenario.Setting{Path: "workload.max_jobs", Value: intNode(w.SliceJobs(fraction))})
	}
	sets = append(sets, scenario.Setting{Path: "seed", Value: &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatUint(seed, 10)}})
	if w.Profile != "" {
		sets = append(sets, scenario.Setting{Path: "cluster.profile", Value: &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: w.Profile}})
	}
	return scenario.Override(w.Src, sets...)
}

// RunConfig is candidate c's run of one request, ready to run.
func (w *Workload) RunConfig(c Candidate, fraction float64, seed uint64) (*scenario.Config, error) {
	b, err := w.RunText(c, fraction, seed)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", w.Name, c.Label(), err)
	}
	return scenario.LoadBytes(b, fmt.Sprintf("%s (%s, seed %d)", w.Name, c.Label(), seed), w.Dir)
}

func intNode(v int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(v)}
}
