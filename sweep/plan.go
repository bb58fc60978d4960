package sweep

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mrsched/mrsched/scenario"
	"github.com/mrsched/mrsched/traces"
)

// Plan is a planned sweep: every run with its cell, policy and seed, in
// index order. A sweep directory keeps it in plan.json, beside specs/
// (one scenario file a run), inputs/ (trace files the runs read) and
// runs/ (each finished run's outputs).
type Plan struct {
	// Version is the plan format's version, 1.
	Version int `json:"version"`
	// Grid and Base are the grid file and its base scenario, as given.
	Grid     string     `json:"grid"`
	Base     string     `json:"base"`
	Axes     []PlanAxis `json:"axes"`
	Policies []string   `json:"policies"`
	Seeds    []uint64   `json:"seeds"`
	Runs     []Run      `json:"runs"`
}

// PlanAxis is an axis with its values as text.
type PlanAxis struct {
	Path   string   `json:"path"`
	Values []string `json:"values"`
}

// Run is one planned run: its index (its array task's index), its cell's
// settings, its policy and seed, the fingerprint of the workload it must
// run (workloadOf), and a hash of its scenario
// file's text below the comment that names the run.
type Run struct {
	Index    int       `json:"index"`
	Cell     int       `json:"cell"`
	Settings []Setting `json:"settings"`
	Policy   string    `json:"policy"`
	Seed     uint64    `json:"seed"`
	Workload string    `json:"workload"`
	Scenario string    `json:"scenario"`
}

// Setting is one axis's value in a cell, as text.
type Setting struct {
	Path  string `json:"path"`
	Value string `json:"value"`
}

// Describe names a run for people: "cluster.racks=4, fair, seed 2".
func (r Run) Describe() string {
	var parts []string
	for _, s := range r.Settings {
		parts = append(parts, s.Path+"="+s.Value)
	}
	return strings.Join(append(parts, r.Policy, fmt.Sprint("seed ", r.Seed)), ", ")
}

// The sweep directory's layout.
const (
	planFile = "plan.json"
	gridFile = "grid.yaml"
	specsDir = "specs"
	inputDir = "inputs"
	runsDir  = "runs"
)

// ErrPlanned is returned by Write when the directory already holds the
// same plan: planning again is then a no-op, so a job script may plan
// before it runs.
var ErrPlanned = errors.New("already planned")

// Write plans the grid's runs into dir: every run's scenario is written,
// checked as `simulate` would check it, and fingerprinted, before dir
// appears (the plan is written beside it, then renamed), so a bad value
// leaves nothing behind. A dir that holds another plan, or anything else,
// is refused.
func (g *Grid) Write(dir string) (*Plan, error) {
	if err := refuseOccupied(dir); err != nil {
		return nil, err
	}
	parent := filepath.Dir(filepath.Clean(dir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".plan-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp) // gone once renamed
	p, err := g.writeInto(tmp)
	if err != nil {
		return nil, err
	}
	if old, err := os.ReadFile(filepath.Join(dir, planFile)); err == nil {
		if samePlan(old, p) {
			return p, ErrPlanned
		}
		return nil, fmt.Errorf("%s holds another plan (from %s); plan into a new directory, or remove it", dir, planOrigin(old))
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return nil, err
	}
	return p, nil
}

// refuseOccupied returns nil for a missing or empty dir or one holding a
// plan (Write compares it), and an error for anything else.
func refuseOccupied(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() == planFile {
			return nil
		}
	}
	if len(entries) > 0 {
		return fmt.Errorf("%s is not empty and holds no plan; plan into a new directory", dir)
	}
	return nil
}

// samePlan reports whether plan.json b plans the same runs as p, with the
// same scenarios, whatever path the grid was named by.
func samePlan(b []byte, p *Plan) bool {
	var old Plan
	if json.Unmarshal(b, &old) != nil {
		return false
	}
	old.Grid = p.Grid
	x, err1 := json.Marshal(old)
	y, err2 := json.Marshal(p)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

func planOrigin(b []byte) string {
	var p Plan
	if json.Unmarshal(b, &p) != nil || p.Grid == "" {
		return "an unreadable plan.json"
	}
	return p.Grid
}

// writeInto writes the plan's files into the empty directory dir.
func (g *Grid) writeInto(dir string) (*Plan, error) {
	for _, d := range []string{specsDir, runsDir} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, gridFile), g.src, 0o644); err != nil {
		return nil, err
	}
	p := &Plan{Version: 1, Grid: g.Name, Base: g.Base, Policies: g.Policies, Seeds: g.Seeds}
	for _, a := range g.Axes {
		pa := PlanAxis{Path: a.Path}
		for _, v := range a.Values {
			pa.Values = append(pa.Values, scenario.FormatValue(v))
		}
		p.Axes = append(p.Axes, pa)
	}
	n := g.Cells() * len(g.Policies) * len(g.Seeds)
	inputs := map[string]string{} // an input file's path -> its name under inputs/
	for cell := range g.Cells() {
		settings := g.cell(cell)
		files, err := g.inputFiles(dir, settings, inputs)
		if err != nil {
			return nil, err
		}
		for _, pol := range g.Policies {
			for _, seed := range g.Seeds {
				r := Run{Index: len(p.Runs), Cell: cell, Policy: pol, Seed: seed}
				for _, s := range settings {
					r.Settings = append(r.Settings, Setting{s.Path, scenario.FormatValue(s.Value)})
				}
				if err := g.writeSpec(dir, &r, settings, files, n); err != nil {
					return nil, err
				}
				p.Runs = append(p.Runs, r)
			}
		}
	}
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return nil, err
	}
	return p, os.WriteFile(filepath.Join(dir, planFile), append(b, '\n'), 0o644)
}

