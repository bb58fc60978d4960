package allocations

import (
	"math"
	"strconv"
	"strings"
)

// EngineSetting is a job or node setting of a site file that a scenario's
// engine section (or, for a node's containers, its cluster section) also
// has: the scenario's path, the value in the scenario's units, and the
// property and line it came from.
type EngineSetting struct {
	Path  string  // "engine.slow_start", "cluster.containers"
	Value float64 // a number, or 1 and 0 for true and false
	Prop  string
	Line  int
}

// Engine lists the settings of the file the engine takes, each by the
// property Hadoop reads (Hadoop 2's name before Hadoop 1's, where the
// file gives both), in a fixed order of paths.
func (s *Site) Engine() []EngineSetting { return s.engine }

// engineSettings reads the job and node properties the engine has, as
// Hadoop's Configuration reads them, and warns of those it has no place
// for.
func (s *Site) engineSettings() ([]EngineSetting, error) {
	var out []EngineSetting
	// first is the property of names the file sets: the first, by
	// Hadoop 2's deprecation, the new name over the old.
	first := func(names ...string) (string, bool) {
		for _, n := range names {
			if _, ok := s.props[n]; ok {
				return n, true
			}
		}
		return "", false
	}
	add := func(path, name string, v float64) {
		out = append(out, EngineSetting{Path: path, Value: v, Prop: name, Line: s.props[name].line})
	}
	// The fraction of a job's maps done before its reduces start.
	if n, ok := first("mapreduce.job.reduce.slowstart.completedmaps", "mapred.reduce.slowstart.completed.maps"); ok {
		v, p, err := s.float(n, 0)
		if err != nil {
			return nil, err
		}
		if v < 0 || v > 1 {
			return nil, s.errAt(p, "%v; want a fraction of the job's maps, 0 to 1", v)
		}
		add("engine.slow_start", n, v)
	}
	// Counts of 1 or more.
	for _, c := range []struct {
		path  string
		names []string
		what  string
	}{
		{"engine.parallel_copies", []string{"mapreduce.reduce.shuffle.parallelcopies", "mapred.reduce.parallel.copies"}, "fetches a reduce makes at once"},
		{"engine.max_attempts", []string{"mapreduce.map.maxattempts", "mapred.map.max.attempts"}, "attempts of a map"},
	} {
		n, ok := first(c.names...)
		if !ok {
			continue
		}
		v, p, err := s.long(n, 0)
		if err != nil {
			return nil, err
		}
		if v < 1 || v > math.MaxInt32 {
			return nil, s.errAt(p, "%d; want the %s, 1 or more", v, c.what)
		}
		add(c.path, n, float64(v))
	}
	if n, ok := first("mapreduce.reduce.maxattempts", "mapred.reduce.max.attempts"); ok {
		v, _, err := s.long(n, 0)
		if err != nil {
			return nil, err
		}
		var maps *EngineSetting
		for i := range out {
			if out[i].Path == "engine.max_attempts" {
				maps = &out[i]
			}
		}
		switch {
		case maps == nil:
			add("engine.max_attempts", n, float64(v))
		case maps.Value != float64(v):
			s.warn(s.props[n].line, "%s: %d; the engine has one limit for maps and reduces, the maps' %v (%s)", n, v, maps.Value, maps.Prop)
		}
	}
	// A map's sort buffer and the segments a merge pass reads, which the
	// engine's spill and merge costs take (sim's costs.go). Hadoop's
	// MapOutputBuffer refuses a buffer of 2048 MB or more.
	if n, ok := first("mapreduce.task.io.sort.mb", "io.sort.mb"); ok {
		v, p, err := s.long(n, 0)
		if err != nil {
			return nil, err
		}
		if v < 1 || v > 2047 {
			return nil, s.errAt(p, "%d; want a map's sort buffer in MB, 1 to 2047", v)
		}
		add("engine.sort_buffer_mb", n, float64(v))
	}
	if n, ok := first("mapreduce.task.io.sort.factor", "io.sort.factor"); ok {
		v, p, err := s.long(n, 0)
		if err != nil {
			return nil, err
		}
		if v < 2 || v > math.MaxInt32 {
			return nil, s.errAt(p, "%d; want the segments a merge pass reads, 2 or more", v)
		}
		add("engine.merge_factor", n, float64(v))
	}
	// A reduce's in-memory shuffle buffer: its heap, capped at 2 GiB as
	// the shuffle sizes it in an int of bytes, times the share the
	// shuffle may take (MergeManagerImpl's memoryLimit; ReduceTask's
	// maxSize in Hadoop 1). Read where the file gives either, the heap as
	// an -Xmx option; the other takes Hadoop's default, a 200 MB heap or
	// 0.70.
	heapProp := s.firstOf("mapreduce.reduce.java.opts", "mapred.reduce.child.java.opts", "mapred.child.java.opts")
	shareProp := s.firstOf("mapreduce.reduce.shuffle.input.buffer.percent", "mapred.job.shuffle.input.buffer.percent")
	_, heap := s.lookup(heapProp)
	heapMB, heapSet := xmxMB(heap)
	_, shareSet := s.props[shareProp]
	if heapSet || shareSet {
		at := shareProp
		if heapSet {
			at = heapProp
		} else {
			heapMB = defaultHeapMB
		}
		share, p, err := s.float(shareProp, 0.70)
		if err != nil {
			return nil, err
		}
		if share <= 0 || share > 1 {
			return nil, s.errAt(p, "%v; want a share of the reduce's heap, above 0 and at most 1", share)
		}
		add("engine.reduce_buffer_mb", at, math.Min(heapMB, maxHeapMB)*share)
	}
	// Hadoop 1's out-of-band heartbeat: a TaskTracker that reports a
	// task's end at once, rather than at its next heartbeat.
	if n, ok := first("mapreduce.tasktracker.outofband.heartbeat"); ok {
		v, _ := s.boolean(n, false)
		add("engine.heartbeat_offers_only", n, b2f(!v))
	}
	// Backups of slow maps; reduce backups are not modelled.
	if n, ok := first("mapreduce.map.speculative", "mapred.map.tasks.speculative.execution"); ok {
		v, _ := s.boolean(n, true)
		add("engine.speculative", n, b2f(v))
	}
	if n, ok := first("mapreduce.reduce.speculative", "mapred.reduce.tasks.speculative.execution"); ok {
		if v, _ := s.boolean(n, true); v {
			s.warn(s.props[n].line, "%s: backups of slow reduces are not modelled (the engine backs up maps only)", n)
		}
	}
	// YARN's node heartbeat.
	if n, ok := first("yarn.resourcemanager.nodemanagers.heartbeat-interval-ms"); ok {
		v, p, err := s.long(n, 0)
		if err != nil {
			return nil, err
		}
		if v < 1 {
			return nil, s.errAt(p, "%d; want the heartbeat interval in ms, 1 or more", v)
		}
		add("engine.heartbeat_s", n, float64(v)/1000)
	}
	// Hadoop 1's load manager.
	if n, ok := first(propH1LoadManager); ok {
		_, v := s.lookup(n)
		on := strings.TrimSpace(v) == capBasedLoadManager
		if !on {
			s.warn(s.props[n].line, "%s: %q; only %s is modelled (engine.load_cap), so a node's free slots are all offered", n, strings.TrimSpace(v), capBasedLoadManager)
		}
		add("engine.load_cap", n, b2f(on))
	}
	// How often the Fair Scheduler looks for tasks to preempt.
	if n, ok := first(propYARNPreemptInterval, propH1PreemptInterval); ok {
		v, err := s.preemptionInterval(n)
		if err != nil {
			return nil, err
		}
		add("engine.preemption_interval_s", n, v)
	}
	// A YARN node's containers, and the resources it offers (what DRF
	// divides), where the file gives them.
	const nodeMem, nodeVCores = "yarn.nodemanager.resource.memory-mb", "yarn.nodemanager.resource.cpu-vcores"
	if n, ok := first(nodeMem, nodeVCores); ok {
		c, mem, vc, err := s.nodeContainers()
		if err != nil {
			return nil, err
		}
		add("cluster.containers", n, float64(c))
		if _, ok := first(nodeMem); ok {
			add("cluster.memory_gb", nodeMem, float64(mem)/1024)
		}
		if _, ok := first(nodeVCores); ok {
			add("cluster.cpu_cores", nodeVCores, float64(vc))
		}
	}
	// A Hadoop 1 TaskTracker's map and reduce slots
	// (TaskTracker's maxMapSlots, maxReduceSlots: 2 each by default).
	for _, sl := range []struct{ path, prop string }{
		{"cluster.map_slots", "mapred.tasktracker.map.tasks.maximum"},
		{"cluster.reduce_slots", "mapred.tasktracker.reduce.tasks.maximum"},
	} {
		if n, ok := first(sl.prop); ok {
			v, p, err := s.long(n, 0)
			if err != nil {
				return nil, err
			}
			if v < 1 || v > maxSiteSlots {
				return nil, s.errAt(p, "%d; want a node's slots, 1 to %d", v, maxSiteSlots)
			}
			add(sl.path, n, float64(v))
		}
	}
	// Tasks a node is given a heartbeat (0: as many as it has room for,
	// or, dynamic, just over half of them).
	if l, n, dynamic, ok, err := s.launches(); err != nil {
		return nil, err
	} else if ok && dynamic {
		add("engine.dynamic_max_assign", n, 1)
	} else if ok {
		add("engine.launches_per_heartbeat", n, float64(l))
	}
	return out, nil
}

