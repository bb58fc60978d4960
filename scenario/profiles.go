package scenario

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sim"
)

// Profile is a named cost model (cluster.profile): the values of the
// costs beyond bandwidth (docs/model.md) a cluster of one kind has, each
// with its source. A scenario's own fields override a profile's values.
//
// Every value comes from a drive's data sheet, a published measurement or
// the defaults of the Hadoop version named; none was chosen for what it
// does to a policy's results.
type Profile struct {
	Name string
	// What in words, for docs and errors.
	What string
	// Disk is the nodes' disk; nil keeps cluster.disk_mbps.
	Disk *cluster.Disk
	// The engine's cost settings (sim.Params); zero values are not set.
	HeartbeatS           float64
	TaskStartupS         float64
	SortBufferMB         float64
	MergeFactor          int
	ReduceBufferMB       float64
	LaunchesPerHeartbeat int
	Speculative          bool
	// Sources names where each value comes from, by setting path.
	Sources map[string]string
}

// FluidProfile is the default profile: bandwidth only, the model every
// run had before the costs; no value of the scenario changes.
const FluidProfile = "fluid"

// The sources the profiles share.
const (
	srcHDDSeq    = "Seagate Barracuda XT (ST32000641AS) data sheet: sustained data rate 138 MB/s (outer zone), a 7200 rpm 2 TB SATA drive"
	srcHDDSeek   = "HGST Ultrastar 7K4000 specification (rev. 1.8), table 6: average read seek 8.2 ms (typical), plus the average rotational latency of a 7200 rpm drive, half a revolution, 4.17 ms (the Barracuda XT sheet: 4.16 ms)"
	srcChunk     = "Hadoop reads ahead 4 MiB of the file a stream reads: map outputs served to the shuffle (mapreduce.shuffle.readahead.bytes, 4194304, TaskTracker and ShuffleHandler), spill and merge files (mapreduce.ifile.readahead.bytes, 4194304, mapred-default.xml) and HDFS blocks (dfs.datanode.readahead.bytes, 4 MiB, hdfs-default.xml)"
	srcStartup   = "Qubole, \"Re-using JVMs across Hadoop jobs\" (2014): launching a new JVM for a task and loading its classes takes 4 to 8 s; the low end. Hadoop 1 starts a JVM a task (mapred.job.reuse.jvm.num.tasks 1), Hadoop 2 a container and JVM a task"
	srcSort      = "io.sort.mb 100 (Hadoop 1.2.1 mapred-default.xml); mapreduce.task.io.sort.mb 100 in Hadoop 2"
	srcFactor    = "io.sort.factor 10 (Hadoop 1.2.1 mapred-default.xml); mapreduce.task.io.sort.factor 10 in Hadoop 2"
	srcReduceBuf = "mapred.job.shuffle.input.buffer.percent 0.70 (mapreduce.reduce.shuffle.input.buffer.percent in Hadoop 2) of the task heap, 200 MiB (mapred.child.java.opts -Xmx200m, mapred-default.xml of Hadoop 1.2.1 and 2.x): 140 MiB"
	srcSSD       = "Intel SSD DC S3700 product specification: sustained sequential write up to 460 MB/s, read up to 500 MB/s; the lower, as one link carries both"
)

// hddSources are the sources of the hdd profiles' disk; taskSources those
// of the task costs every profile but fluid has.
var (
	hddSources  = map[string]string{"cluster.disk.seq_mbps": srcHDDSeq, "cluster.disk.seek_ms": srcHDDSeek, "cluster.disk.chunk_kb": srcChunk}
	taskSources = map[string]string{"engine.task_startup_s": srcStartup, "engine.sort_buffer_mb": srcSort, "engine.merge_factor": srcFactor, "engine.reduce_buffer_mb": srcReduceBuf}
)

// sources is a profile's sources: the shared ones and its own, merged.
func sources(parts ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, p := range parts {
		maps.Copy(out, p)
	}
	return out
}

// hdd is the hard disk of the hdd profiles.
var hdd = cluster.Disk{Kind: cluster.DiskHDD, SeqMBps: 138, SeekMs: 12.4, ChunkKB: 4096}

