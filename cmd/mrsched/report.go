package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mrsched/mrsched/experiment"
	"github.com/mrsched/mrsched/report"
	"github.com/mrsched/mrsched/scenario"
)

// cmdReport renders run directories and experiment outputs as one HTML
// page, and optionally each figure as a file:
//
//	mrsched report [-o report.html] [-figures DIR] [-png] [-title T] PATH...
//
// A PATH is a run directory (one with summary.json, as simulate, compare
// -out and sweeps write), or a directory searched for run directories and
// for experiment CSVs (experiment -out's DIR/<paper>/<name>.csv).
func cmdReport(args []string, stdout, stderr io.Writer) error {
	fl := commandFlags("report", stderr, "usage: mrsched report [-o report.html] [-figures DIR] [-png] [-title T] [-force] RUN_DIR|DIR...")
	out := fl.String("o", "report.html", "the HTML page to write")
	figDir := fl.String("figures", "", "also write every figure to this directory as NAME.svg")
	png := fl.Bool("png", false, "with -figures, also write NAME.png")
	title := fl.String("title", "", "the page's title (default: names the runs)")
	force := fl.Bool("force", false, "lay runs side by side even when their set-ups or seeds differ")
	paths, err := parseInterleaved(fl, args) // flags may come before or after the paths
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		fl.Usage()
		return errUsage
	}
	page, err := loadPage(paths)
	if err != nil {
		return err
	}
	if err := report.Comparable(page.Runs); err != nil {
		if !*force {
			return fmt.Errorf("%w (-force lays them side by side anyway; sweep collect reports a sweep cell by cell)", err)
		}
		fmt.Fprintf(stderr, "mrsched report: warning: %v; laid side by side anyway (-force)\n", err)
	}
	page.Title = *title
	if page.Title == "" {
		page.Title = "mrsched report: " + strings.Join(paths, ", ")
	}
	if err := page.WriteFile(*out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%d runs, %d experiments)\n", *out, len(page.Runs), len(page.Experiments))
	if *figDir != "" {
		written, err := page.WriteFigures(*figDir, *png)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %d figures to %s\n", len(written), *figDir)
	}
	return nil
}

// loadPage reads every run and experiment output under paths, in the
// order given and, within a directory, in lexical order.
func loadPage(paths []string) (*report.Page, error) {
	page := &report.Page{}
	for _, root := range paths {
		st, err := os.Stat(root)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("%s: not a directory (want a run directory, or a directory of runs or experiment CSVs)", root)
		}
		found := 0
		err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if !report.IsRunDir(path) {
					return nil
				}
				r, err := report.LoadRun(path)
				if err != nil {
					return err
				}
				page.Runs = append(page.Runs, r)
				found++
				return fs.SkipDir
			}
			rel, err := filepath.Rel(root, path)
			if err != nil || !strings.HasSuffix(rel, ".csv") {
				return nil
			}
			e, err := experiment.Lookup(filepath.ToSlash(strings.TrimSuffix(rel, ".csv")))
			if err != nil || !strings.Contains(filepath.ToSlash(rel), "/") {
				return nil // not an experiment's output
			}
			t, err := readCSVFile(path)
			if err != nil {
				return err
			}
			page.Experiments = append(page.Experiments, report.Experiment{Name: e.Name, CSV: t, Figure: e.Figure()})
			found++
			return nil
		})
		if err != nil {
			return nil, err
		}
		if found == 0 {
			return nil, fmt.Errorf("%s: no run (a directory with summary.json) or experiment CSV (<paper>/<name>.csv) found", root)
		}
	}
	report.SetLabels(page.Runs)
	return page, nil
}

func readCSVFile(path string) (*report.Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := report.ReadCSV(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// outputs are the flags that write a command's results for people:
// -report (every command that simulates), -out and -figures (compare).
type outputs struct {
	report, out, figures *string
}

func addReportFlag(fl *flag.FlagSet) *outputs {
	return &outputs{report: fl.String("report", "", "also write an HTML report (figures and tables, one self-contained file) to this file")}
}

func addOutputFlags(fl *flag.FlagSet) *outputs {
	o := addReportFlag(fl)
	o.out = fl.String("out", "", "also write each policy's run directory (as simulate -out writes) to DIR/<policy>")
	o.figures = fl.String("figures", "", "also write the comparison figures (turnaround CDF, turnaround by size, locality) to this directory as SVG")
	return o
}

// check makes sure the outputs can be written before a long run.
func (o *outputs) check() error {
	if p := *o.report; p != "" {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return fmt.Errorf("-report %s: is a directory (want an HTML file)", p)
		}
		if err := writableDir(filepath.Dir(p)); err != nil {
			return fmt.Errorf("-report %s: %w", p, err)
		}
	}
	// -out is prepared by openOutDir, which knows whether a run is there.
	for _, d := range []*string{o.figures} {
		if d != nil && *d != "" {
			if err := writableDir(*d); err != nil {
				return fmt.Errorf("%s: %w", *d, err)
			}
		}
	}
	return nil
}

// writableDir makes dir if need be and checks a file can be created in it.
func writableDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".mrsched-write-check-*")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}

