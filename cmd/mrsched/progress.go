package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mrsched/mrsched/scenario"
)

// progress shows how far a long command has got, on stderr: on a
// terminal, a bar redrawn in place with an estimate of the time left; to a
// file or pipe, one plain line per ten percent, so that a log stays short.
// Wall-clock time is read only to show the estimate; it never reaches a
// simulation.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	off   bool
	label string
	// tasks: one per simulation (fraction done, jobs finished of total),
	// or a single counter of simulations done (experiments).
	frac       []float64
	jobs, tot  []int
	first, end float64 // the scenario's first and last submit; end <= first: unknown
	counter    bool
	start      time.Time
	lastDraw   time.Time
	nextTenth  int
	drawn      bool
	clock      func() time.Time
}

// jobSpan is what progress knows of a scenario's jobs before it runs.
type jobSpan struct {
	first, last float64 // submit times; last <= first: unknown
	jobs        int
}

// newProgress returns a progress display for n simulations of one
// workload (see workloadOf); with a zero workload progress counts jobs
// alone.
func newProgress(w io.Writer, label string, n int, wl jobSpan, quiet bool) *progress {
	p := &progress{w: w, tty: isTerminal(w), off: quiet, label: label,
		frac: make([]float64, n), jobs: make([]int, n), tot: make([]int, n),
		first: wl.first, end: wl.last, start: time.Now(), nextTenth: 1, clock: time.Now}
	for i := range p.tot {
		p.tot[i] = wl.jobs
	}
	return p
}

// newCounter returns a progress display that counts simulations done.
func newCounter(w io.Writer, label string, quiet bool) *progress {
	p := newProgress(w, label, 1, jobSpan{}, quiet)
	p.counter = true
	return p
}

// isTerminal reports whether w is a terminal: a character device (a
// terminal, or /dev/null, where a bar costs nothing). Pipes and files are
// not.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// workloadOf is c's first and last submit times and job count, for an
// estimate of the time left; zero if the workload cannot be built (the
// run itself will then say why). Building the jobs takes tens of
// milliseconds for the embedded day-long traces. The jobs are built on
// the scenario's own cluster, as its runs build them: a trace's hosts are
// placed on it, and what cannot be is warned of once, for the runs.
func workloadOf(c *scenario.Config) jobSpan {
	t, err := c.Topology()
	if err != nil {
		return jobSpan{}
	}
	jobs, err := c.Jobs(t)
	if err != nil || len(jobs) == 0 {
		return jobSpan{}
	}
	return jobSpan{jobs[0].Submit, jobs[len(jobs)-1].Submit, len(jobs)}
}

// fraction is how far a simulation has got: the mean of the simulated
// time done over the submission span and the jobs finished. Time alone
// stalls at the end while the last jobs drain; jobs alone lag on a busy
// cluster; their mean reaches 1 exactly when the run ends.
func (p *progress) fraction(now float64, finished, total int) float64 {
	jf := 1.0
	if total > 0 {
		jf = float64(finished) / float64(total)
	}
	if p.end <= p.first {
		return jf
	}
	tf := math.Min(1, math.Max(0, (now-p.first)/(p.end-p.first)))
	return (tf + jf) / 2
}

// sim records simulation i's progress (an engine progress callback).
func (p *progress) sim(i int, now float64, finished, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.off {
		return
	}
	p.frac[i] = p.fraction(now, finished, total)
	p.jobs[i], p.tot[i] = finished, total
	p.show(false)
}

// count records done of total simulations (an experiment's callback).
func (p *progress) count(done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.off {
		return
	}
	if total > 0 {
		p.frac[0] = float64(done) / float64(total)
	}
	p.jobs[0], p.tot[0] = done, total
	p.show(false)
}

func (p *progress) overall() float64 {
	s := 0.0
	for _, f := range p.frac {
		s += f
	}
	return s / float64(len(p.frac))
}

// show draws the bar (at most five times a second) or prints the next
// tenth's line.
func (p *progress) show(final bool) {
	f := p.overall()
	now := p.clock()
	if p.tty {
		if !final && p.drawn && now.Sub(p.lastDraw) < 200*time.Millisecond {
			return
		}
		p.lastDraw, p.drawn = now, true
		fmt.Fprintf(p.w, "\r%s %s%s\x1b[K", p.label, bar(f, 24), p.status(f, now))
		return
	}
	if int(f*10) < p.nextTenth || f >= 1 && !final {
		return
	}
	for p.nextTenth <= int(f*10) {
		p.nextTenth++
	}
	fmt.Fprintf(p.w, "%s:%s\n", p.label, p.status(f, now))
}

// status is the percentage, the estimate of the time left and the work done.
func (p *progress) status(f float64, now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, " %3.0f%%", 100*f)
	el := now.Sub(p.start)
	if f >= 0.02 && f < 1 {
		left := time.Duration(float64(el) * (1 - f) / f)
		fmt.Fprintf(&b, ", about %s left", short(left))
	}
	if f < 1 {
		fmt.Fprintf(&b, " (%s elapsed", short(el))
	} else {
		fmt.Fprintf(&b, " (done in %s", short(el))
	}
	done, total := 0, 0
	for i := range p.jobs {
		done, total = done+p.jobs[i], total+p.tot[i]
	}
	what := "jobs finished"
	if p.counter {
		what = "simulations"
	}
	if total > 0 {
		fmt.Fprintf(&b, "; %d/%d %s", done, total, what)
	}
	if n := len(p.frac); n > 1 {
		fin := 0
		for _, x := range p.frac {
			if x >= 1 {
				fin++
			}
		}
		fmt.Fprintf(&b, "; %d/%d runs done", fin, n)
	}
	b.WriteString(")")
	return b.String()
}

// finish ends the display: the bar's last state and a newline on a
// terminal, a closing line otherwise.
func (p *progress) finish() {
	if p.off {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range p.frac {
		p.frac[i] = 1
	}
	if p.tty {
		p.show(true)
		fmt.Fprintln(p.w)
		return
	}
	p.nextTenth = 10
	p.show(true)
}

// abandon ends the display of runs cut short, without claiming they
// finished: the bar's line is ended on a terminal, and nothing more is
// shown.
func (p *progress) abandon() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.off && p.tty && p.drawn {
		fmt.Fprintln(p.w)
	}
	p.off = true
}

func bar(f float64, width int) string {
	n := int(math.Round(f * float64(width)))
	n = min(max(n, 0), width)
	return "[" + strings.Repeat("#", n) + strings.Repeat(".", width-n) + "]"
}

// short formats a duration to the second, or to the tenth under a minute.
func short(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Round(time.Second).String()
}
