package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/mrsched/mrsched/decisions"
	"github.com/mrsched/mrsched/jobtracker"
	"github.com/mrsched/mrsched/report"
	"github.com/mrsched/mrsched/scenario"
)

func cmdSimulate(args []string, stdout, stderr io.Writer) error {
	fs := commandFlags("simulate", stderr, "usage: mrsched simulate [-config FILE] [-trace T [-source-nodes N]] [-topology F] [-allocations F] [-site F] -out DIR [-policy NAME] [-seed N] [-set path=value]... [-report FILE] [-decisions FILE] [-force] [-q] [-v]")
	sf := addScenarioFlags(fs, "scenario YAML (see examples/); default: the embedded FB-2009 on the default cluster")
	out := fs.String("out", "", "output directory (required): scenario.yaml, summary.json, jobs.csv, timeseries.csv, uplinks.csv, pools.csv, perf.json")
	ov := addOverrideFlags(fs)
	quiet := fs.Bool("q", false, "no progress line")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile to this file")
	memProfile := fs.String("memprofile", "", "write a heap profile to this file at the end of the run")
	outs := addReportFlag(fs)
	force := fs.Bool("force", false, "replace what -out holds (another run, or other files)")
	verbose := fs.Bool("v", false, "also say what the policy's decisions cost on this machine (as perf.json records)")
	decisionsPath := fs.String("decisions", "", "also write every launch's decision (the offer, the jobs considered, the rule, why each other job was passed over) to this file, as gzip-compressed JSON lines (docs/time.md); mrsched explain reads OUT/decisions.jsonl.gz by default")
	if err := parseCommand(fs, args, out); err != nil {
		return err
	}
	flagSets, described, err := ov.settings(fs)
	if err != nil {
		return err
	}
	for _, f := range []struct{ flag, path string }{{"-cpuprofile", *cpuProfile}, {"-memprofile", *memProfile}} {
		if f.path != "" {
			if err := writableFile(f.path); err != nil {
				return fmt.Errorf("%s %s: %w", f.flag, f.path, err)
			}
		}
	}
	if err := outs.check(); err != nil {
		return err
	}
	owned := sf.owned(fs)
	unlined := unlinedErrors(sf, owned, flagSets)
	c, record, err := simulated(sf, owned, flagSets, described)
	if err != nil {
		return unlined(err)
	}
	cfgPath := *sf.config
	if err := c.CheckPolicy(); err != nil {
		return unlined(err) // before the output directory is touched
	}
	dir, err := openOutDir("-out", *out, *force, nil)
	if err != nil {
		return err
	}
	if *decisionsPath != "" {
		// Checked once -out exists, so that the log may go inside it,
		// where mrsched explain looks first.
		if err := writableFile(*decisionsPath); err != nil {
			dir.discard()
			return fmt.Errorf("-decisions %s: %w", *decisionsPath, err)
		}
	}
	if err := simulateInto(c, record, dir.path, outs, cfgPath, *cpuProfile, *memProfile, *decisionsPath, *quiet, *verbose, stdout, stderr); err != nil {
		dir.discard()
		return unlined(err)
	}
	return nil
}

