//go:build unix

package sched_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time this process has used: benchmarks report it
// beside wall time because on a shared machine wall time includes waiting
// for a core.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
