package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mrsched/mrsched/critpath"
	"github.com/mrsched/mrsched/decisions"
	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/report"
)

// cmdExplain tells one job's story from a run directory: where its time
// went along its critical path, the jobs ahead of it, and, from the run's
// decisions log, where each of its tasks went and why, and which jobs took
// the slots it was passed over for.
func cmdExplain(args []string, stdout, stderr io.Writer) error {
	fset := commandFlags("explain", stderr, "usage: mrsched explain RUN_DIR -job ID|NAME [-decisions FILE] [-tasks N]",
		"  one job of a run (a directory of mrsched simulate or compare -out): where its time went, what it waited behind, where its tasks went and why")
	job := fset.String("job", "", "the job: its id (jobs.csv's id column) or its name (the name column: a traced job's Hadoop id, job_..._0002); required")
	dlogPath := fset.String("decisions", "", "the run's decisions log (simulate -decisions FILE); default RUN_DIR/decisions.jsonl.gz when there is one")
	tasks := fset.Int("tasks", 20, "list at most this many of the job's task launches")
	// RUN_DIR may come before or after the flags.
	if err := fset.Parse(args); err != nil {
		return flagErr(err)
	}
	var dir string
	if fset.NArg() > 0 {
		dir = fset.Arg(0)
		if err := fset.Parse(fset.Args()[1:]); err != nil {
			return flagErr(err)
		}
	}
	if dir == "" || fset.NArg() > 0 {
		fset.Usage()
		return errUsage
	}
	if *job == "" {
		return badUsage("-job: give the job's id (jobs.csv's id column) or its name")
	}
	if *tasks < 0 {
		return badUsage("-tasks: want 0 or more, got %d", *tasks)
	}
	run, err := report.LoadRun(dir)
	if err != nil {
		return err
	}
	if run.Jobs == nil {
		return fmt.Errorf("%s: no jobs.csv", dir)
	}
	i, err := findJob(run.Jobs, *job, filepath.Join(dir, "jobs.csv"))
	if err != nil {
		return err
	}
	if *dlogPath == "" {
		p := filepath.Join(dir, "decisions.jsonl.gz")
		if _, err := os.Stat(p); err == nil {
			*dlogPath = p
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	var w strings.Builder
	r := &run.Jobs[i]
	explainJob(&w, run, r)
	if *dlogPath != "" {
		if err := explainTasks(&w, *dlogPath, r, *tasks); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(&w, "\nWhere its tasks went and why: run mrsched simulate with -decisions FILE, then explain with -decisions FILE.\n")
	}
	_, err = io.WriteString(stdout, w.String())
	return err
}

// findJob is the index in jobs of the job that want names: its id, or
// else its name, which a trace gives (a Hadoop job id); a name two jobs
// share is an error naming their ids. file names jobs.csv in errors.
func findJob(jobs []metrics.JobRecord, want, file string) (int, error) {
	id, numErr := strconv.Atoi(want)
	if numErr == nil {
		if i := slices.IndexFunc(jobs, func(r metrics.JobRecord) bool { return r.ID == id }); i >= 0 {
			return i, nil
		}
	}
	var ids []string
	at := -1
	for i, r := range jobs {
		if r.Name == want {
			ids = append(ids, strconv.Itoa(r.ID))
			at = i
		}
	}
	switch {
	case len(ids) == 1:
		return at, nil
	case len(ids) > 1:
		return -1, fmt.Errorf("%s: %d jobs are named %s (ids %s): give -job the id", file, len(ids), want, strings.Join(ids, ", "))
	case numErr == nil && len(jobs) > 0:
		return -1, fmt.Errorf("%s: no job %d (ids run from %d to %d)", file, id, jobs[0].ID, jobs[len(jobs)-1].ID)
	}
	return -1, fmt.Errorf("%s: no job with the id or name %q", file, want)
}

// explainJob writes job r's line, its time by part and the jobs ahead of
// it when it came.
func explainJob(w io.Writer, run *report.Run, r *metrics.JobRecord) {
	fmt.Fprintf(w, "job %d (%s, %s, user %s, pool %s) under %s: %s, %s, %s input, %s shuffle\n",
		r.ID, r.Name, r.Kind, r.UserText(), r.Pool, run.Summary.Policy, count(r.Maps, "map"), count(r.Reduces, "reduce"), bytesText(r.InputBytes), bytesText(r.ShuffleBytes))
	switch r.Status() {
	case "completed":
		fmt.Fprintf(w, "submitted at %.1f s, first task at %.1f s, finished at %.1f s: turnaround %.1f s\n", r.Submit, r.FirstLaunch, r.Finish, r.Turnaround())
	case "failed":
		fmt.Fprintf(w, "submitted at %.1f s; failed: %s\n", r.Submit, r.Reason)
	default:
		fmt.Fprintf(w, "submitted at %.1f s; not finished when the run ended\n", r.Submit)
	}
	if b := r.Time; b != nil {
		ta := r.Turnaround()
		fmt.Fprintf(w, "\nWhere its time went, along its critical path (docs/time.md):\n")
		for p := range critpath.NumParts {
			v := b.Parts[p]
			if v < 0.0005 {
				continue
			}
			note := ""
			if p == critpath.Held && b.HeldBy != "" {
				note = "  held most by " + b.HeldBy
			}
			fmt.Fprintf(w, "  %-15s %9.1f s  %5.1f%%%s\n", p, v, 100*v/ta, note)
		}
	} else if r.Status() == "completed" {
		fmt.Fprintf(w, "\nThe run did not record where its jobs' time went (metrics.time_breakdown is false).\n")
	}
	// The jobs ahead of it: submitted before it and not finished when it
	// came, the ones a fair or FIFO order weighs it against. jobs.csv
	// does not say when a failed job failed, so failed jobs are left out.
	var ahead, pool int
	for k := range run.Jobs {
		o := &run.Jobs[k]
		if o.ID != r.ID && !o.Failed && o.Submit <= r.Submit && (o.Finish < 0 || o.Finish > r.Submit) {
			ahead++
			if o.Pool == r.Pool {
				pool++
			}
		}
	}
	fmt.Fprintf(w, "\nWhen it was submitted, %d earlier jobs had not finished (failed jobs not counted), %d of them in its pool.\n", ahead, pool)
}

// explainTasks writes where job r's tasks went and why, and the jobs that
// took the offers it was passed over for, from the decisions log at path.
func explainTasks(w io.Writer, path string, r *metrics.JobRecord, limit int) error {
	var launches []decisions.Record
	byRule := map[string]int{}
	passedFor := map[int]int{}    // the launched job, for offers r was passed over for
	passedWhy := map[string]int{} // why, with the numbers in it left out
	passes := 0
	err := decisions.Read(path, func(d *decisions.Record) bool {
		if d.Job == r.ID {
			byRule[d.Rule]++
			if len(launches) < limit {
				launches = append(launches, *d)
			}
			return true
		}
		for _, p := range d.Passed {
			if p.Job == r.ID {
				passes++
				passedFor[d.Job]++
				passedWhy[reasonKind(p.Why)]++
			}
		}
		return true
	})
	if err != nil {
		return err
	}
	total := 0
	for _, n := range byRule {
		total += n
	}
	fmt.Fprintf(w, "\nIts task launches (%s): %d, by rule: %s\n", path, total, countsText(byRule))
	for _, d := range launches {
		task := d.Task
		if d.Map >= 0 {
			task = fmt.Sprintf("map %d", d.Map)
		}
		reach := ""
		if d.Reach != "" {
			reach = ", input " + d.Reach
		}
		ahead := ""
		if len(d.Passed) > 0 {
			ahead = fmt.Sprintf("; %d other jobs passed over", len(d.Passed)+d.MorePassed)
		}
		fmt.Fprintf(w, "  %10.1f s  %-10s on %s (%s slot%s): %s%s\n", d.T, task, d.Node, d.Slot, reach, d.Rule, ahead)
	}
	if total > len(launches) {
		fmt.Fprintf(w, "  ... %d more (-tasks N lists more)\n", total-len(launches))
	}
	if passes == 0 {
		fmt.Fprintf(w, "\nIt was never passed over for a launch.\n")
		return nil
	}
	ids := make([]int, 0, len(passedFor))
	for id := range passedFor {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b int) int { return cmp.Or(cmp.Compare(passedFor[b], passedFor[a]), cmp.Compare(a, b)) })
	var top []string
	for _, id := range ids[:min(len(ids), 8)] {
		top = append(top, fmt.Sprintf("job %d (%d)", id, passedFor[id]))
	}
	more := ""
	if len(ids) > 8 {
		more = fmt.Sprintf(" and %d more jobs", len(ids)-8)
	}
	fmt.Fprintf(w, "\nIt was passed over for %d launches; they went to %s%s.\nWhy it was passed over: %s\n", passes, strings.Join(top, ", "), more, countsText(passedWhy))
	return nil
}

// reasonKind is a pass's reason without its numbers, so that reasons of
// one kind count together.
func reasonKind(why string) string {
	if strings.HasPrefix(why, "ranked below job ") {
		return "ranked below the launched job"
	}
	if i := strings.IndexAny(why, ";(,"); i > 0 {
		why = why[:i]
	}
	return strings.TrimSpace(why)
}

// countsText lists counts, largest first.
func countsText(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(cmp.Compare(m[b], m[a]), strings.Compare(a, b)) })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// bytesText is a byte count in the unit that reads best.
func bytesText(b int64) string {
	switch {
	case b >= 1e12:
		return fmt.Sprintf("%.1f TB", float64(b)/1e12)
	case b >= 1e9:
		return fmt.Sprintf("%.1f GB", float64(b)/1e9)
	case b >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(b)/1e6)
	case b >= 1e3:
		return fmt.Sprintf("%.1f kB", float64(b)/1e3)
	}
	return fmt.Sprintf("%d B", b)
}
