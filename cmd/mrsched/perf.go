package main

import "github.com/mrsched/mrsched/rundir"

// perfReport is what a run cost on this machine (rundir.Perf).
var perfReport = rundir.NewPerf