// inputFields are the scenario fields that name files a run reads: the
// trace and the operator's cluster files. plan copies each into the
// sweep's inputs/ so that the sweep directory holds all its runs need
// wherever it is mounted.
var inputFields = []struct {
	path string
	get  func(c *scenario.Config) string
}{
	{"workload.trace", func(c *scenario.Config) string {
		if c.Workload.Generator != "" {
			return ""
		}
		return c.Workload.Trace
	}},
	{"cluster.topology", func(c *scenario.Config) string { return c.Cluster.Topology }},
	{"policy.allocations", func(c *scenario.Config) string { return c.Policy.Allocations }},
	{"policy.site", func(c *scenario.Config) string { return c.Policy.Site }},
}

// inputFiles copies the files the cell's runs read (a trace, a topology,
// an allocation or site file; a .jhist directory whole) into dir/inputs
// and returns the settings that point the runs' scenarios at the copies.
// A path from the base scenario is relative to the base's directory; from
// an axis, to the grid's. An embedded trace is not a file.
func (g *Grid) inputFiles(dir string, settings []scenario.Setting, inputs map[string]string) ([]scenario.Setting, error) {
	base, err := scenario.LoadBytes(g.baseSrc, g.basePath(), "")
	if err != nil {
		return nil, err
	}
	var out []scenario.Setting
	for _, f := range inputFields {
		file, from := f.get(base), filepath.Dir(g.basePath())
		for _, s := range settings {
			switch {
			case s.Path == f.path:
				file, from = s.Value.Value, g.dir
			case f.path == "workload.trace" && s.Path == "workload.generator":
				file = ""
			}
		}
		if file == "" {
			continue
		}
		if _, _, ok := traces.Embedded(file); ok && f.path == "workload.trace" {
			continue
		}
		path := file
		if !filepath.IsAbs(path) {
			path = filepath.Join(from, path)
		}
		name, ok := inputs[path]
		if !ok {
			name = filepath.Base(path)
			if len(inputs) > 0 {
				name = fmt.Sprintf("%d-%s", len(inputs), name) // two files may share a name
			}
			if err := copyInput(path, filepath.Join(dir, inputDir, name)); err != nil {
				return nil, fmt.Errorf("%s: %s: %w", g.Name, f.path, err)
			}
			inputs[path] = name
		}
		out = append(out, scenario.Setting{Path: f.path,
			Value: &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "../" + inputDir + "/" + name}})
	}
	return out, nil
}

