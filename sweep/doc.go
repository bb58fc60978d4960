// Package sweep runs one scenario over a grid of settings, policies and
// seeds, on this machine or on an engine that runs indexed tasks (a Slurm
// job array, a Kubernetes Indexed Job), and collects the runs as means and
// standard errors over the seeds.
//
// A Grid (a grid file) names a base scenario, policies, seeds and axes
// that set scenario fields by path. Grid.Write plans it into a directory:
// one scenario file a run, checked before anything runs. Sweep.Execute
// runs one run by its index and writes its outputs whole or not at all, so
// that an interrupted sweep resumes where it stopped; Sweep.RunAll runs
// the unfinished ones here. Sweep.Collect reads the finished runs back,
// refusing runs that are not the plan's, and renders them as a table, CSV
// and an HTML page; package rundb writes them to SQLite. Parallel is how
// independent simulations, a sweep's or an experiment's, run a few at a
// time. docs/sweeps.md describes the files and commands.
package sweep