// defaultHeapMB is a task's heap where no java.opts sets one, Hadoop 1's
// and 2's mapred.child.java.opts default, -Xmx200m; maxHeapMB is the
// most of it the shuffle sizes its buffer from (an int of bytes).
const (
	defaultHeapMB = 200.0
	maxHeapMB     = float64(math.MaxInt32) / (1 << 20)
)

// xmxMB is the heap the last -Xmx of JVM options opts sets, in MB, as
// the JVM reads it: a number of bytes, or of k, m or g (either case).
func xmxMB(opts string) (float64, bool) {
	mb, found := 0.0, false
	for _, f := range strings.Fields(opts) {
		v, ok := strings.CutPrefix(f, "-Xmx")
		if !ok || v == "" {
			continue
		}
		unit := 1.0 / (1 << 20)
		switch v[len(v)-1] {
		case 'k', 'K':
			unit, v = 1.0/(1<<10), v[:len(v)-1]
		case 'm', 'M':
			unit, v = 1, v[:len(v)-1]
		case 'g', 'G':
			unit, v = 1<<10, v[:len(v)-1]
		}
		n, err := strconv.ParseUint(v, 10, 63)
		if err != nil || n == 0 {
			return 0, false
		}
		mb, found = float64(n)*unit, true
	}
	return mb, found
}

