//go:build !unix

package main

import (
	"runtime"
	"time"
)

var processStart = time.Now()

// cpuSeconds is, where the process's CPU time cannot be read, its wall
// time times the cores it may use: an upper bound of its CPU time.
func cpuSeconds() float64 {
	return time.Since(processStart).Seconds() * float64(runtime.GOMAXPROCS(0))
}
