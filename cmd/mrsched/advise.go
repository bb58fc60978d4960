package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mrsched/mrsched/advise"
	"github.com/mrsched/mrsched/scenario"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/traces"
)

func cmdAdvise(args []string, stdout, stderr io.Writer) error {
	fs := commandFlags("advise", stderr, "usage: mrsched advise [-config FILE] [-trace, -topology, -allocations, -site as compare] [-objective O] [-current P]\n                      [-constraint C] [-policies a,b] [-budget D] [-out DIR]\n       mrsched advise [the same flags] -sweep DIR [-sweep-seeds N]\n       mrsched advise -collect DIR",
		"  which policy and thresholds the cluster should run, what they gain over the current policy with 95% intervals, and the lines to apply")
	sf := addScenarioFlags(fs, "scenario YAML to advise on (its policy is the current one unless -current); default: embedded FB-2009 on the default cluster")
	cfgPath := sf.config
	pols := fs.String("policies", "", "comma-separated policies to choose among, or \"all\" (default: every registered policy but the ablations)")
	objName := fs.String("objective", "mean-turnaround", "what to optimise: mean-turnaround, p95-turnaround, throughput, cross-rack, worst-pool")
	current := fs.String("current", "", "the policy the cluster runs now, gains stated against it (default: the scenario's policy, fair on the embedded default, delay where its fair policy's site file sets locality waits)")
	constraint := fs.String("constraint", "", "bound another figure as a multiple of the current policy's, as p95-turnaround<=1.1")
	budget := fs.Duration("budget", 5*time.Minute, "CPU time the search may spend (0: no bound)")
	seed := fs.Uint64("seed", 1, "first seed: stage seeds are seed, seed+1, ...")
	maxSeeds := fs.Int("max-seeds", 10, "at most this many seeds on the whole workload")
	profiles := fs.String("profiles", "", "comma-separated cost profiles to run the finalists under too (e.g. fluid,hadoop1-hdd,yarn-hdd): does the winner change?")
	parallel := fs.Int("parallel", min(2, runtime.GOMAXPROCS(0)), "simulations at once")
	out := fs.String("out", "", "write advice.json and advice.html to this directory")
	force := fs.Bool("force", false, "with -out: replace what the directory holds")
	quiet := fs.Bool("q", false, "no progress lines")
	sweepDir := fs.String("sweep", "", "write every candidate on the whole workload as sweeps in this directory (one a policy) to run on Slurm or Kubernetes, instead of searching here")
	sweepSeeds := fs.Int("sweep-seeds", 5, "with -sweep: the seeds every candidate runs")
	collect := fs.String("collect", "", "decide from the finished runs of a directory -sweep planned")
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	if *collect != "" {
		return adviseCollect(*collect, *out, *force, stdout, stderr, *quiet)
	}
	obj, err := advise.LookupObjective(*objName)
	if err != nil {
		return fmt.Errorf("-objective: %w", err)
	}
	var cons *advise.Constraint
	if *constraint != "" {
		if cons, err = advise.ParseConstraint(*constraint); err != nil {
			return fmt.Errorf("-constraint: %w", err)
		}
	}
	if *parallel < 1 {
		return fmt.Errorf("-parallel: must be at least 1, got %d", *parallel)
	}
	if *maxSeeds < 2 {
		return fmt.Errorf("-max-seeds: must be at least 2 (one seed gives no interval), got %d", *maxSeeds)
	}
	if *budget < 0 {
		return fmt.Errorf("-budget: must be 0 (no bound) or positive, got %v", *budget)
	}
	base, err := sf.base()
	if err != nil {
		return err
	}
	if *current == "" {
		*current = base.Policy.Name // what the operator's scenario runs
		if *current == "fair" && base.SiteDelays() {
			// The site's Fair Scheduler waits for locality: delay,
			// with the site's waits.
			*current = "delay"
		}
	}
	names, err := policyList(*pols)
	if err != nil {
		return err
	}
	if _, err := sched.NewPolicy(*current, nil); err != nil {
		return fmt.Errorf("-current: %w", err)
	}
	cands, err := advise.CandidatesFor(names)
	if err != nil {
		return err
	}
	if !slices.Contains(names, *current) {
		// The current policy as the cluster runs it, the base of the
		// gains; its thresholds are not searched unless -policies names it.
		cands = append(cands, advise.Candidate{Policy: *current})
	}
	cur := slices.IndexFunc(cands, func(c advise.Candidate) bool { return c.Policy == *current && len(c.Settings) == 0 })
	if *current == base.Policy.Name && base.OwnParams() {
		// The cluster runs its policy with the scenario's parameters.
		cands = append(cands, advise.Candidate{Policy: *current, Own: true})
		cur = len(cands) - 1
	}
	// The search's runs are scenarios of their own; the operator's files
	// are read, and what a candidate's policy cannot apply of them noted,
	// once here.
	noteInputs(base, cands)
	printInputWarnings(base, stderr)
	if *sweepDir != "" {
		if *sweepSeeds < 2 {
			return fmt.Errorf("-sweep-seeds: want at least 2 (one seed gives no interval), got %d", *sweepSeeds)
		}
		w, profile, named, err := adviseWorkload(base, *cfgPath)
		if err != nil {
			return err
		}
		return planAdviseSweep(*sweepDir, w, &advisePlan{Scenario: adviseName(*cfgPath, base), Profile: profile, ProfileNamed: named, Jobs: w.Jobs,
			Objective: obj.Name, Constraint: *constraint, Candidates: cands, Current: cur, Seeds: *sweepSeeds, Cluster: clusterOf(base, profile)}, stdout)
	}
	var dir *outDir
	if *out != "" {
		if dir, err = openOutDir("-out", *out, *force, nil); err != nil {
			return err
		}
	}
	name := adviseName(*cfgPath, base)
	w, profile, named, err := adviseWorkload(base, *cfgPath)
	if err != nil {
		dir.discard()
		return err
	}
	if !*quiet {
		how := "the scenario's cluster.profile"
		if !named {
			how = "the scenario names no cluster.profile; chosen for its task model"
		}
		fmt.Fprintf(stderr, "advise: %d candidates of %d policies on %s (%d jobs), profile %s (%s), objective %s, budget %v CPU\n",
			len(cands), len(names), name, w.Jobs, profile, how, obj.Name, *budget)
	}
	opts := advise.DefaultOptions()
	opts.Objective, opts.Constraint, opts.Current = obj, cons, cur
	opts.FirstSeed, opts.MaxSeeds = *seed, *maxSeeds
	start := cpuSeconds()
	spent := func() float64 { return cpuSeconds() - start }
	opts.Budget, opts.Spent = budget.Seconds(), spent
	ctx, stop := interruptContext()
	defer stop()
	ev := &simEvaluator{w: w, cands: cands, parallel: *parallel, quiet: *quiet, stderr: stderr}
	wall := time.Now()
	res, serr := advise.Search(ctx, cands, ev, opts)
	if serr != nil && !errors.Is(serr, advise.ErrInterrupted) {
		dir.discard()
		return serr
	}
	a := &advise.Advice{Scenario: name, Profile: profile, ProfileNamed: named, Jobs: w.Jobs, Result: res, Verdict: res.Verdict()}
	rec := res.Recommended()
	if rec >= 0 {
		a.Config = advise.ConfigLines(cands[rec], clusterOf(base, profile))
	}
	if serr == nil && *profiles != "" {
		for _, p := range strings.Split(*profiles, ",") {
			p = strings.TrimSpace(p)
			if p == profile {
				continue
			}
			pc, err := checkProfile(ctx, w, cands, res, p, opts, ev)
			if err != nil {
				if errors.Is(err, advise.ErrInterrupted) {
					serr = err
					break
				}
				dir.discard()
				return err
			}
			a.Profiles = append(a.Profiles, *pc)
		}
	}
	fmt.Fprintf(stdout, "Advice for %s, %s, under profile %s", name, obj.What, profile)
	if !named {
		fmt.Fprintf(stdout, " (the scenario names none; %s suits its %s)", profile, map[bool]string{true: "containers", false: "slots"}[base.ContainerModel()])
	}
	fmt.Fprintf(stdout, ", against %s:\n%s", cands[cur].Label(), a.Verdict)
	for _, p := range a.Profiles {
		fmt.Fprintln(stdout, p.Line)
	}
	if len(a.Config) > 0 {
		fmt.Fprintf(stdout, "\nTo apply %s:\n%s\n", cands[rec].Label(), strings.Join(a.Config, "\n"))
	}
	if !*quiet {
		fmt.Fprintf(stderr, "advise: %.0f s CPU, %.0f s wall\n", spent(), time.Since(wall).Seconds())
	}
	if dir != nil {
		if err := a.WriteJSON(dir.path); err != nil {
			return err
		}
		if err := a.Page().WriteFile(filepath.Join(dir.path, "advice.html")); err != nil {
			return err
		}
		if !*quiet {
			fmt.Fprintf(stderr, "wrote %s\n", dir.path)
		}
	}
	if serr != nil {
		fmt.Fprintln(stderr, "interrupted: the verdict above is partial, from the runs that finished")
		return errInterrupted
	}
	return nil
}

