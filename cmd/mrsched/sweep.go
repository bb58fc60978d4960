package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"

	"github.com/mrsched/mrsched/report"
	"github.com/mrsched/mrsched/sweep"
	"github.com/mrsched/mrsched/sweep/rundb"
)

const sweepUsage = `usage: mrsched sweep plan    -grid FILE -out DIR     one scenario a cell, policy and seed of a grid
       mrsched sweep run     -dir DIR [-index N | -parallel P]
                                                    run one run (the index, or SLURM_ARRAY_TASK_ID or
                                                    JOB_COMPLETION_INDEX) or every unfinished run here
       mrsched sweep collect -dir DIR [-effects P/B,...] [-csv FILE] [-report FILE] [-sqlite FILE] [-partial] [-force]
                                                    mean and standard error over seeds, a row a cell and policy;
                                                    -effects: each policy's effect over a baseline, seed by seed
       mrsched sweep k8s     -dir DIR [-image IMAGE] [-parallelism P] [-claim NAME]
                                                    a Kubernetes Indexed Job that runs the sweep
Run 'mrsched sweep COMMAND -h' for a command's flags; docs/sweeps.md explains grids and engines.
`

func cmdSweep(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, sweepUsage)
		return errUsage
	}
	switch args[0] {
	case "plan":
		return sweepPlan(args[1:], stdout, stderr)
	case "run":
		return sweepRun(args[1:], stdout, stderr)
	case "collect":
		return sweepCollect(args[1:], stdout, stderr)
	case "k8s":
		return sweepK8s(args[1:], stdout, stderr)
	}
	fmt.Fprint(stderr, sweepUsage)
	if isHelp(args[0]) {
		return flag.ErrHelp
	}
	return fmt.Errorf("unknown sweep command %q (plan, run, collect, k8s)", args[0])
}

// sweepFlags is a flag set for `sweep NAME` that prints usage on -h.
func sweepFlags(name, usage string, stderr io.Writer) *flag.FlagSet {
	return commandFlags("sweep "+name, stderr, "usage: "+usage)
}

func sweepPlan(args []string, stdout, stderr io.Writer) error {
	fs := sweepFlags("plan", "mrsched sweep plan -grid FILE -out DIR", stderr)
	grid := fs.String("grid", "", "the grid file: a base scenario, policies, seeds and axes (examples/sweep/)")
	out := fs.String("out", "", "the sweep directory to create")
	if err := parseCommand(fs, args, grid, out); err != nil {
		return err
	}
	g, err := sweep.LoadGrid(*grid)
	if err != nil {
		return err
	}
	p, err := g.Write(*out)
	switch {
	case errors.Is(err, sweep.ErrPlanned):
		fmt.Fprintf(stdout, "%s already holds this plan: %d runs\n", *out, len(p.Runs))
		return nil
	case err != nil:
		return err
	}
	n := len(p.Runs)
	fmt.Fprintf(stdout, "planned %d runs in %s: %d cells x %d policies x %d seeds\n", n, *out, g.Cells(), len(p.Policies), len(p.Seeds))
	fmt.Fprintf(stdout, "run them here:  mrsched sweep run -dir %s -parallel %d\n", *out, runtime.GOMAXPROCS(0))
	fmt.Fprintf(stdout, "or on Slurm:    sbatch --array=0-%d --export=ALL,SWEEP_DIR=%s examples/sweep/slurm.sbatch\n", n-1, *out)
	fmt.Fprintf(stdout, "or Kubernetes:  mrsched sweep k8s -dir %s -image IMAGE > job.yaml\n", *out)
	fmt.Fprintf(stdout, "then:           mrsched sweep collect -dir %s\n", *out)
	return nil
}

// arrayIndexVars are the environment variables an engine's array task
// reads its index from: Slurm job arrays, Kubernetes Indexed Jobs.
var arrayIndexVars = []string{"SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"}