// maxSiteSlots bounds a node's slots from a site file: the cluster's own
// bound on slots a node (cluster.Config's validation) is checked when
// the run is built; this keeps a mistyped value from reaching it as a
// number no int holds.
const maxSiteSlots = 1 << 20

// launches is how many tasks the Fair Scheduler gives a node a heartbeat,
// 0 for as many as it has room for, whether YARN's dynamic max assign
// limits that, and the property that says so. YARN: one unless
// yarn.scheduler.fair.assignmultiple; then, with
// yarn.scheduler.fair.dynamic.max.assign (true by default since Hadoop
// 2.9), just over half the node's free containers
// (FairScheduler.shouldContinueAssigning), else
// yarn.scheduler.fair.max.assign (-1, the default: no limit), which is
// read only with dynamic max assign off. Hadoop 1.2.1: one unless
// mapred.fairscheduler.assignmultiple (its default), then
// .assignmultiple.maps plus .reduces (-1 each: no limit); the engine has
// one count for both kinds, which a warning says where the two are
// capped.
func (s *Site) launches() (n int, prop string, dynamic, ok bool, err error) {
	const (
		yarnMulti, yarnMax = "yarn.scheduler.fair.assignmultiple", "yarn.scheduler.fair.max.assign"
		yarnDynamic        = "yarn.scheduler.fair.dynamic.max.assign"
		h1Multi, h1Maps    = "mapred.fairscheduler.assignmultiple", "mapred.fairscheduler.assignmultiple.maps"
		h1Reduces          = "mapred.fairscheduler.assignmultiple.reduces"
	)
	has := func(name string) bool { _, ok := s.props[name]; return ok }
	switch {
	case has(yarnMulti) || has(yarnMax) || has(yarnDynamic):
		multi, _ := s.boolean(yarnMulti, false)
		if !multi {
			return 1, yarnMulti, false, true, nil
		}
		if dyn, _ := s.boolean(yarnDynamic, true); dyn {
			if has(yarnMax) {
				s.warn(s.props[yarnMax].line, "%s: not read while %s is true (its default since Hadoop 2.9): a heartbeat assigns just over half the node's free containers", yarnMax, yarnDynamic)
			}
			if has(yarnDynamic) {
				return 0, yarnDynamic, true, true, nil
			}
			return 0, yarnMulti, true, true, nil
		}
		most, _, err := s.long(yarnMax, -1)
		if err != nil {
			return 0, "", false, false, err
		}
		if most < 1 {
			return 0, yarnMax, false, true, nil // -1: no limit
		}
		return int(min(most, math.MaxInt32)), yarnMax, false, true, nil
	case has(h1Multi) || has(h1Maps) || has(h1Reduces):
		multi, _ := s.boolean(h1Multi, true)
		if !multi {
			return 1, h1Multi, false, true, nil
		}
		m, _, err := s.long(h1Maps, -1)
		if err != nil {
			return 0, "", false, false, err
		}
		r, _, err := s.long(h1Reduces, -1)
		if err != nil {
			return 0, "", false, false, err
		}
		if m < 0 || r < 0 {
			return 0, h1Multi, false, true, nil
		}
		if has(h1Maps) || has(h1Reduces) {
			s.warn(s.props[h1Maps].line, "%s and .reduces: the engine caps a heartbeat's tasks of both kinds together, at %d", h1Maps, m+r)
		}
		return int(min(max(m+r, 1), math.MaxInt32)), h1Maps, false, true, nil
	}
	return 0, "", false, false, nil
}

