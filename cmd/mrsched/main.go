// Command mrsched simulates multi-tenant MapReduce clusters under the
// scheduling policies of the ShuffleWatcher, NAS, Fair Scheduler and TD
// papers and compares them.
//
// Usage:
//
//	mrsched                          compare every policy on the embedded FB-2009 trace
//	mrsched compare [flags]          the same, with flags
//	mrsched advise [flags]           which policy and thresholds, with intervals
//	mrsched simulate -config F -out D  one run from a YAML scenario
//	mrsched sweep plan|run|collect     a grid of runs, here or on Slurm or Kubernetes
//	mrsched diff BASE RUN...         how runs differ from a base run, in percent
//	mrsched explain RUN_DIR -job ID  where one job's time went, and why
//	mrsched netsim FILE.json         the network model alone
//	mrsched trace stats FILE|NAME    a trace's jobs, bytes and classes
//	mrsched experiment NAME...       a paper's experiment beside the paper's numbers
//	mrsched report RUN_DIR...        runs and experiments as one HTML page of figures
//	mrsched policies                 the registered policies
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// main runs the command. The collector keeps Go's default target
// (GOGC=100, or what GOGC in the environment says): paired runs found a
// target of 400, which this command once set, cost 1.5 to 1.9 times the
// peak memory and saved no CPU (docs/performance.md).
func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// errUsage marks an error whose message is already a usage text.
var errUsage = errors.New("usage")

// usageError is wrong usage (an argument where none is taken, a required
// flag missing): its message is printed and the command exits 2, as
// docs/cli.md says.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// badUsage returns a usageError with the message format gives.
func badUsage(format string, args ...any) error {
	return usageError{fmt.Sprintf(format, args...)}
}

// flagErr is the error of a flag set that failed to parse: the flag
// package has printed what was wrong and the usage, so it is wrong usage
// with nothing more to say; -h is not an error.
func flagErr(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	return errUsage
}

func run(args []string, stdout, stderr io.Writer) int {
	// No command, or a flag where the command goes, is compare: the
	// usage line reads "mrsched [COMMAND] [flags]", so "mrsched -q" means
	// "mrsched compare -q". The help flags stay the top-level help.
	cmd := "compare"
	if len(args) > 0 && (!strings.HasPrefix(args[0], "-") || isHelp(args[0])) {
		cmd, args = args[0], args[1:]
	}
	if isHelp(cmd) {
		cmd = "help"
	}
	var err error
	switch cmd {
	case "compare":
		err = cmdCompare(args, stdout, stderr)
	case "advise":
		err = cmdAdvise(args, stdout, stderr)
	case "simulate":
		err = cmdSimulate(args, stdout, stderr)
	case "netsim":
		err = cmdNetsim(args, stdout, stderr)
	case "diff":
		err = cmdDiff(args, stdout, stderr)
	case "explain":
		err = cmdExplain(args, stdout, stderr)
	case "testbed":
		err = cmdTestbed(args, stdout, stderr)
	case "validate":
		err = cmdValidate(args, stdout, stderr)
	case "trace":
		err = cmdTrace(args, stdout, stderr)
	case "experiment":
		err = cmdExperiment(args, stdout, stderr)
	case "sweep":
		err = cmdSweep(args, stdout, stderr)
	case "report":
		err = cmdReport(args, stdout, stderr)
	case "policies":
		err = cmdPolicies(args, stdout, stderr)
	case "help":
		usage(stdout)
		return 0
	default:
		fmt.Fprintf(stderr, "mrsched: unknown command %q\n\n", cmd)
		usage(stderr)
		return 2
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	case errors.Is(err, errInterrupted):
		return 130 // the command has said what it kept
	case errors.As(err, new(usageError)):
		fmt.Fprintf(stderr, "mrsched %s: %v\n", cmd, err)
		return 2
	}
	fmt.Fprintf(stderr, "mrsched %s: %v\n", cmd, err)
	return 1
}

func usage(w io.Writer) {
	fmt.Fprint(w, `mrsched: which scheduling policy should a shared MapReduce cluster run?

usage: mrsched [COMMAND] [flags]

Commands:
  mrsched                            compare every policy on the embedded FB-2009 trace
  mrsched compare [-config FILE] [-trace NAME|FILE [-source-nodes N]] [-topology FILE]
                  [-allocations FILE] [-site FILE] [-policies a,b] [-seed N] [-seeds N]
                  [-csv FILE] [-out DIR [-force]] [-report FILE] [-v]
  mrsched advise [-config FILE] [-objective O] [-current P] [-budget D] [-out DIR]
                                     which policy and thresholds, what they gain over the
                                     current policy with 95% intervals, the lines to apply
                                     (-sweep DIR, -collect DIR for a batch system)
  mrsched simulate [-config FILE] [-trace, -topology, -allocations, -site as compare] -out DIR
                  [-policy NAME] [-seed N] [-set path=value]... [-report FILE] [-decisions FILE]
                                     one run from a YAML scenario; writes scenario.yaml,
                                     summary.json, jobs.csv, timeseries.csv, uplinks.csv,
                                     pools.csv and perf.json to DIR; -decisions logs
                                     every launch and why
  mrsched sweep plan -grid FILE -out DIR
                                     one scenario a cell, policy and seed of a grid
  mrsched sweep run -dir DIR [-index N | -parallel P]
                                     its runs, here or as Slurm or Kubernetes array tasks
  mrsched sweep collect -dir DIR [-sqlite FILE]
                                     mean and standard error over seeds, a row a cell and policy
  mrsched diff BASE_DIR RUN_DIR...   how runs differ from a base run: mean turnaround,
                                     median job, throughputs, cross-rack bytes (%);
                                     -by-size adds the change by job size;
                                     -bases DIR,... compares the runs' mean with
                                     the mean of a set of base runs
  mrsched explain RUN_DIR -job ID [-decisions FILE]
                                     one job: where its time went along its critical
                                     path, what it waited behind, where its tasks went
                                     and why (from the decisions log)
  mrsched netsim FILE.json           the flow-level network model alone
  mrsched trace stats FILE|FB-2009|FB-2010|FB-2010-paths [-source-nodes N]
                                     jobs, bytes, shuffle classes, arrival span; or what a
                                     run takes from an allocation or site file
  mrsched experiment [-seeds N] [-out DIR] [-report FILE] [-figures DIR] NAME...
                                     a paper's experiment, ours beside the paper's numbers
                                     (-list for the names)
  mrsched report [-o FILE] [-figures DIR] RUN_DIR|DIR...
                                     runs (simulate -out, compare -out, sweeps) and
                                     experiment -out CSVs as one self-contained HTML
                                     page of tables and figures
  mrsched policies                   the registered policies
  mrsched testbed -config FILE -out DIR
                                     the scenario on an emulated cluster: real tasks,
                                     real TCP over shaped links (needs root)
  mrsched testbed clean              remove what a killed testbed run left behind
  mrsched testbed netsim FILE.json   a netsim file's flows as real TCP transfers (needs root)
  mrsched testbed microbench         what TCP on the emulated network does that max-min
                                     leaves out: transfers, incast, short behind long
  mrsched validate -config FILE -out DIR [-seeds N]
                                     the scenario's policies in the simulator and on the
                                     testbed, seed by seed: errors and effects (needs root)

Run 'mrsched COMMAND -h' for a command's flags.
`)
}
