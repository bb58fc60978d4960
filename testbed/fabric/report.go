package fabric

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// Report says what a fabric actually uses, for a run's output: the kernel
// decides some of it (which qdiscs exist, the congestion control), so a
// result should carry it.
type Report struct {
	RunID  string `json:"run_id"`
	Subnet string `json:"subnet"`
	// Netns lists the fabric's named namespaces (under /run/netns).
	Netns []string `json:"netns"`
	// KernelQdiscs lists the qdiscs the kernel offers (see Available).
	KernelQdiscs []string `json:"kernel_qdiscs"`
	// Links says, per kind of link, what shapes it and with which parameters.
	Links []LinkSetting `json:"links"`
	// Offloads says which offloads are off on every veth end, and why.
	Offloads string `json:"offloads"`
	// HopDelayRequested is Spec.HopDelay; HopDelayApplied is the delay each
	// shaped link adds (0 without netem); DelayNote says why.
	HopDelayRequested time.Duration `json:"hop_delay_requested_ns"`
	HopDelayApplied   time.Duration `json:"hop_delay_applied_ns"`
	DelayNote         string        `json:"delay_note"`
	// CongestionControl is the TCP congestion control in the node namespaces.
	CongestionControl string `json:"congestion_control"`
	// Notes are anything else a reader of the results should know.
	Notes []string `json:"notes,omitempty"`
}

// LinkSetting is how one kind of link is shaped.
type LinkSetting struct {
	Kind       LinkKind `json:"kind"`
	BitsPerSec float64  `json:"bits_per_sec"`
	// Qdisc is the qdisc chain in tc's words, for example
	// "htb rate 20Mbit ceil 20Mbit burst 1514b quantum 1514 -> pfifo limit 100".
	Qdisc string `json:"qdisc"`
}

// Used reports what the fabric uses.
func (f *Fabric) Used() Report {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.report
	r.Netns = append([]string(nil), r.Netns...)
	r.Links = append([]LinkSetting(nil), r.Links...)
	r.Notes = append([]string(nil), r.Notes...)
	return r
}

func (f *Fabric) makeReport(feats Features) Report {
	r := Report{
		RunID:             f.runID,
		Subnet:            f.subnet.String(),
		KernelQdiscs:      feats.Qdiscs,
		HopDelayRequested: f.spec.HopDelay,
		Offloads: "tso, gso and gro off and gso_max_segs 1 on every veth end, so that every queue holds and every " +
			"shaper counts wire-sized frames (at most " + fmt.Sprint(FrameBytes) + " bytes), not 64 KB aggregates",
	}
	for _, sp := range f.all {
		r.Netns = append(r.Netns, sp.name)
	}
	leafDesc := fmt.Sprintf("%s limit %d", f.leaf.kind, f.leaf.limit)
	if f.leaf.kind == "bfifo" {
		leafDesc += "b"
	}
	if f.leaf.kind == "netem" {
		leafDesc = fmt.Sprintf("netem delay %v limit %d", f.leaf.latency, f.leaf.limit)
		r.HopDelayApplied = f.leaf.latency
		r.DelayNote = "netem under each HTB class delays every frame on every shaped link"
	} else if f.spec.HopDelay > 0 {
		r.DelayNote = "not applied: the kernel has no netem qdisc; paths have only the kernel's own (microsecond) latency plus queueing"
	} else {
		r.DelayNote = "none requested"
	}
	if f.spec.QueueBytes > 0 && f.leaf.kind == "netem" {
		r.Notes = append(r.Notes, fmt.Sprintf("netem counts its queue in frames: QueueBytes %d became %d frames", f.spec.QueueBytes, f.leaf.limit))
	}
	for _, k := range []LinkKind{NICUp, NICDown, UplinkUp, UplinkDown} {
		rate := f.spec.NICBitsPerSec
		if k == UplinkUp || k == UplinkDown {
			rate = f.spec.UplinkBitsPerSec
		}
		r.Links = append(r.Links, LinkSetting{Kind: k, BitsPerSec: rate,
			Qdisc: fmt.Sprintf("htb rate %s ceil %s burst %db quantum %d -> %s", tcRate(rate), tcRate(rate), htbBurst, htbQuantum, leafDesc)})
	}
	r.CongestionControl = "unknown"
	if len(f.nodes) > 0 {
		inNetns(f.nodes[0].h, func() error {
			b, err := os.ReadFile("/proc/sys/net/ipv4/tcp_congestion_control")
			if err == nil {
				r.CongestionControl = strings.TrimSpace(string(b))
			}
			return err
		})
	}
	return r
}

// tcRate writes a rate the way tc does.
func tcRate(bitsPerSec float64) string {
	switch {
	case bitsPerSec >= 1e9:
		return fmt.Sprintf("%gGbit", bitsPerSec/1e9)
	case bitsPerSec >= 1e6:
		return fmt.Sprintf("%gMbit", bitsPerSec/1e6)
	case bitsPerSec >= 1e3:
		return fmt.Sprintf("%gKbit", bitsPerSec/1e3)
	}
	return fmt.Sprintf("%gbit", bitsPerSec)
}