func sweepRun(args []string, stdout, stderr io.Writer) error {
	fs := sweepFlags("run", "mrsched sweep run -dir DIR [-index N | -parallel P] [-q]", stderr)
	dir := fs.String("dir", "", "the sweep directory (from sweep plan)")
	index := fs.Int("index", -1, "run only this run; default: the index in $SLURM_ARRAY_TASK_ID or $JOB_COMPLETION_INDEX, and without either every unfinished run")
	parallel := fs.Int("parallel", runtime.GOMAXPROCS(0), "runs at once when running every unfinished run")
	quiet := fs.Bool("q", false, "say nothing but errors")
	if err := parseCommand(fs, args, dir); err != nil {
		return err
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if given["index"] && given["parallel"] {
		return fmt.Errorf("-index runs one run; -parallel is for running them all")
	}
	if *parallel < 1 {
		return fmt.Errorf("-parallel: must be at least 1, got %d", *parallel)
	}
	s, err := sweep.Open(*dir)
	if err != nil {
		return err
	}
	one, from := *index, "-index"
	if given["index"] && one < 0 {
		return fmt.Errorf("-index: must be at least 0, got %d", one)
	}
	if !given["index"] && !given["parallel"] {
		for _, v := range arrayIndexVars {
			if env, ok := os.LookupEnv(v); ok {
				i, err := strconv.Atoi(env)
				if err != nil || i < 0 {
					return fmt.Errorf("$%s is %q, want a run index", v, env)
				}
				one, from = i, "$"+v
				break
			}
		}
	}
	say := func(format string, a ...any) {
		if !*quiet {
			fmt.Fprintf(stderr, format, a...)
		}
	}
	if one >= 0 {
		ctx, stop := interruptContext()
		defer stop()
		type result struct {
			o   *sweep.Outcome
			err error
		}
		ended := make(chan result, 1)
		go func() {
			o, err := s.Execute(one, nil)
			ended <- result{o, err}
		}()
		var r result
		select {
		case r = <-ended:
		case <-ctx.Done():
			s.Abandon()
			fmt.Fprintf(stderr, "interrupted: run %d (from %s) did not finish; nothing of it is kept, and it runs again next time\n", one, from)
			return errInterrupted
		}
		o, err := r.o, r.err
		if err != nil {
			return err
		}
		if o.Skipped {
			say("run %d (%s, from %s): already finished\n", one, o.Run.Describe(), from)
			return nil
		}
		say("run %d (%s, from %s): %s\n", one, o.Run.Describe(), from, o.Perf.Line())
		return nil
	}
	total := len(s.Plan.Runs)
	pending := len(s.Pending())
	say("%d of %d runs to do, %d at a time\n", pending, total, min(*parallel, max(pending, 1)))
	ctx, stop := interruptContext()
	defer stop()
	var mu sync.Mutex // the report lines stop at an interrupt
	ended := make(chan error, 1)
	go func() {
		ended <- s.RunAll(*parallel, func(done, n, i int, o *sweep.Outcome, err error) {
			mu.Lock()
			defer mu.Unlock()
			switch {
			case ctx.Err() != nil:
			case err != nil:
				fmt.Fprintf(stderr, "[%d/%d] run %d failed: %v\n", done, n, i, err)
			case o.Skipped:
				say("[%d/%d] run %d (%s): already finished\n", done, n, i, o.Run.Describe())
			default:
				say("[%d/%d] run %d (%s): %.1f s\n", done, n, i, o.Run.Describe(), o.Perf.WallS)
			}
		})
	}()
	select {
	case err := <-ended:
		return err
	case <-ctx.Done():
		s.Abandon()
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(stderr, "interrupted: %d of %d runs finished, kept in %s; sweep run resumes from them\n", s.Finished(), total, filepath.Join(*dir, "runs"))
		return errInterrupted
	}
}

func sweepCollect(args []string, stdout, stderr io.Writer) error {
	fs := sweepFlags("collect", "mrsched sweep collect -dir DIR [-effects P/B,...] [-csv FILE] [-report FILE] [-sqlite FILE] [-partial] [-force]", stderr)
	dir := fs.String("dir", "", "the sweep directory")
	csvPath := fs.String("csv", "", "write the table as CSV here (default DIR/collect.csv)")
	reportPath := fs.String("report", "", "write the HTML report (the table, and mean turnaround by the first axis) here (default DIR/report.html)")
	dbPath := fs.String("sqlite", "", "also write every run's summary and jobs to this SQLite database (schema: docs/sweeps.md)")
	partial := fs.Bool("partial", false, "collect the finished runs when some have not finished")
	force := fs.Bool("force", false, "aggregate runs that are not what the plan says (another plan's runs, another workload)")
	effects := fs.String("effects", "", "also give each `policy/baseline` pair's effect (comma-separated, as nas/delay,sw-fair/fair): the ratio of the policy's figure to the baseline's on the same seed, per cell, and its shift from the first cell's; CSV in DIR/effects.csv")
	if err := parseCommand(fs, args, dir); err != nil {
		return err
	}
	var pairs []sweep.EffectPair
	if *effects != "" {
		var err error
		if pairs, err = sweep.ParseEffectPairs(*effects); err != nil {
			return fmt.Errorf("-effects: %w", err)
		}
	}
	// A directory that holds no plan says so before its outputs are
	// checked: they would go there.
	s, err := sweep.Open(*dir)
	if err != nil {
		return err
	}
	if *csvPath == "" {
		*csvPath = filepath.Join(*dir, "collect.csv")
	}
	if *reportPath == "" {
		*reportPath = filepath.Join(*dir, "report.html")
	}
	for _, p := range []string{*csvPath, *reportPath, *dbPath} {
		if p != "" {
			if err := writableFile(p); err != nil {
				return err
			}
		}
	}
	c, err := s.Collect(sweep.CollectOptions{Partial: *partial, Force: *force})
	if err != nil {
		return err
	}
	if err := c.Table().WriteText(stdout); err != nil {
		return err
	}
	if len(pairs) > 0 {
		effs, err := c.Effects(pairs)
		if err != nil {
			return fmt.Errorf("-effects: %w", err)
		}
		text, csv := c.EffectsTables(effs)
		fmt.Fprintln(stdout)
		if err := text.WriteText(stdout); err != nil {
			return err
		}
		path := filepath.Join(*dir, "effects.csv")
		if err := writeCSVFile(path, csv); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "wrote %s\n", path)
	}
	if err := writeCSVFile(*csvPath, c.CSV()); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %s\n", *csvPath)
	if err := c.Page().WriteFile(*reportPath); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %s\n", *reportPath)
	if *dbPath != "" {
		if err := rundb.Write(*dbPath, c); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "wrote %s\n", *dbPath)
	}
	return nil
}