// adviseWorkload is the workload advise weighs policies on: the scenario
// with its own policy, under its cost profile (named: the scenario names
// the profile, so the runs take it from the scenario).
func adviseWorkload(base *scenario.Config, cfgPath string) (w *advise.Workload, profile string, named bool, err error) {
	src, err := compareScenario(base, base.Policy.Name)
	if err != nil {
		return nil, "", false, err
	}
	profile, named = advise.ProfileFor(base)
	runProfile := profile
	if named {
		runProfile = ""
	}
	w, err = advise.NewWorkload(src, adviseName(cfgPath, base), base.Dir(), base, runProfile)
	return w, profile, named, err
}

// adviseName names the scenario advised on: its file, else the embedded
// default or the trace the flags gave it, with the own-cluster files the
// flags gave.
func adviseName(cfgPath string, c *scenario.Config) string {
	if cfgPath != "" {
		return cfgPath
	}
	name := "the embedded default"
	if t := c.Workload.Trace; t != "" && t != traces.FB2009Name {
		name = t
	}
	for _, f := range []struct{ what, path string }{
		{"topology", c.Cluster.Topology}, {"allocations", c.Policy.Allocations}, {"site", c.Policy.Site},
	} {
		if f.path != "" {
			name += fmt.Sprintf(", %s %s", f.what, f.path)
		}
	}
	return name
}

