package worker

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"syscall"
	"time"
)

// DumpSignal makes a worker, or a run, write every goroutine's stack to a
// file and go on (SIGQUIT would end the process, as Go's runtime handles
// it).
const DumpSignal = syscall.SIGUSR1

// WriteGoroutines writes every goroutine's stack to dir/name-TIME.txt
// and returns the file's path.
func WriteGoroutines(dir, name string) (string, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%s.txt", name, time.Now().Format("20060102T150405.000")))
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	err = pprof.Lookup("goroutine").WriteTo(f, 2)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return path, err
}

// dump writes the worker's goroutines into its log directory; it reports
// a failure on its standard error, which the run keeps in its log.
func (w *Worker) dump(name string) {
	if name == "" {
		name = "goroutines"
	}
	path, err := WriteGoroutines(w.setup.LogDir, fmt.Sprintf("%s-node%d", name, w.setup.Node))
	if err != nil {
		fmt.Fprintf(os.Stderr, "worker %d: goroutine dump: %v\n", w.setup.Node, err)
		return
	}
	fmt.Fprintf(os.Stderr, "worker %d: goroutines written to %s\n", w.setup.Node, path)
}

// dumpOnSignal dumps the worker's goroutines at every DumpSignal, until
// the returned function is called.
func (w *Worker) dumpOnSignal() func() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, DumpSignal)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-ch:
				w.dump("goroutines")
			case <-done:
				return
			}
		}
	}()
	return func() { signal.Stop(ch); close(done) }
}
