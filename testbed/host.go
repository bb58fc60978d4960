package testbed

import (
	"bufio"
	"bytes"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// HostUse is how hard the host worked during a run. An emulation starved
// of CPU measures the host, not the network: a run whose cores were
// saturated, or whose master sampled late, is not ground truth, and
// testbed.json says so with these figures.
type HostUse struct {
	CPUs int `json:"cpus"`
	// BusyMean is each core's busy fraction over the run (user, system,
	// interrupts; not idle or I/O wait), counting work at any priority.
	BusyMean []float64 `json:"busy_mean"`
	// UnniceMean is each core's busy fraction leaving out work at a
	// lowered priority (nice): work the testbed's processes, at normal
	// priority, take the CPU from at once.
	UnniceMean []float64 `json:"unnice_mean"`
	// NicedMean is each core's fraction spent on work at a lowered
	// priority: other work, since the testbed runs at normal priority.
	// Niced work still costs the emulation: one CUBIC flow across a
	// 10 Mbit/s shaped uplink carried 1-6% less than the link's rate with
	// niced simulations on both cores of a 2-core host, and 0-1.3% less
	// on a quiet one (docs/testbed.md, The host).
	NicedMean []float64 `json:"niced_mean"`
	// UnniceP95 is the 95th percentile, over one-second samples, of the
	// mean un-niced busy fraction of all cores.
	UnniceP95 float64 `json:"unnice_p95"`
	// SaturatedShare is the share of one-second samples in which every
	// core was at least 95% busy with un-niced work.
	SaturatedShare float64 `json:"saturated_share"`
	// PeakRSSMB is the largest resident memory of the master and its
	// workers together over the samples, MB.
	PeakRSSMB float64 `json:"peak_rss_mb"`
	Samples   int     `json:"samples"`
}

type hostMonitor struct {
	pids func() []int
	stop chan struct{}
	done chan HostUse
}

func startHostMonitor(pids func() []int) *hostMonitor {
	h := &hostMonitor{pids: pids, stop: make(chan struct{}), done: make(chan HostUse, 1)}
	go h.run()
	return h
}

// Stop ends the sampling and returns what it saw.
func (h *hostMonitor) Stop() HostUse {
	close(h.stop)
	return <-h.done
}

func (h *hostMonitor) run() {
	first, _ := readCPUTimes()
	prev := first
	var means, sat []float64
	var peak float64
	t := time.NewTicker(time.Second)
	defer t.Stop()
	sample := func() {
		cur, err := readCPUTimes()
		if err != nil || len(cur) != len(prev) {
			return
		}
		all := true
		sum := 0.0
		for i := range cur {
			b := unnice(prev[i], cur[i])
			sum += b
			if b < 0.95 {
				all = false
			}
		}
		if len(cur) > 0 {
			means = append(means, sum/float64(len(cur)))
		}
		if all {
			sat = append(sat, 1)
		} else {
			sat = append(sat, 0)
		}
		prev = cur
		rss := rssMB(os.Getpid())
		for _, p := range h.pids() {
			rss += rssMB(p)
		}
		peak = max(peak, rss)
	}
	for {
		select {
		case <-t.C:
			sample()
		case <-h.stop:
			sample()
			u := HostUse{CPUs: len(first), PeakRSSMB: peak, Samples: len(means)}
			if last, err := readCPUTimes(); err == nil && len(last) == len(first) {
				for i := range last {
					u.BusyMean = append(u.BusyMean, busy(first[i], last[i]))
					u.UnniceMean = append(u.UnniceMean, unnice(first[i], last[i]))
					u.NicedMean = append(u.NicedMean, niced(first[i], last[i]))
				}
			}
			if len(means) > 0 {
				slices.Sort(means)
				u.UnniceP95 = means[min(len(means)-1, int(0.95*float64(len(means))))]
				n := 0.0
				for _, s := range sat {
					n += s
				}
				u.SaturatedShare = n / float64(len(sat))
			}
			h.done <- u
			return
		}
	}
}

// cpuTimes is one core's jiffies: busy (of which nice) and total.
type cpuTimes struct{ busy, nice, total uint64 }

func busy(a, b cpuTimes) float64 {
	if b.total <= a.total {
		return 0
	}
	return float64(b.busy-a.busy) / float64(b.total-a.total)
}

func unnice(a, b cpuTimes) float64 {
	if b.total <= a.total {
		return 0
	}
	return float64((b.busy-b.nice)-(a.busy-a.nice)) / float64(b.total-a.total)
}

func niced(a, b cpuTimes) float64 {
	if b.total <= a.total {
		return 0
	}
	return float64(b.nice-a.nice) / float64(b.total-a.total)
}

// NicedShare is the mean over cores of NicedMean: the share of the
// host's CPU time that niced, so other, work took during the run.
func (u HostUse) NicedShare() float64 {
	var n float64
	for _, x := range u.NicedMean {
		n += x
	}
	if len(u.NicedMean) == 0 {
		return 0
	}
	return n / float64(len(u.NicedMean))
}

// NicedWarnShare is the NicedShare above which the testbed and validate
// warn that the run was not taken on a quiet host.
const NicedWarnShare = 0.05

// readCPUTimes reads each core's line of /proc/stat.
func readCPUTimes() ([]cpuTimes, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return nil, err
	}
	var out []cpuTimes
	s := bufio.NewScanner(bytes.NewReader(b))
	for s.Scan() {
		f := strings.Fields(s.Text())
		if len(f) < 8 || !strings.HasPrefix(f[0], "cpu") || f[0] == "cpu" {
			continue
		}
		var v [10]uint64
		for i := 1; i < len(f) && i <= 10; i++ {
			v[i-1], _ = strconv.ParseUint(f[i], 10, 64)
		}
		// user nice system idle iowait irq softirq steal guest guest_nice;
		// guest time is already in user.
		total := v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7]
		idle := v[3] + v[4]
		out = append(out, cpuTimes{busy: total - idle, nice: v[1], total: total})
	}
	return out, nil
}

// rssMB is a process's resident memory in MB, 0 if it is gone.
func rssMB(pid int) float64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				kb, _ := strconv.ParseFloat(f[0], 64)
				return kb / 1024
			}
		}
	}
	return 0
}

// mutexPids is a set of worker pids safe to read while workers start.
type mutexPids struct {
	mu sync.Mutex
	p  []int
}

func (m *mutexPids) add(p int) {
	m.mu.Lock()
	m.p = append(m.p, p)
	m.mu.Unlock()
}

func (m *mutexPids) list() []int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.p)
}