// Hadoop 1's load manager property, and its default, the one the engine
// models.
const (
	propH1LoadManager   = "mapred.fairscheduler.loadmanager"
	capBasedLoadManager = "org.apache.hadoop.mapred.CapBasedLoadManager"
)

// The properties of how often the Fair Scheduler preempts, and of how
// often it updates.
const (
	propH1PreemptInterval   = "mapred.fairscheduler.preemption.interval"
	propYARNPreemptInterval = "yarn.scheduler.fair.preemptionInterval"
	propH1Update            = "mapred.fairscheduler.update.interval"
	propYARNUpdate          = "yarn.scheduler.fair.update-interval-ms"
	// defaultUpdateMS is both schedulers' update interval where the file
	// gives none (Hadoop 1.2.1's FairScheduler, YARN's
	// FairSchedulerConfiguration.DEFAULT_UPDATE_INTERVAL_MS).
	defaultUpdateMS = 500
)

// preemptionInterval reads how often, in seconds, the Fair Scheduler
// looks for tasks to preempt: Hadoop 1's
// mapred.fairscheduler.preemption.interval (15,000 ms by default) or
// YARN 2's yarn.scheduler.fair.preemptionInterval (5,000 ms), in ms. The
// check runs in the scheduler's update, once the interval has passed
// since the last (FairScheduler.update, preemptTasksIfNecessary), so an
// interval below the update interval (0 included) is the update
// interval: mapred.fairscheduler.update.interval or
// yarn.scheduler.fair.update-interval-ms, 500 ms where left out.
func (s *Site) preemptionInterval(name string) (float64, error) {
	v, p, err := s.long(name, 0)
	if err != nil {
		return 0, err
	}
	if v < 0 {
		return 0, s.errAt(p, "%d; want the interval in ms, 0 or more", v)
	}
	update := propYARNUpdate
	if name == propH1PreemptInterval {
		update = propH1Update
	}
	u, up, err := s.long(update, defaultUpdateMS)
	if err != nil {
		return 0, err
	}
	if u < 0 {
		return 0, s.errAt(up, "%d; want the update interval in ms, 0 or more", u)
	}
	// 0 updates without pause; the engine's shortest period is 1 ms.
	return float64(max(v, u, 1)) / 1000, nil
}

// YARN's defaults for a node and a container (yarn-default.xml,
// mapred-default.xml).
const (
	yarnNodeMB      = 8192 // yarn.nodemanager.resource.memory-mb
	yarnNodeVCores  = 8    // yarn.nodemanager.resource.cpu-vcores
	yarnContainerMB = 1024 // mapreduce.map.memory.mb, and the scheduler's minimum and increment
)