// writeRuns writes the report of runs, if asked for.
func (o *outputs) writeRuns(runs []*report.Run, note string, stderr io.Writer, quiet bool) error {
	if *o.report == "" {
		return nil
	}
	report.SetLabels(runs)
	page := &report.Page{Title: "mrsched " + note, Note: "Written by mrsched " + note + ".", Runs: runs}
	if err := page.WriteFile(*o.report); err != nil {
		return err
	}
	if !quiet {
		fmt.Fprintf(stderr, "wrote %s\n", *o.report)
	}
	return nil
}

// writeCompare writes compare's report and figures, as far as asked for;
// the run directories are written as the runs end (runCompare).
func (o *outputs) writeCompare(base *scenario.Config, runs []*compareRun, stderr io.Writer, quiet bool) error {
	if *o.out != "" && !quiet {
		fmt.Fprintf(stderr, "wrote %s/{%s}\n", *o.out, strings.Join(compareNames(runs), ","))
	}
	if *o.report == "" && *o.figures == "" {
		return nil
	}
	rs := make([]*report.Run, len(runs))
	for i, r := range runs {
		rs[i] = r.run
	}
	if *o.figures != "" {
		report.SetLabels(rs)
		written, err := report.WriteFigures(*o.figures, report.ComparisonFigures(rs), false)
		if err != nil {
			return err
		}
		if !quiet {
			fmt.Fprintf(stderr, "wrote %s\n", strings.Join(written, ", "))
		}
	}
	return o.writeRuns(rs, "compare on "+workloadName(base), stderr, quiet)
}

func compareNames(runs []*compareRun) []string {
	out := make([]string, len(runs))
	for i, r := range runs {
		out[i] = r.name
	}
	return out
}

func workloadName(c *scenario.Config) string {
	if c.Workload.Trace != "" {
		return filepath.Base(c.Workload.Trace)
	}
	return c.Workload.Generator
}

// defaultScenario is scenario.Default() as a scenario file. Its users
// are the default's (scenario.DefaultUsers) left unwritten, so that a
// Hadoop trace put in its place is not told it sets them.
const defaultScenario = `seed: 1
workload:
  trace: FB-2009
policy:
  name: fair
`

// compareScenario is the scenario file of compare's run of policy: the
// base scenario's text (the embedded default's when it has none) with
// compare's overrides (policy, seed, trace, and the own-cluster files
// -topology, -allocations and -site) written into it, so that simulate
// -config reruns it.
func compareScenario(base *scenario.Config, policy string) ([]byte, error) {
	from := "the embedded default"
	if base.Source() != nil {
		from = "the -config file (paths in it are relative to that file's directory)"
	}
	b, err := flaggedScenario(base, policy)
	if err != nil {
		return nil, err
	}
	head := fmt.Sprintf("# The scenario of compare's %s run: %s with compare's policy, seed, trace and own-cluster files.\n", policy, from)
	return append([]byte(head), b...), nil
}

// flaggedScenario is the base scenario's text, the embedded default's
// when it has none, with policy and what the scenario flags set in
// place of its own: its seed, trace and own-cluster files.
func flaggedScenario(base *scenario.Config, policy string) ([]byte, error) {
	src := base.Source()
	if src == nil {
		src = []byte(defaultScenario)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("cannot rewrite the scenario for its run directory: not a YAML mapping")
	}
	root := doc.Content[0]
	// The policy as compare ran it: its name, the cluster's pools,
	// preemption, limits and own files (allocations, site), and the
	// scenario's parameters for its own policy.
	set(root, "policy", base.PolicyNode(policy))
	if t := base.Cluster.Topology; t != "" {
		c := child(root, "cluster")
		if c == nil || c.Kind != yaml.MappingNode {
			c = &yaml.Node{Kind: yaml.MappingNode}
			set(root, "cluster", c)
		}
		set(c, "topology", scalar(t))
	}
	if base.Seed != 0 {
		set(root, "seed", scalar(fmt.Sprint(base.Seed)))
	}
	if base.Workload.Trace != "" {
		w := child(root, "workload")
		if w == nil || w.Kind != yaml.MappingNode {
			w = &yaml.Node{Kind: yaml.MappingNode}
			set(root, "workload", w)
		}
		set(w, "trace", scalar(base.Workload.Trace))
		del(w, "generator")
		// -trace and -source-nodes replace the file's source_nodes.
		if base.Workload.SourceNodes > 0 {
			set(w, "source_nodes", scalar(fmt.Sprint(base.Workload.SourceNodes)))
		} else {
			del(w, "source_nodes")
		}
	}
	return yaml.Marshal(&doc)
}

func scalar(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: v} }

func child(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func set(m *yaml.Node, key string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = v
			return
		}
	}
	m.Content = append(m.Content, scalar(key), v)
}

func del(m *yaml.Node, key string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = append(m.Content[:i], m.Content[i+2:]...)
			return
		}
	}
}