// profiles are the cost models, by name.
var profiles = []Profile{
	{Name: FluidProfile, What: "bandwidth only: disks, NICs and uplinks as ideal links, no task start-up, spills, merges, launch limits or speculation (the default)"},
	{
		Name: "hadoop1-hdd", What: "Hadoop 1.2.1 (JobTracker, Fair Scheduler) on 7200 rpm SATA disks",
		Disk: &hdd, TaskStartupS: 4, SortBufferMB: 100, MergeFactor: 10, ReduceBufferMB: 140, Speculative: true,
		Sources: sources(hddSources, taskSources, map[string]string{
			"engine.reduce_input_buffer_mb": "mapred.job.reduce.input.buffer.percent 0.0 (Hadoop 1.2.1 mapred-default.xml): the engine's default",
			"engine.launches_per_heartbeat": "no limit: Hadoop 1.2.1's Fair Scheduler assigns as many tasks a heartbeat as the node has free slots (mapred.fairscheduler.assignmultiple true, assignmultiple.maps and .reduces -1, FairScheduler.java)",
			"engine.speculative":            "mapred.map.tasks.speculative.execution true (Hadoop 1.2.1 mapred-default.xml); the rule of TaskInProgress.hasSpeculativeTask",
			"engine.heartbeat_s":            "the engine's 3 s; Hadoop 1.2.1 heartbeats every max(0.3 s, nodes / 100 s) (JobTracker.getNextHeartbeatInterval), which a scenario may set",
		}),
	},
	{
		Name: "yarn-hdd", What: "Hadoop 2 MapReduce on YARN (Fair Scheduler) on 7200 rpm SATA disks",
		Disk: &hdd, HeartbeatS: 1, TaskStartupS: 4, SortBufferMB: 100, MergeFactor: 10, ReduceBufferMB: 140, LaunchesPerHeartbeat: 1,
		Sources: sources(hddSources, taskSources, map[string]string{
			"engine.reduce_input_buffer_mb": "mapreduce.reduce.input.buffer.percent 0.0 (Hadoop 2 mapred-default.xml): the engine's default",
			"engine.launches_per_heartbeat": "YARN's Fair Scheduler assigns one container a node heartbeat (yarn.scheduler.fair.assignmultiple false, FairSchedulerConfiguration)",
			"engine.heartbeat_s":            "yarn.resourcemanager.nodemanagers.heartbeat-interval-ms 1000 (yarn-default.xml)",
			"engine.speculative":            "off: Hadoop 2's MapReduce speculates by DefaultSpeculator's estimated finish times, a rule the model does not implement",
		}),
	},
	{
		Name: "ssd", What: "as yarn-hdd, on solid-state disks",
		Disk: &cluster.Disk{Kind: cluster.DiskSSD, SeqMBps: 460}, HeartbeatS: 1, TaskStartupS: 4, SortBufferMB: 100, MergeFactor: 10, ReduceBufferMB: 140, LaunchesPerHeartbeat: 1,
		Sources: sources(taskSources, map[string]string{
			"cluster.disk.seq_mbps":         srcSSD,
			"engine.reduce_input_buffer_mb": "mapreduce.reduce.input.buffer.percent 0.0: the engine's default",
			"engine.launches_per_heartbeat": "as yarn-hdd", "engine.heartbeat_s": "as yarn-hdd", "engine.speculative": "as yarn-hdd",
		}),
	},
}

// Profiles returns the cost models, fluid first.
func Profiles() []Profile { return slices.Clone(profiles) }

// ProfileNames lists the profiles' names.
func ProfileNames() []string {
	names := make([]string, len(profiles))
	for i, p := range profiles {
		names[i] = p.Name
	}
	return names
}

// LookupProfile returns the profile named name ("" is fluid).
func LookupProfile(name string) (Profile, bool) {
	if name == "" {
		name = FluidProfile
	}
	for _, p := range profiles {
		if p.Name == name {
			return p, true
		}
	}
	return Profile{}, false
}