func sweepK8s(args []string, stdout, stderr io.Writer) error {
	fs := sweepFlags("k8s", "mrsched sweep k8s -dir DIR [-image IMAGE] [-parallelism P] [-claim NAME] [-mount PATH] [-name NAME] [-cpu C] [-memory M]", stderr)
	dir := fs.String("dir", "", "the sweep directory (from sweep plan)")
	var o sweep.KubernetesOptions
	fs.StringVar(&o.Image, "image", "mrsched:latest", "a container image with mrsched on its PATH")
	fs.IntVar(&o.Parallelism, "parallelism", 4, "pods at once")
	fs.StringVar(&o.Claim, "claim", "mrsched-sweeps", "the PersistentVolumeClaim holding the sweep directory at its top level")
	fs.StringVar(&o.MountPath, "mount", "/sweeps", "where the claim is mounted in the pods")
	fs.StringVar(&o.Name, "name", "", "the Job's name (default mrsched- and the directory's name)")
	fs.StringVar(&o.CPU, "cpu", "1", "each pod's CPU request")
	fs.StringVar(&o.Memory, "memory", "2Gi", "each pod's memory request")
	if err := parseCommand(fs, args, dir); err != nil {
		return err
	}
	if o.Parallelism < 1 {
		return fmt.Errorf("-parallelism: must be at least 1, got %d", o.Parallelism)
	}
	s, err := sweep.Open(*dir)
	if err != nil {
		return err
	}
	b, err := s.Kubernetes(o)
	if err != nil {
		return err
	}
	_, err = stdout.Write(b)
	return err
}

// writeCSVFile writes t to path as CSV.
func writeCSVFile(path string, t *report.Table) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := t.WriteCSV(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}
