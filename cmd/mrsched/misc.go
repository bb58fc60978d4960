package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/traces"
	"github.com/mrsched/mrsched/workload"
	"github.com/mrsched/mrsched/workload/hadooptrace"
)

func cmdPolicies(args []string, w, stderr io.Writer) error {
	if len(args) > 0 {
		return usageFor(stderr, "usage: mrsched policies\n  lists the registered policies, one a line: name and summary", args)
	}
	for _, e := range sched.Policies() {
		fmt.Fprintf(w, "%-16s %s\n", e.Name, e.Summary)
	}
	return nil
}

// defaultSourceNodes is the traced cluster's size trace stats assumes for
// a file (FB-2009's 600), and maxSourceNodes the most it takes (as a
// scenario's workload.source_nodes).
const (
	defaultSourceNodes = 600
	maxSourceNodes     = 10_000_000
)

func cmdTrace(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "stats" {
		return usageFor(stderr, traceStatsUsage, args)
	}
	fs := commandFlags("trace stats", stderr, traceStatsUsage)
	src := fs.Int("source-nodes", 0, "the traced cluster's nodes, for a SWIM trace file (embedded traces know theirs; a file without it is taken as traced on 600)")
	asJSON := fs.Bool("json", false, "print the stats as JSON (jobs, maps, reduces, input_bytes, shuffle_bytes, output_bytes, hosts, racks, ...)")
	formatName := fs.String("format", "", "the trace's format when its content should not decide: swim, rumen, jhist or sls")
	// Accept the trace before or after the flags.
	name, err := parseAroundOne(fs, args[1:], func() { fmt.Fprintln(stderr, traceStatsUsage) })
	if err != nil {
		return err
	}
	format, err := hadooptrace.ParseFormat(*formatName)
	if err != nil {
		return fmt.Errorf("-format: %w", err)
	}
	if _, _, embedded := traces.Embedded(name); !embedded {
		if done, err := hadoopTraceStats(name, format, *asJSON, stdout); done || err != nil {
			return err
		}
	}
	given := flagGiven(fs, "source-nodes")
	if given && (*src < 1 || *src > maxSourceNodes) {
		return fmt.Errorf("-source-nodes: %d; want the traced cluster's node count, 1 to %d", *src, maxSourceNodes)
	}
	// Stats are of the trace as recorded: no byte scaling.
	opt := workload.SWIMOptions{SourceNodes: defaultSourceNodes, TargetNodes: defaultSourceNodes, Scale: 1, BlockBytes: 128 << 20, Users: 1}
	var jobs []workload.Job
	if data, n, ok := traces.Embedded(name); ok {
		if given && *src != n {
			return fmt.Errorf("-source-nodes: %d, but %s was traced on %d nodes; the flag is for trace files", *src, name, n)
		}
		opt.SourceNodes, opt.TargetNodes = n, n
		opt.SynthesisPaths = traces.SynthesisPaths(name)
		jobs, err = workload.ParseSWIM(bytes.NewReader(data), name, opt)
	} else {
		if given {
			opt.SourceNodes, opt.TargetNodes = *src, *src
		} else {
			fmt.Fprintf(stderr, "mrsched trace stats: %s taken as traced on %d nodes (-source-nodes sets it; it caps reduce counts)\n", name, defaultSourceNodes)
		}
		jobs, err = workload.LoadSWIMFile(name, opt)
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%s: neither an embedded trace (%s) nor a file: %w", name, strings.Join(traces.Names(), ", "), err)
		}
	}
	if err != nil {
		return err
	}
	if *asJSON {
		return swimStatsJSON(stdout, workload.Summarize(jobs))
	}
	return workload.Summarize(jobs).Write(stdout)
}

// isHelp reports whether arg asks for help, as the flag package reads it.
func isHelp(arg string) bool {
	switch arg {
	case "-h", "-help", "--help", "--h":
		return true
	}
	return false
}