// Apply gives a cluster and engine made in Go the profile's costs: every
// cost setting they leave at zero takes the profile's value, as a
// scenario file's absent fields do (a false Speculative takes the
// profile's). The disk becomes the profile's, its rate the cluster's
// disk_mbps. Fluid changes nothing.
func (p Profile) Apply(cl *cluster.Config, eng *sim.Params) {
	if p.Disk != nil && cl.Disk == nil {
		d := *p.Disk
		cl.Disk, cl.DiskMBps = &d, d.SeqMBps
	}
	setF := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	setF(&eng.HeartbeatS, p.HeartbeatS)
	setF(&eng.TaskStartupS, p.TaskStartupS)
	setF(&eng.SortBufferMB, p.SortBufferMB)
	setF(&eng.ReduceBufferMB, p.ReduceBufferMB)
	if eng.MergeFactor == 0 {
		eng.MergeFactor = p.MergeFactor
	}
	if eng.LaunchesPerHeartbeat == 0 {
		eng.LaunchesPerHeartbeat = p.LaunchesPerHeartbeat
	}
	eng.Speculative = eng.Speculative || p.Speculative
}

// resolveProfile fills the fields the scenario leaves out with its
// profile's values, once. A field the file writes keeps its value; in a
// Config made in Go, which records no written fields, a non-zero field
// does (a false speculative cannot override a profile's true there).
// "fluid" is recorded as no profile: the fluid model is the one every run
// without a profile has, byte for byte.
func (c *Config) resolveProfile() error {
	if c.profiled {
		return nil
	}
	prof, ok := LookupProfile(c.Cluster.Profile)
	if !ok {
		return fmt.Errorf("cluster.profile: %q is not a profile; want one of %s", c.Cluster.Profile, strings.Join(ProfileNames(), ", "))
	}
	c.profiled = true
	if prof.Name == FluidProfile {
		c.Cluster.Profile = ""
		return nil
	}
	if prof.Disk != nil {
		if c.set("cluster.disk_mbps") && !c.set("cluster.disk.seq_mbps") {
			return fmt.Errorf("cluster.disk_mbps: profile %s models the disk as cluster.disk, whose rate is seq_mbps: set cluster.disk.seq_mbps instead", prof.Name)
		}
		d := cluster.Disk{}
		if c.Cluster.Disk != nil {
			d = *c.Cluster.Disk
		}
		fill(c, "cluster.disk.kind", &d.Kind, prof.Disk.Kind)
		fill(c, "cluster.disk.seq_mbps", &d.SeqMBps, prof.Disk.SeqMBps)
		// A head's seek and chunk apply to an hdd only: a scenario that
		// makes the profile's hdd an ssd leaves them out.
		if d.Kind == prof.Disk.Kind {
			fill(c, "cluster.disk.seek_ms", &d.SeekMs, prof.Disk.SeekMs)
			fill(c, "cluster.disk.chunk_kb", &d.ChunkKB, prof.Disk.ChunkKB)
		}
		c.Cluster.Disk = &d
	}
	e := &c.Engine
	fill(c, "engine.heartbeat_s", &e.HeartbeatS, prof.HeartbeatS)
	fill(c, "engine.task_startup_s", &e.TaskStartupS, prof.TaskStartupS)
	fill(c, "engine.sort_buffer_mb", &e.SortBufferMB, prof.SortBufferMB)
	fill(c, "engine.merge_factor", &e.MergeFactor, prof.MergeFactor)
	fill(c, "engine.reduce_buffer_mb", &e.ReduceBufferMB, prof.ReduceBufferMB)
	fill(c, "engine.launches_per_heartbeat", &e.LaunchesPerHeartbeat, prof.LaunchesPerHeartbeat)
	fill(c, "engine.speculative", &e.Speculative, prof.Speculative)
	return nil
}

// fill gives a setting the profile's value v where the scenario left it
// zero and did not write it (a written zero is refused or means zero).
func fill[T comparable](c *Config, path string, dst *T, v T) {
	var zero T
	if *dst == zero && !c.set(path) {
		*dst = v
	}
}