// copyInput copies a file, or a directory of files (a JobHistory
// directory), to dst.
func copyInput(src, dst string) error {
	st, err := os.Stat(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if !st.IsDir() {
		b, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	for _, e := range entries {
		if err := copyInput(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// writeSpec writes run r's scenario: the base with the cell's settings,
// the run's policy (the base's parameters when it is the base's policy)
// and seed; then checks it and records its workload's fingerprint.
func (g *Grid) writeSpec(dir string, r *Run, cell []scenario.Setting, files []scenario.Setting, runs int) error {
	base, err := scenario.LoadBytes(g.baseSrc, g.basePath(), "")
	if err != nil {
		return err
	}
	// The policy first, so that an axis below policy.params sets the
	// run's policy's parameters.
	var sets []scenario.Setting
	switch {
	case base.HasPools() || poolAxis(cell):
		// The cluster's pools under policy, where every policy reads them
		// and an axis over them (under policy or policy.params) sets them.
		sets = append(sets, scenario.Setting{Path: "policy", Value: base.PolicyNode(r.Policy)})
		for _, s := range cell {
			sets = append(sets, scenario.Setting{Path: scenario.PoolPath(s.Path), Value: s.Value})
		}
	case r.Policy != base.Policy.Name:
		// Another policy: its defaults.
		sets = append(sets, scenario.Setting{Path: "policy", Value: base.PoolsNode(r.Policy)})
		fallthrough
	default:
		sets = append(sets, cell...)
	}
	sets = append(sets, files...)
	sets = append(sets, scenario.Setting{Path: "seed", Value: scalar(strconv.FormatUint(r.Seed, 10), "!!int")})
	b, err := scenario.Override(g.baseSrc, sets...)
	if err != nil {
		return fmt.Errorf("%s: run %d (%s): %w", g.Name, r.Index, r.Describe(), err)
	}
	head := fmt.Sprintf("%s %d of %d of the sweep planned from %s: %s.\n"+
		"# The base scenario %s with the run's settings.\n",
		specMark, r.Index, runs, g.Name, r.Describe(), g.Base)
	r.Scenario = textHash(b)
	b = append([]byte(head), b...)
	path := filepath.Join(dir, specsDir, specName(r.Index, runs))
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return err
	}
	// Errors name the run and the field, not the file, which is not
	// written yet: a line of it would point nowhere.
	name := fmt.Sprintf("%s: run %d (%s)", g.Name, r.Index, r.Describe())
	c, err := scenario.LoadBytes(b, name, filepath.Dir(path))
	if err == nil {
		r.Workload, err = workloadOf(c) // builds it: every setting is checked
	}
	if err != nil {
		msg := err.Error()
		if rest, ok := strings.CutPrefix(msg, name+": "); ok {
			msg = name + ": " + specLine.ReplaceAllString(rest, "")
		}
		return errors.New(msg)
	}
	return nil
}

// specLine is the line of a run's scenario file an error starts with:
// taken out, since the file is not written when the plan fails.
var specLine = regexp.MustCompile(`^line \d+: `)

// specMark starts the comment plan writes above a run's scenario; the
// scenario's text below it is what Run.Scenario hashes.
const specMark = "# Run"

// textHash identifies a scenario's text.
func textHash(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:8])
}

// specBody is a run's scenario file without the comment plan wrote above
// it: its first two lines.
func specBody(b []byte) []byte {
	for range 2 {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return b
}

func scalar(v, tag string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: v} }

// width is the number of digits run indexes are written with: at least 4,
// so that a listing sorts runs by index.
func width(runs int) int { return max(4, len(strconv.Itoa(runs-1))) }

func specName(i, runs int) string { return fmt.Sprintf("%0*d.yaml", width(runs), i) }

func runName(i, runs int) string { return fmt.Sprintf("%0*d", width(runs), i) }

// planID identifies a plan by its plan.json, so that a run's record says
// which plan it ran for.
func planID(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:8])
}

// poolAxis reports whether a cell sets the cluster's pools.
func poolAxis(cell []scenario.Setting) bool {
	for _, s := range cell {
		if scenario.PoolPath(s.Path) != s.Path || strings.HasPrefix(s.Path, "policy.pools") || strings.HasPrefix(s.Path, "policy.preemption") {
			return true
		}
	}
	return false
}