// adviseCollect decides from an advise -sweep directory's finished runs.
func adviseCollect(dir, out string, force bool, stdout, stderr io.Writer, quiet bool) error {
	var od *outDir
	if out != "" {
		var err error
		if od, err = openOutDir("-out", out, force, nil); err != nil {
			return err
		}
	}
	a, err := collectAdviseSweep(dir)
	if err != nil {
		od.discard()
		return err
	}
	res := a.Result
	fmt.Fprintf(stdout, "Advice for %s from the sweep %s, %s, under profile %s, against %s:\n%s", a.Scenario, dir, res.Objective.What, a.Profile,
		res.Candidates[res.Current].Label(), a.Verdict)
	if rec := res.Recommended(); rec >= 0 && len(a.Config) > 0 {
		fmt.Fprintf(stdout, "\nTo apply %s:\n%s\n", res.Candidates[rec].Label(), strings.Join(a.Config, "\n"))
	}
	if od != nil {
		if err := a.WriteJSON(od.path); err != nil {
			return err
		}
		if err := a.Page().WriteFile(filepath.Join(od.path, "advice.html")); err != nil {
			return err
		}
		if !quiet {
			fmt.Fprintf(stderr, "wrote %s\n", od.path)
		}
	}
	return nil
}

// noteInputs builds the scenario under each candidate's policy, without
// running it, so that base's warnings hold what each policy cannot apply
// of the operator's files (a build that fails fails the runs, which say
// why).
func noteInputs(base *scenario.Config, cands []advise.Candidate) {
	if base.Policy.Allocations == "" && base.Policy.Site == "" {
		return // only those files hold settings a policy may lack
	}
	seen := map[string]bool{}
	for _, c := range cands {
		if !seen[c.Policy] {
			seen[c.Policy] = true
			_, _, _, _ = base.WithPolicy(c.Policy).Build()
		}
	}
}