// ContainerMB is the memory of the map container a YARN site file sets,
// as the scheduler allocates it: mapreduce.map.memory.mb (1024 MB when
// left out or below 1, Hadoop 3's -1 taking the default), raised to
// yarn.scheduler.minimum-allocation-mb and rounded up to a multiple of
// yarn.scheduler.increment-allocation-mb (the Fair Scheduler's
// normalisation, FairScheduler.normalize), with its vcores likewise.
func (s *Site) ContainerMB() (mb, vcores int64, err error) {
	mapMB, _, err := s.long(s.firstOf("mapreduce.map.memory.mb", "mapred.job.map.memory.mb"), yarnContainerMB)
	if err != nil {
		return 0, 0, err
	}
	if mb, err = s.normalizeMB(mapMB); err != nil {
		return 0, 0, err
	}
	mapVC, _, err := s.long("mapreduce.map.cpu.vcores", 1)
	if err != nil {
		return 0, 0, err
	}
	minVC, _, err := s.long("yarn.scheduler.minimum-allocation-vcores", 1)
	if err != nil {
		return 0, 0, err
	}
	return mb, max(mapVC, minVC, 1), nil
}

// normalizeMB is the memory the Fair Scheduler allocates for a request of
// mb (below 1: the default container): raised to the minimum allocation
// and rounded up to a multiple of the increment.
func (s *Site) normalizeMB(mb int64) (int64, error) {
	if mb < 1 {
		mb = yarnContainerMB
	}
	minMB, _, err := s.long("yarn.scheduler.minimum-allocation-mb", yarnContainerMB)
	if err != nil {
		return 0, err
	}
	incMB, _, err := s.long("yarn.scheduler.increment-allocation-mb", yarnContainerMB)
	if err != nil {
		return 0, err
	}
	mb = max(mb, minMB)
	if incMB > 0 && mb <= math.MaxInt64-incMB {
		mb = (mb + incMB - 1) / incMB * incMB
	}
	return mb, nil
}

// firstOf is the first of names the file sets, else the first name.
func (s *Site) firstOf(names ...string) string {
	for _, n := range names {
		if _, ok := s.props[n]; ok {
			return n
		}
	}
	return names[0]
}

// nodeContainers is how many map containers a NodeManager of the file's
// memory and vcores holds (yarn.nodemanager.resource.memory-mb, 8192,
// and .cpu-vcores, 8, where the file leaves one out or gives -1, which
// asks YARN 3 to detect the hardware): the Fair Scheduler fits a
// container only where both its memory and its vcores fit
// (Resources.fitsIn). The engine has one container size, the maps';
// reduces that ask another are named in a warning.
func (s *Site) nodeContainers() (n int, memMB, vcores int64, err error) {
	node := func(name string, def int64) (int64, prop, error) {
		v, p, err := s.long(name, def)
		if err == nil && v == -1 {
			s.warn(p.line, "%s: -1 (detect the hardware) is read as YARN's default, %d", name, def)
			v = def
		}
		if err == nil && v < 1 {
			err = s.errAt(p, "%d; want the node's resource, 1 or more (-1 for YARN's default)", v)
		}
		return v, p, err
	}
	mem, pm, err := node("yarn.nodemanager.resource.memory-mb", yarnNodeMB)
	if err != nil {
		return 0, 0, 0, err
	}
	vc, _, err := node("yarn.nodemanager.resource.cpu-vcores", yarnNodeVCores)
	if err != nil {
		return 0, 0, 0, err
	}
	cmb, cvc, err := s.ContainerMB()
	if err != nil {
		return 0, 0, 0, err
	}
	fit := min(mem/cmb, vc/cvc)
	if fit < 1 {
		if !pm.set {
			pm, _ = s.lookup("yarn.nodemanager.resource.cpu-vcores")
		}
		return 0, 0, 0, s.errAt(pm, "a node of %d MB and %d vcores holds no map container of %d MB and %d vcores", mem, vc, cmb, cvc)
	}
	name := s.firstOf("mapreduce.reduce.memory.mb", "mapred.job.reduce.memory.mb")
	r, p, err := s.long(name, 0)
	if err != nil {
		return 0, 0, 0, err
	}
	if rmb, err := s.normalizeMB(r); err == nil && p.set && rmb != cmb {
		s.warn(p.line, "%s: %d MB; the engine has one container size, the maps' %d MB, for reduces too", name, rmb, cmb)
	}
	return int(min(fit, math.MaxInt32)), mem, vc, nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
