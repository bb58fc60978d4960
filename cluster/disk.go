package cluster

import (
	"fmt"
	"math"
)

// Disk describes each node's disk as a device rather than a bandwidth: a
// scenario's `cluster.disk`. Without it a node's disk is an ideal link of
// DiskMBps that any number of streams share at full speed.
//
// A hard disk (Kind "hdd") serves one sequential stream at SeqMBps. With
// two or more streams interleaved it reads (or writes) ChunkKB of one,
// then moves its head to the next, which costs SeekMs (a seek and half a
// rotation on average), so its aggregate rate is
//
//	chunk / (chunk/seq + seek)
//
// whatever the number of streams beyond one (each switch costs one seek).
// A solid-state disk (Kind "ssd") has no head: it gives SeqMBps to any
// number of streams. Every stream counts, however slowly it reads: see
// network.SetStreamCapacity for how the rate is shared.
type Disk struct {
	// Kind is "hdd" or "ssd".
	Kind string `yaml:"kind" json:"kind"`
	// SeqMBps is the sequential rate in MB/s (10^6 bytes a second), as
	// drive data sheets quote it.
	SeqMBps float64 `yaml:"seq_mbps" json:"seq_mbps"`
	// SeekMs is the time in milliseconds to move from one stream to
	// another: average seek plus average rotational latency (hdd only).
	SeekMs float64 `yaml:"seek_ms" json:"seek_ms,omitempty"`
	// ChunkKB is how much one stream reads or writes, in KiB (1024
	// bytes), before the head moves to the next (hdd only): the
	// readahead Hadoop asks of the kernel for HDFS blocks, shuffle files
	// and spill files.
	ChunkKB float64 `yaml:"chunk_kb" json:"chunk_kb,omitempty"`
}

// Disk kinds.
const (
	DiskHDD = "hdd"
	DiskSSD = "ssd"
)

// Limits of a disk's settings. Like the others they refuse typos, not
// hardware: a seek of a second, a chunk of a GiB.
const (
	MaxSeekMs  = 1000.0
	MinChunkKB = 1.0
	MaxChunkKB = 1 << 20
)

// Validate reports the first impossible disk setting, naming its field.
func (d *Disk) Validate() error {
	switch d.Kind {
	case DiskHDD:
		if d.SeekMs == 0 && d.ChunkKB == 0 {
			return fmt.Errorf("cluster.disk.seek_ms: required for an hdd (with chunk_kb), or choose a cluster.profile that sets them")
		}
		if !(d.SeekMs >= 0 && d.SeekMs <= MaxSeekMs) {
			return fmt.Errorf("cluster.disk.seek_ms: %v; want a number from 0 to %v (ms)", d.SeekMs, MaxSeekMs)
		}
		if !(d.ChunkKB >= MinChunkKB && d.ChunkKB <= MaxChunkKB) {
			return fmt.Errorf("cluster.disk.chunk_kb: %v; want a number from %v to %v (KiB), required for an hdd", d.ChunkKB, MinChunkKB, MaxChunkKB)
		}
	case DiskSSD:
		if d.SeekMs != 0 || d.ChunkKB != 0 {
			return fmt.Errorf("cluster.disk: seek_ms and chunk_kb describe a hard disk's head; an ssd has none (leave them out)")
		}
	case "":
		return fmt.Errorf("cluster.disk.kind: required, %q or %q", DiskHDD, DiskSSD)
	default:
		return fmt.Errorf("cluster.disk.kind: %q; want %q or %q", d.Kind, DiskHDD, DiskSSD)
	}
	if !(d.SeqMBps >= MinBandwidth && d.SeqMBps <= MaxDiskMBps) {
		return fmt.Errorf("cluster.disk.seq_mbps: %v; want a number from %v to %v (MB/s), required", d.SeqMBps, MinBandwidth, MaxDiskMBps)
	}
	return nil
}

// Bps is the disk's rate with one stream, in bytes a second.
func (d *Disk) Bps() float64 { return d.SeqMBps * 1e6 }

// MultiStreamBps is the disk's aggregate rate with two or more streams, in
// bytes a second: chunk / (chunk/seq + seek) for an hdd, seq for an ssd.
func (d *Disk) MultiStreamBps() float64 {
	seq := d.Bps()
	if d.Kind != DiskHDD || d.SeekMs == 0 {
		return seq
	}
	chunk := d.ChunkKB * 1024
	r := chunk / (chunk/seq + d.SeekMs/1000)
	return math.Min(r, seq)
}