// clusterOf is what the configuration lines need of the scenario: its
// nodes, the heartbeat its runs took and its pools.
func clusterOf(c *scenario.Config, profile string) advise.Cluster {
	cl := c.Cluster.WithDefaults()
	nodes := cl.Racks * cl.NodesPerRack
	if t, err := c.Topology(); err == nil { // built by the runs already, with any error
		nodes = t.NumNodes()
	}
	hb := c.EngineFor(nil).HeartbeatS // the scenario's, else its site file's
	if p, ok := scenario.LookupProfile(profile); ok && hb == 0 {
		hb = p.HeartbeatS
	}
	if hb == 0 {
		hb = 3 // the engine's default (sim.Params)
	}
	out := advise.Cluster{Nodes: nodes, HeartbeatS: hb, AllocationFile: c.Policy.Allocations, Hadoop: string(c.Hadoop())}
	// The pools decoded when the scenario was built (NewWorkload), with
	// errors at their lines; they decode here again without one.
	if c.Policy.Pools.Kind != 0 {
		_ = c.Policy.Pools.Decode(&out.Pools.Pools)
	}
	if c.Policy.Preemption.Kind != 0 {
		_ = c.Policy.Preemption.Decode(&out.Pools.Preemption)
	}
	if c.Policy.JobLimits.Kind != 0 {
		_ = c.Policy.JobLimits.Decode(&out.Pools.Limits)
	}
	if c.Policy.SizeBasedWeight.Kind != 0 {
		_ = c.Policy.SizeBasedWeight.Decode(&out.Pools.SizeBasedWeight)
	}
	// What the runs took from the site file where the candidate and the
	// scenario set nothing, so that the lines say what ran.
	site := c.SiteSettings()
	if site.T1S != nil && site.T2S != nil {
		out.Waits = &[2]float64{*site.T1S, *site.T2S}
	}
	if site.Preemption != nil {
		out.Pools.Preemption.Enabled = *site.Preemption
	}
	if site.UtilizationGate != nil {
		out.Pools.Preemption.ClusterUtilizationThreshold = *site.UtilizationGate
	}
	return out
}