// simulateInto runs c and writes its run directory into out.
func simulateInto(c *scenario.Config, record []byte, out string, outs *outputs, cfgPath, cpuProfile, memProfile, decisionsPath string, quiet, verbose bool, stdout, stderr io.Writer) error {
	if cpuProfile != "" {
		stop, err := startProfile(cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	var wl jobSpan
	if !quiet {
		wl = workloadOf(c)
	}
	for _, n := range c.NotApplied() {
		fmt.Fprintf(stderr, "warning: %s\n", n)
	}
	var dlog *decisions.Writer
	if decisionsPath != "" {
		var err error
		if dlog, err = decisions.Create(decisionsPath); err != nil {
			return fmt.Errorf("-decisions: %w", err)
		}
	}
	prog := newProgress(stderr, c.Policy.Name, 1, wl, quiet)
	start := time.Now()
	res, err := runInterruptible(func() (*scenario.Result, error) {
		var log jobtracker.DecisionLog
		if dlog != nil {
			log = dlog
		}
		return c.RunLogged(func(now float64, done, total int) { prog.sim(0, now, done, total) }, log)
	})
	wall := time.Since(start)
	if dlog != nil {
		if cerr := dlog.Close(); cerr != nil && err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(decisionsPath) // a log of a run that did not finish explains nothing
		}
	}
	if errors.Is(err, errInterrupted) {
		prog.abandon()
		fmt.Fprintf(stderr, "interrupted: the run did not finish; %s holds nothing of it\n", out)
		return err
	}
	prog.finish()
	printInputWarnings(c, stderr)
	if memProfile != "" {
		if err := writeHeapProfile(memProfile); err != nil {
			return err
		}
	}
	if err != nil {
		return err
	}
	perf := perfReport(res.Summary.Policy, res.Cost, res.Engine, wall)
	if err := report.WriteRunDir(out, report.Output{Scenario: record, Summary: res.Summary, Collector: res.Collector, Perf: perf}); err != nil {
		return err
	}
	if err := outs.writeRuns([]*report.Run{report.FromCollector(record, res.Summary, res.Collector)}, "simulate "+cfgPath, stderr, quiet); err != nil {
		return err
	}
	if verbose {
		fmt.Fprintln(stderr, perf.Line())
	}
	if dlog != nil {
		fmt.Fprintf(stdout, "wrote %s (%d decisions)\n", decisionsPath, dlog.Records())
	}
	s := res.Summary
	fmt.Fprintf(stdout, "%s: %d/%d jobs, makespan %.0f s, throughput %.1f jobs/h, mean turnaround %.1f s, node-local maps %.1f%%, cross-rack %.2f GB\nwrote %s\n",
		s.Policy, s.JobsCompleted, s.JobsSubmitted, s.MakespanS, s.ThroughputJobsPerHour, s.Turnaround.Mean,
		100*s.Locality.Node, s.Bytes.CrossRackTotal/1e9, out)
	return nil
}

// simulated is the scenario simulate runs, from the flags: -config (else
// the embedded default) with the operator's files the flags give in place
// of its own (owned describes them), and the settings of -policy, -seed
// and -set (described as the command line gave them); with the record of
// it a run directory keeps.
func simulated(sf *scenarioFlags, owned []string, sets []scenario.Setting, described []string) (*scenario.Config, []byte, error) {
	from := *sf.config
	var c *scenario.Config
	var err error
	if len(owned) == 0 && from != "" {
		c, err = scenario.Load(from)
	} else {
		c, err = flaggedSimulated(sf, owned)
	}
	if err != nil {
		return nil, nil, err
	}
	if from == "" {
		from = "the embedded default"
	}
	if len(owned) > 0 && len(sets) == 0 {
		from += " with " + strings.Join(owned, " ")
	}
	return loadSimulated(c, from, scenarioDir(sf), sets, append(owned, described...))
}

// loadSimulated applies the flags' settings (described as the command
// line gave them) to scenario c, read from (a file, or what the flags
// made) with its relative paths in dir, and returns it with the record of
// it a run directory keeps: the scenario as it runs, after a comment
// saying where it came from. The scenario is read first as it is, so that
// its own errors name its lines; an error the settings make names the
// settings and the field.
func loadSimulated(c *scenario.Config, from, dir string, sets []scenario.Setting, described []string) (*scenario.Config, []byte, error) {
	rel := ""
	if dir != "" {
		rel = " (paths in it are relative to that file's directory)"
	}
	if len(sets) == 0 {
		// The run's own record of what it ran: results alone do not say
		// which network mode, seed or trace made them.
		head := fmt.Sprintf("# The scenario of this run, as read from %s%s.\n", from, rel)
		return c, append([]byte(head), c.Source()...), nil
	}
	// -policy: another policy runs with its defaults, on the cluster's
	// pools; the scenario's own policy keeps its parameters.
	var kept []scenario.Setting
	for _, s := range sets {
		if s.Path == "policy" && s.Value.Kind == yaml.MappingNode && len(s.Value.Content) == 2 {
			name := s.Value.Content[1].Value
			if name == c.Policy.Name {
				continue
			}
			s.Value = c.PoolsNode(name)
		}
		kept = append(kept, s)
	}
	edited, err := scenario.Override(c.Source(), kept...)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", from, err)
	}
	with := strings.Join(described, " ")
	head := fmt.Sprintf("# The scenario of this run: %s with %s%s.\n", from, with, rel)
	record := append([]byte(head), edited...)
	name := from + " with " + with
	c, err = scenario.LoadBytes(record, name, dir)
	if err != nil {
		// A line of the edited text is a line of no file: the settings
		// and the field say where the error is.
		msg := err.Error()
		if rest, ok := strings.CutPrefix(msg, name+": "); ok {
			msg = name + ": " + recordLine.ReplaceAllString(rest, "")
		}
		return nil, nil, errors.New(msg)
	}
	return c, record, nil
}

// unlinedErrors is what an error of the scenario simulated makes passes
// through: a scenario the flags made or edited is text of no file, whose
// lines are none the user could look up, so its errors name the flags
// and the field alone.
func unlinedErrors(sf *scenarioFlags, owned []string, sets []scenario.Setting) func(error) error {
	if len(owned) == 0 && len(sets) == 0 && *sf.config != "" {
		return func(err error) error { return err }
	}
	return func(err error) error {
		if err == nil || errors.Is(err, errInterrupted) {
			return err
		}
		return errors.New(recordLine.ReplaceAllString(err.Error(), ""))
	}
}

// flaggedSimulated is the scenario of -config (else the embedded
// default) with the operator's files the flags give (owned) written in.
func flaggedSimulated(sf *scenarioFlags, owned []string) (*scenario.Config, error) {
	base, err := sf.base()
	if err != nil {
		return nil, err
	}
	src, err := flaggedScenario(base, base.Policy.Name)
	if err != nil {
		return nil, err
	}
	from := "the embedded default"
	if *sf.config != "" {
		from = *sf.config
	}
	return scenario.LoadBytes(src, from+" with "+strings.Join(owned, " "), scenarioDir(sf))
}

// scenarioDir is the directory the scenario's relative paths are read
// from: -config's, else "" (the embedded default has none, and the
// flags' own paths are made absolute).
func scenarioDir(sf *scenarioFlags) string {
	if *sf.config == "" {
		return ""
	}
	return filepath.Dir(*sf.config)
}

// recordLine is the line of an edited scenario an error starts with.
var recordLine = regexp.MustCompile(`line \d+: `)