// checkProfile runs the finalists (the candidates that reached the whole
// workload, and the current policy) under profile p on the decision's
// seeds (at most 4), and says whether the winner changes.
func checkProfile(ctx context.Context, w *advise.Workload, cands []advise.Candidate, res *advise.Result, p string, o advise.Options, ev *simEvaluator) (*advise.ProfileCheck, error) {
	if _, ok := scenario.LookupProfile(p); !ok {
		return nil, fmt.Errorf("-profiles: %q is not a profile; want one of %s", p, strings.Join(scenario.ProfileNames(), ", "))
	}
	d := res.Decision
	if d == nil || d.Best < 0 {
		return nil, fmt.Errorf("-profiles: no decision to check")
	}
	st := res.Stages[d.Stage]
	idx := slices.Clone(st.Entered)
	if !slices.Contains(idx, res.Current) {
		idx = append(idx, res.Current)
	}
	sub := make([]advise.Candidate, len(idx))
	for i, c := range idx {
		sub[i] = cands[c]
	}
	pw := *w
	pw.Profile = p
	n := min(4, max(2, len(st.Seeds)))
	so := o
	so.Current = slices.Index(idx, res.Current)
	so.Stages = []advise.StagePlan{{Fraction: 1, Seeds: n}}
	so.MaxSeeds = n
	pev := &simEvaluator{w: &pw, cands: sub, parallel: ev.parallel, quiet: ev.quiet, stderr: ev.stderr}
	r, err := advise.Search(ctx, sub, pev, so)
	if err != nil {
		return nil, err
	}
	pc := &advise.ProfileCheck{Profile: p, Result: r, Best: -1}
	if r.Decision == nil || r.Decision.Best < 0 {
		pc.Line = fmt.Sprintf("Under %s: no decision (%s).", p, r.Stop)
		return pc, nil
	}
	pc.Best = idx[r.Decision.Best]
	var within []string
	for _, c := range r.Decision.WithinNoise {
		within = append(within, sub[c.Candidate].Label())
		if idx[c.Candidate] == d.Best {
			pc.Same = true
		}
	}
	if pc.Best == d.Best {
		pc.Same = true
	}
	verdict := "the winner does not change"
	if !pc.Same {
		verdict = "the winner changes"
	}
	pc.Line = fmt.Sprintf("Under %s (the %d finalists, %d seeds): best %s, %s %sx of %s's; %s", p, len(sub), len(r.Stages[0].Seeds),
		cands[pc.Best].Label(), r.Objective.What, advise.Ratio(r.Decision.Gain.Mean), cands[res.Current].Policy, verdict)
	if len(within) > 0 {
		pc.Line += " (within noise of it: " + strings.Join(within, ", ") + ")"
	}
	pc.Line += "."
	return pc, nil
}

// simEvaluator runs advise's requests as simulations, parallel at a time.
type simEvaluator struct {
	w        *advise.Workload
	cands    []advise.Candidate
	parallel int
	quiet    bool
	stderr   io.Writer
}

func (e *simEvaluator) Evaluate(ctx context.Context, reqs []advise.Request) ([]*advise.Figures, error) {
	out := make([]*advise.Figures, len(reqs))
	if len(reqs) == 0 {
		return out, nil
	}
	start := time.Now()
	if !e.quiet {
		r := reqs[0]
		fmt.Fprintf(e.stderr, "advise: stage %d, %d runs of %s each ...", r.Stage+1, len(reqs), count(e.w.SliceJobs(r.Fraction), "job"))
	}
	var (
		mu          sync.Mutex
		errs        []error
		interrupted bool
	)
	all := inOrder(ctx, len(reqs), e.parallel, func(i int) {
		r := reqs[i]
		cfg, err := e.w.RunConfig(e.cands[r.Candidate], r.Fraction, r.Seed)
		var f advise.Figures
		if err == nil {
			res, rerr := cfg.Run(nil)
			if err = rerr; err == nil {
				f = advise.FiguresOf(res.Summary, res.Collector.Jobs())
			}
		}
		mu.Lock()
		defer mu.Unlock()
		if !interrupted {
			if err != nil {
				errs = append(errs, err)
			} else {
				out[i] = &f
			}
		}
	})
	select {
	case <-all:
	case <-ctx.Done():
		mu.Lock()
		interrupted = true
		mu.Unlock()
		if !e.quiet {
			fmt.Fprintln(e.stderr, " interrupted")
		}
		return out, ctx.Err()
	}
	if len(errs) > 0 {
		if !e.quiet {
			fmt.Fprintln(e.stderr)
		}
		return out, errs[0]
	}
	if !e.quiet {
		fmt.Fprintf(e.stderr, " %.1f s\n", time.Since(start).Seconds())
	}
	return out, nil
}
