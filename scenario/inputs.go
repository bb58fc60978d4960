package scenario

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/cluster/hostmap"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/sched/allocations"
	"github.com/mrsched/mrsched/sim"
	"github.com/mrsched/mrsched/traces"
	"github.com/mrsched/mrsched/workload"
	"github.com/mrsched/mrsched/workload/hadooptrace"
)

// ownInputs are the files that describe a user's own cluster, read once
// for a scenario and shared by its copies (a comparison's policies): a
// Hadoop or YARN job trace (workload.trace), a topology
// (cluster.topology) and an allocation file (policy.allocations).
type ownInputs struct {
	once sync.Once
	err  error
	// The site file is read on its own, and first: the engine's settings
	// (Config.engine) take its job settings before a trace is read.
	siteOnce sync.Once
	siteErr  error
	format   hadooptrace.Format
	traced   []*hadooptrace.Job
	hosts    *hostmap.Map
	alloc    *allocations.Config
	site     *allocations.Site
	// warnings name what the inputs' readers skipped or do not model, in
	// the order of the files; notes what a run could not apply, added as
	// the runs build, and lacking the policies that could not take a
	// file's setting. mu guards them, since a comparison's policies build
	// at once.
	mu       sync.Mutex
	warnings []string
	notes    []string
	lacking  map[lack][]string
}

// lack is a setting of an own-cluster file that a policy has no use for:
// the scenario field that named the file, what the policy lacks, and what
// of the file therefore does not apply. A comparison's policies that lack
// the same are named in one warning.
type lack struct{ field, what, file string }

// noPoolsLack is an allocation file beside a policy without pools.
var noPoolsLack = lack{"policy.allocations", "pools", "the allocation file"}

// lackingPolicy notes that the scenario's policy lacks l.
func (c *Config) lackingPolicy(l lack) {
	if in, err := c.own(); err == nil {
		in.mu.Lock()
		defer in.mu.Unlock()
		if in.lacking == nil {
			in.lacking = map[lack][]string{}
		}
		if !slices.Contains(in.lacking[l], c.Policy.Name) {
			in.lacking[l] = append(in.lacking[l], c.Policy.Name)
		}
	}
}

// String tells what policies lack l: "policy.site: policies drf and td
// have no preemption; the site file's does not apply to them".
func (l lack) String(policies []string) string {
	if len(policies) == 1 {
		return fmt.Sprintf("%s: policy %s has no %s; %s does not apply to it", l.field, policies[0], l.what, l.file)
	}
	names := slices.Sorted(slices.Values(policies))
	list := strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	return fmt.Sprintf("%s: policies %s have no %s; %s does not apply to them", l.field, list, l.what, l.file)
}

// path is a scenario path, relative to the scenario file's directory.
func (c *Config) path(p string) string {
	if p == "" || filepath.IsAbs(p) || c.dir == "" {
		return p
	}
	return filepath.Join(c.dir, p)
}

// traceFormat is the workload trace's format: "" for an embedded trace or
// the generator; workload.format when set; else read from the file.
func (c *Config) traceFormat() (hadooptrace.Format, error) {
	w := c.Workload
	if w.Generator != "" || w.Trace == "" {
		return "", nil
	}
	if _, _, embedded := traces.Embedded(w.Trace); embedded {
		return "", nil
	}
	f, err := hadooptrace.ParseFormat(w.Format)
	if err != nil {
		return "", fmt.Errorf("workload.format: %w", err)
	}
	if f != "" {
		return f, nil
	}
	f, err = hadooptrace.SniffPath(c.path(w.Trace))
	if errors.Is(err, fs.ErrNotExist) {
		return hadooptrace.FormatSWIM, nil // the SWIM reader reports what is missing, as it always has
	}
	if err != nil {
		return "", fmt.Errorf("workload.trace: %w", err)
	}
	return f, nil
}

// own reads the scenario's own-cluster files, once.
func (c *Config) own() (*ownInputs, error) {
	if c.inputs == nil {
		c.inputs = &ownInputs{}
	}
	in := c.inputs
	in.once.Do(func() { in.err = c.readInputs(in) })
	return in, in.err
}

// siteFile reads the scenario's site file (policy.site), once; nil when
// it has none.
func (c *Config) siteFile() (*allocations.Site, error) {
	if c.inputs == nil {
		c.inputs = &ownInputs{}
	}
	in := c.inputs
	in.siteOnce.Do(func() {
		if p := c.Policy.Site; p != "" {
			in.site, in.siteErr = allocations.LoadSite(c.path(p))
			if in.siteErr != nil {
				in.siteErr = fmt.Errorf("policy.site: %w", in.siteErr)
			}
		}
	})
	return in.site, in.siteErr
}

// fromSite reports whether the engine setting at path is the site
// file's, and which.
func (c *Config) fromSite(path string) (allocations.EngineSetting, bool) {
	if c.Policy.Site == "" || c.set(path) {
		return allocations.EngineSetting{}, false
	}
	st, err := c.siteFile()
	if err != nil || st == nil {
		return allocations.EngineSetting{}, false
	}
	for _, e := range st.Engine() {
		if e.Path == path {
			return e, true
		}
	}
	return allocations.EngineSetting{}, false
}

// siteEngine gives engine settings p the site file's job and node
// settings (slow start, parallel copies, attempts, speculation, YARN's
// heartbeat, launches a heartbeat) the scenario does not write itself:
// the operator's configuration over the profile's and the defaults.
func (c *Config) siteEngine(p *sim.Params) {
	st, err := c.siteFile()
	if err != nil || st == nil {
		return // the error is reported where the inputs are read
	}
	for _, e := range st.Engine() {
		if _, ok := c.writesEngine(e.Path); ok {
			continue
		}
		switch e.Path {
		case "engine.slow_start":
			v := e.Value
			p.SlowStart = &v
		case "engine.parallel_copies":
			p.ParallelCopies = int(e.Value)
		case "engine.max_attempts":
			p.MaxAttempts = int(e.Value)
		case "engine.speculative":
			p.Speculative = e.Value == 1
		case "engine.heartbeat_s":
			p.HeartbeatS = e.Value
		case "engine.launches_per_heartbeat":
			p.LaunchesPerHeartbeat = int(e.Value)
		case "engine.dynamic_max_assign":
			p.DynamicMaxAssign, p.LaunchesPerHeartbeat = e.Value == 1, 0 // in place of the profile's count
		case "engine.preemption_interval_s":
			p.PreemptionIntervalS = e.Value
		case "engine.load_cap":
			p.LoadCap = e.Value == 1
		case "engine.heartbeat_offers_only":
			p.HeartbeatOffersOnly = e.Value == 1
		case "engine.sort_buffer_mb":
			if p.SortBufferMB > 0 { // a run that models map spills (NoteSiteCosts)
				p.SortBufferMB = e.Value
			}
		case "engine.merge_factor":
			if p.SortBufferMB > 0 || p.ReduceBufferMB > 0 {
				p.MergeFactor = int(e.Value)
			}
		case "engine.reduce_buffer_mb":
			if p.ReduceBufferMB > 0 { // a run that models reduce merges (NoteSiteCosts)
				p.ReduceBufferMB = e.Value
			}
		}
	}
}

// NoteSiteCosts names the site file's sort and shuffle buffers and merge
// factor where the run models no spills or merges (no cluster.profile
// that does, and no engine.sort_buffer_mb or reduce_buffer_mb): they are settings of a
// cost model, which a site file does not turn on. The commands call it
// for the scenarios they run, once built: a scenario built only to see
// what its policy lacks (advise's) runs under another profile.
func (c *Config) NoteSiteCosts() {
	st, err := c.siteFile()
	if err != nil || st == nil {
		return
	}
	for _, e := range st.Engine() {
		if _, ok := c.writesEngine(e.Path); ok {
			continue
		}
		switch {
		case e.Path == "engine.sort_buffer_mb" && c.Engine.SortBufferMB == 0,
			e.Path == "engine.reduce_buffer_mb" && c.Engine.ReduceBufferMB == 0,
			e.Path == "engine.merge_factor" && c.Engine.SortBufferMB == 0 && c.Engine.ReduceBufferMB == 0:
			c.note(fmt.Sprintf("%s:%d: %s: not applied: the run models no map spills or merges (a cluster.profile such as hadoop1-hdd does, or engine.sort_buffer_mb and reduce_buffer_mb)", st.File, e.Line, e.Prop))
		}
	}
}

// writesEngine reports whether the scenario writes the engine or node
// setting at path, or one that says the same thing otherwise (a count of
// launches a heartbeat, or dynamic max assign in place of one; a node's
// slots in place of its containers), and which.
func (c *Config) writesEngine(path string) (string, bool) {
	paths := []string{path}
	switch path {
	case "engine.launches_per_heartbeat":
		paths = append(paths, "engine.dynamic_max_assign")
	case "engine.dynamic_max_assign":
		paths = append(paths, "engine.launches_per_heartbeat")
	case "cluster.containers":
		paths = append(paths, "cluster.map_slots", "cluster.reduce_slots")
	case "cluster.map_slots", "cluster.reduce_slots":
		paths = append(paths, "cluster.containers")
	}
	for _, p := range paths {
		if c.set(p) {
			return p, true
		}
	}
	return "", false
}

func (c *Config) readInputs(in *ownInputs) error {
	f, err := c.traceFormat()
	if err != nil {
		return err
	}
	in.format = f
	if p := c.Cluster.Topology; p != "" {
		m, err := hostmap.Load(c.path(p))
		if err != nil {
			return fmt.Errorf("cluster.topology: %w", err)
		}
		in.hosts = m
		in.warnings = append(in.warnings, m.Warnings...)
	}
	if p := c.Policy.Allocations; p != "" {
		a, err := allocations.Load(c.path(p))
		if err != nil {
			return fmt.Errorf("policy.allocations: %w", err)
		}
		in.alloc = a
		in.warnings = append(in.warnings, a.Warnings...)
	}
	if c.Policy.Site != "" {
		st, err := c.siteFile()
		if err != nil {
			return err
		}
		in.warnings = append(in.warnings, st.Warnings...)
		for _, e := range st.Engine() {
			if path, ok := c.writesEngine(e.Path); ok {
				in.warnings = append(in.warnings, fmt.Sprintf("%s:%d: %s: not applied: the scenario sets %s", st.File, e.Line, e.Prop, path))
			}
		}
		switch {
		case in.alloc != nil:
			in.warnings = append(in.warnings, in.alloc.UseSite(st)...)
		default:
			for _, w := range st.PlacementSettings() {
				in.warnings = append(in.warnings, w+": read only with an allocation file (policy.allocations); without one jobs go to pools by policy.pool_by")
			}
		}
	}
	// The trace last: an allocation file, with its site file, says which
	// of a job's configuration properties place it in a pool.
	if f != "" && f != hadooptrace.FormatSWIM {
		var keep []string
		if in.alloc != nil {
			keep = in.alloc.PoolProperties()
		}
		jobs, _, err := hadooptrace.ReadAll(c.path(c.Workload.Trace), f, keep...)
		if err != nil {
			return fmt.Errorf("workload.trace: %w", err)
		}
		in.traced = jobs
	}
	return nil
}

var floatPtrType = reflect.TypeOf((*float64)(nil))

// applySite puts the site file's settings into a policy's parameters,
// into, where the scenario leaves them unset: the delay policies' waits,
// t1_s and t2_s, from its locality settings, and the fair policies'
// preemption switch, YARN's preemption gate and the size-based weight.
// A policy without the setting runs as it is, which a warning says (the
// engine's settings the file gives are siteEngine's).
func (c *Config) applySite(into any) error {
	in, err := c.own()
	if err != nil || in.site == nil {
		return err
	}
	node, rack := in.site.LocalityWaits(c.engine().WithDefaults().HeartbeatS)
	var t1, t2, preempt, sizeWeight reflect.Value
	var find func(v reflect.Value)
	find = func(v reflect.Value) {
		if v.Kind() != reflect.Struct {
			return
		}
		for i := range v.NumField() {
			f, sf := v.Field(i), v.Type().Field(i)
			switch {
			case sf.Name == "T1S" && f.Type() == floatPtrType:
				t1 = f
			case sf.Name == "T2S" && f.Type() == floatPtrType:
				t2 = f
			case f.Type() == preemptType:
				preempt = f
			case sf.Name == "SizeBasedWeight" && f.Kind() == reflect.String:
				sizeWeight = f
			case sf.Anonymous:
				find(f)
			}
		}
	}
	v := reflect.ValueOf(into)
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	find(v)
	if node != nil || rack != nil {
		if !t1.IsValid() || !t2.IsValid() {
			c.lackingPolicy(lack{"policy.site", "locality waits", "the site file's locality setting"})
		}
		for _, w := range []struct {
			field reflect.Value
			v     *float64
		}{{t1, node}, {t2, rack}} {
			if w.field.IsValid() && w.v != nil && w.field.IsNil() {
				w.field.Set(reflect.ValueOf(w.v))
			}
		}
	}
	if on, set := in.site.Preemption(); set {
		switch {
		case !preempt.IsValid():
			if on {
				c.lackingPolicy(lack{"policy.site", "preemption", "the site file's preemption switch"})
			}
		case !c.writesPreemption("enabled"):
			preempt.Addr().Interface().(*sched.PreemptionParams).Enabled = on
		}
	}
	if u, set := in.site.PreemptionUtilization(); set && preempt.IsValid() && !c.writesPreemption("cluster_utilization_threshold") {
		preempt.Addr().Interface().(*sched.PreemptionParams).ClusterUtilizationThreshold = u
	}
	if mode, set := in.site.SizeBasedWeight(); set {
		switch {
		case !sizeWeight.IsValid():
			if mode != "none" {
				c.note(fmt.Sprintf("policy.site: policy %s has no size-based weight; the site file's does not apply to it", c.Policy.Name))
			}
		case sizeWeight.String() == "":
			sizeWeight.SetString(mode)
		}
	}
	return nil
}

// writesPreemption reports whether the scenario itself writes the
// preemption setting key (policy.preemption.<key>, or the same under
// policy.params), which a site file then does not change.
func (c *Config) writesPreemption(key string) bool {
	n := &c.Policy.Preemption
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return true
		}
	}
	return false
}

// note adds a warning once.
func (c *Config) note(s string) {
	if in, err := c.own(); err == nil {
		in.mu.Lock()
		defer in.mu.Unlock()
		in.notes = appendOnce(in.notes, s)
	}
}

// InputWarnings are the warnings of the scenario's own-cluster files:
// lines skipped, settings not modelled, in the files' order; then, sorted
// so that they do not depend on which run built first, what the runs of
// the scenario and its copies (WithPolicy) could not apply. Reading them
// reads the files; an error is reported by Build or Run.
func (c *Config) InputWarnings() []string {
	in, err := c.own()
	if err != nil {
		return nil
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	notes := slices.Clone(in.notes)
	for l, policies := range in.lacking {
		notes = append(notes, l.String(policies))
	}
	slices.Sort(notes)
	return append(slices.Clone(in.warnings), notes...)
}

// slsTaskMemoryMB and slsTaskVCores are the container an SLS trace's tasks
// ask for by default (yarn.sls.container.memory.mb 1024 and
// yarn.sls.container.vcores 1, SLSConfiguration), from which an SLS node's
// containers follow.
const (
	slsTaskMemoryMB = 1024
	slsTaskVCores   = 1
)

// Hadoop is the scheduler the scenario's own configuration files are
// for: the allocation file's, else the site file's; "" where it reads
// neither, or neither says. An unreadable file is Build's error.
func (c *Config) Hadoop() allocations.Kind {
	in, err := c.own()
	if err != nil {
		return ""
	}
	if in.alloc != nil {
		return in.alloc.Kind
	}
	if st, err := c.siteFile(); err == nil && st != nil {
		return st.Kind()
	}
	return ""
}

// resolveSiteCluster gives the cluster a YARN site file's node
// containers (yarn.nodemanager.resource.memory-mb and .cpu-vcores over a
// map's container), unless the scenario writes cluster.containers or a
// node's slots, and the node's memory and vcores as its memory_gb and
// cpu_cores, unless the scenario writes those; once. A file it cannot
// read is Build's error, reported where the inputs are read.
func (c *Config) resolveSiteCluster() error {
	if c.sited {
		return nil
	}
	c.sited = true
	st, err := c.siteFile()
	if err != nil || st == nil {
		return nil
	}
	for _, e := range st.Engine() {
		if _, ok := c.writesEngine(e.Path); ok {
			continue
		}
		switch e.Path {
		case "cluster.containers":
			// Containers in place of the slots the scenario leaves to
			// their defaults; a note says so, since the cluster's model
			// changes.
			if c.Cluster.Containers == 0 {
				c.siteModel = fmt.Sprintf("cluster.containers: %v a node, from %s:%d (%s): the container model, in place of map and reduce slots", e.Value, st.File, e.Line, e.Prop)
			}
			c.Cluster.Containers, c.Cluster.MapSlots, c.Cluster.ReduceSlots = int(e.Value), 0, 0
		case "cluster.map_slots":
			c.Cluster.MapSlots = int(e.Value)
		case "cluster.reduce_slots":
			c.Cluster.ReduceSlots = int(e.Value)
		case "cluster.memory_gb":
			c.Cluster.MemoryGB = e.Value
		case "cluster.cpu_cores":
			c.Cluster.CPUCores = e.Value
		}
	}
	return nil
}

// ContainerModel reports whether the scenario's cluster runs containers
// (YARN's model) rather than map and reduce slots: cluster.containers, or
// a YARN site file's node resources.
func (c *Config) ContainerModel() bool {
	_ = c.resolveSiteCluster()
	return c.Cluster.Containers > 0
}

// SiteSettings are what a scenario's site file gives the policies where
// their parameters and the scenario's preemption section leave them
// unset (applySite): the delay policies' waits, and the fair policies'
// preemption switch and YARN's gate on it; nil where the file gives none
// or the scenario writes its own.
type SiteSettings struct {
	T1S, T2S        *float64
	Preemption      *bool
	UtilizationGate *float64
}

// SiteSettings reads them; an unreadable file is Build's error.
func (c *Config) SiteSettings() SiteSettings {
	var s SiteSettings
	st, err := c.siteFile()
	if err != nil || st == nil {
		return s
	}
	s.T1S, s.T2S = st.LocalityWaits(c.engine().WithDefaults().HeartbeatS)
	if on, set := st.Preemption(); set && !c.writesPreemption("enabled") {
		s.Preemption = &on
	}
	if u, set := st.PreemptionUtilization(); set && !c.writesPreemption("cluster_utilization_threshold") {
		s.UtilizationGate = &u
	}
	return s
}

// SiteDelays reports whether the scenario's site file sets locality
// waits above 0: the Fair Scheduler it configures then runs delay
// scheduling, the policy named delay here, whatever policy.name says.
func (c *Config) SiteDelays() bool {
	s := c.SiteSettings()
	return s.T1S != nil && s.T2S != nil && (*s.T1S > 0 || *s.T2S > 0)
}

// Topology is the cluster the scenario's runs are on: from
// cluster.topology's hosts when set; else from the hosts a Hadoop or YARN
// trace names, as SLS builds its nodes from its trace, unless the
// scenario sets cluster.racks or cluster.nodes_per_rack; else the
// scenario's racks of identical nodes. An SLS nodes file's memory-mb and
// vcores make a node's CPU, memory and, in the container model, its
// containers: as many as fit of the site file's map container, else of
// SLS's default, 1024 MB and 1 vcore.
func (c *Config) Topology() (*cluster.Topology, error) {
	if err := c.resolveSiteCluster(); err != nil {
		return nil, err
	}
	in, err := c.own()
	if err != nil {
		return nil, err
	}
	if c.siteModel != "" {
		c.note(c.siteModel)
	}
	if st, err := c.siteFile(); err == nil && st != nil {
		// A site file of one scheduler beside the other's cluster model.
		switch {
		case st.Kind() == allocations.YARN && c.Cluster.Containers == 0:
			c.note(fmt.Sprintf("policy.site: %s is YARN's, but the cluster runs map and reduce slots, Hadoop 1's model; set cluster.containers, or the site's yarn.nodemanager.resource.memory-mb", st.File))
		case st.Kind() == allocations.Hadoop1 && c.Cluster.Containers > 0:
			c.note(fmt.Sprintf("policy.site: %s is Hadoop 1's, but the cluster runs containers, YARN's model", st.File))
		}
	}
	var specs []cluster.NodeSpec
	// A node's containers from its memory and vcores: SLS's default
	// container, or the one the site file sets.
	taskMB, taskVC := int64(slsTaskMemoryMB), int64(slsTaskVCores)
	if st, err := c.siteFile(); err == nil && st != nil {
		if mb, vc, err := st.ContainerMB(); err == nil {
			taskMB, taskVC = mb, vc
		}
	}
	switch {
	case in.hosts != nil:
		for _, n := range in.hosts.Nodes {
			s := cluster.NodeSpec{Name: n.Host, Rack: n.Rack}
			if n.MemoryMB > 0 {
				s.MemoryGB = float64(n.MemoryMB) / 1024
			}
			if n.VCores > 0 {
				s.CPUCores = float64(n.VCores)
			}
			if c.Cluster.Containers > 0 && (n.MemoryMB > 0 || n.VCores > 0) {
				cont := c.Cluster.Containers
				if n.MemoryMB > 0 {
					cont = int(n.MemoryMB / taskMB)
				}
				if n.VCores > 0 {
					cont = min(cont, int(n.VCores/taskVC))
				}
				s.Containers = max(cont, 1)
			}
			specs = append(specs, s)
		}
	case in.traced != nil && !c.set("cluster.racks") && !c.set("cluster.nodes_per_rack"):
		for _, l := range hadooptrace.Hosts(in.traced) {
			specs = append(specs, cluster.NodeSpec{Name: l.Host, Rack: l.Rack})
		}
		if len(specs) == 0 {
			return nil, fmt.Errorf("workload.trace: the trace names no hosts; give cluster.topology, or cluster.racks and nodes_per_rack")
		}
	case len(c.Cluster.Groups()) > 0 || len(c.Cluster.Uplinks()) > 0:
		specs = cluster.UniformHosts(c.Cluster)
	default:
		return cluster.New(c.Cluster)
	}
	if err := cluster.ApplyGroups(c.Cluster, specs, c.Cluster.Groups()); err != nil {
		return nil, err
	}
	cfg := c.Cluster
	if n := len(specs); !c.set("cluster.replication") && n < cluster.DefaultReplication {
		cfg.Replication = n // a cluster of fewer hosts than HDFS's default replication keeps a replica a host
		in.mu.Lock()
		defer in.mu.Unlock()
		in.notes = appendOnce(in.notes, replicationNote(n))
	}
	return cluster.NewHosts(cfg, specs, c.Cluster.Uplinks())
}

// replicationNote tells that a cluster of n hosts, fewer than HDFS's
// default replication, keeps a replica a host.
func replicationNote(n int) string {
	if n == 1 {
		return fmt.Sprintf("cluster.replication: 1 host, so 1 replica a block (HDFS's default is %d)", cluster.DefaultReplication)
	}
	return fmt.Sprintf("cluster.replication: %d hosts, so %d replicas a block (HDFS's default is %d)", n, n, cluster.DefaultReplication)
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// hadoopJobs converts the scenario's Hadoop or YARN trace into jobs for
// topology t; ok is false when the workload is no such trace.
func (c *Config) hadoopJobs(t *cluster.Topology, prof workload.Profile) ([]workload.Job, bool, error) {
	in, err := c.own()
	if err != nil {
		return nil, true, err
	}
	if in.traced == nil {
		return nil, false, nil
	}
	w := c.Workload
	if w.SourceNodes != 0 {
		return nil, true, fmt.Errorf("workload.source_nodes: applies to SWIM traces; a %s trace's bytes are taken as traced (workload.scale scales them)", in.format)
	}
	for _, f := range []string{"workload.users", "workload.bytes_per_reduce"} {
		if c.set(f) {
			c.note(fmt.Sprintf("%s: a %s trace names its users and counts its reduces; the setting does not apply", f, in.format))
		}
	}
	opt := hadooptrace.ConvertOptions{Profile: prof, Bytes: hadooptrace.DefaultSLSByteModel(t.Config().BlockBytes()),
		MaxJobs: w.MaxJobs, StartS: w.StartS, EndS: w.EndS, Scale: w.Scale}
	jobs, _, err := hadooptrace.Convert(in.traced, opt)
	if err != nil {
		if errors.Is(err, workload.ErrNoJobs) && (w.StartS > 0 || w.EndS > 0) {
			return nil, true, fmt.Errorf("workload.start_s, end_s: %w", err)
		}
		return nil, true, fmt.Errorf("workload.trace: %w", err)
	}
	if s := c.unplacedHosts(t, in.hosts, jobs); s != "" {
		c.note(s)
	}
	// Task times from the trace, unless the scenario sets the rates.
	cfg := t.Config()
	io := hadooptrace.IdleIO{DiskBps: cfg.DiskMBps * 1e6, NICBps: cfg.NICMbps * 1e6 / 8, StartupS: c.engine().Resolved(cfg).TaskStartupS}
	for i := range jobs {
		if w.MapMBps > 0 && w.ReduceMBps > 0 {
			break
		}
		keep := jobs[i].Profile
		hadooptrace.MeasuredProfile(&jobs[i], io)
		if w.MapMBps > 0 {
			jobs[i].Profile.MapSecPerByte = keep.MapSecPerByte
		}
		if w.ReduceMBps > 0 {
			jobs[i].Profile.ReduceSecPerByte = keep.ReduceSecPerByte
		}
	}
	return jobs, true, nil
}

// unplacedHosts names the hosts the trace puts map inputs on (their
// preferred locations) that topology t has no node for: those replicas
// go where HDFS's rule puts them, so the trace's locality is lost for
// them. A topology of another cluster, or a table of host names beside a
// trace of addresses, would otherwise lose it without a word. hosts is
// the topology file's map (nil without one), to say which of them the
// file knows as addresses. "" when every named host is a node.
func (c *Config) unplacedHosts(t *cluster.Topology, hosts *hostmap.Map, jobs []workload.Job) string {
	var missing []string
	seen := map[string]bool{}
	maps, aliases := 0, 0
	for i := range jobs {
		m := jobs[i].Measured
		if m == nil {
			continue
		}
		for _, named := range m.MapHosts {
			lost := false
			for _, h := range named {
				if _, ok := t.NodeByName(h); ok {
					continue
				}
				lost = true
				if !seen[h] {
					seen[h] = true
					missing = append(missing, h)
					if hosts != nil && hosts.Aliases[h] != "" {
						aliases++
					}
				}
			}
			if lost {
				maps++
			}
		}
	}
	if len(missing) == 0 {
		return ""
	}
	where := "the cluster of cluster.racks x cluster.nodes_per_rack"
	if c.Cluster.Topology != "" {
		where = "cluster.topology's " + c.Cluster.Topology
	}
	shown := missing[:min(len(missing), 3)]
	names := strings.Join(shown, ", ")
	if more := len(missing) - len(shown); more > 0 {
		names += fmt.Sprintf(" and %d more", more)
	}
	hostsAre, mapsN := fmt.Sprintf("%d hosts", len(missing))+" the trace puts map inputs on are not nodes", fmt.Sprintf("%d maps", maps)
	if len(missing) == 1 {
		hostsAre = "1 host the trace puts map inputs on is not a node"
	}
	if maps == 1 {
		mapsN = "1 map"
	}
	s := fmt.Sprintf("workload.trace: %s of %s (%s); the replicas it names there, for %s, are placed by HDFS's rule",
		hostsAre, where, names, mapsN)
	if aliases > 0 {
		s += fmt.Sprintf("; %d of the names are addresses the file gives a rack and no node, since it names its hosts by name", aliases)
	}
	return s
}

// placeJobs puts every job in the pool or queue the allocation file's
// rules choose by the job's traced user and queue (a generated or SWIM
// job's user is its pool name, user3), and, for Hadoop 1, by the job's
// configuration where its trace records it (PoolForJob).
func (c *Config) placeJobs(jobs []workload.Job) error {
	in, err := c.own()
	if err != nil || in.alloc == nil {
		return err
	}
	unrecorded := 0
	for i := range jobs {
		j := &jobs[i]
		user := j.UserName
		if user == "" {
			user = j.Pool
		}
		var conf map[string]string
		if j.Measured != nil {
			conf = j.Measured.Conf
		}
		if conf == nil {
			unrecorded++
		}
		p, err := in.alloc.PoolForJob(user, j.Queue, conf)
		if err != nil {
			return fmt.Errorf("policy.allocations: job %s: %w", j.Name, err)
		}
		j.Pool = p
	}
	if s := in.alloc.UnrecordedPoolProperty(unrecorded, len(jobs)); s != "" {
		c.note(s)
	}
	return nil
}

// noPools warns, when the scenario has an allocation file, that its
// policy has no pools to take it.
func (c *Config) noPools() {
	if in, err := c.own(); err == nil && in.alloc != nil {
		c.lackingPolicy(noPoolsLack)
	}
}

var (
	poolsType      = reflect.TypeOf([]sched.PoolConfig(nil))
	treeType       = reflect.TypeOf((*sched.ShareTree)(nil)).Elem()
	preemptType    = reflect.TypeOf(sched.PreemptionParams{})
	limitsType     = reflect.TypeOf(sched.JobLimits{})
	capsType       = reflect.TypeOf([]sched.QueueCap(nil))
	poolConfigType = reflect.TypeOf(sched.PoolConfig{})
)

// applyAllocations puts the allocation file's pools or queues, its share
// tree (YARN) and its preemption timeouts into a policy's parameters,
// into, when the policy has pools. A policy without pools runs without
// them, which a warning says.
func (c *Config) applyAllocations(into any, t *cluster.Topology) error {
	in, err := c.own()
	if err != nil || in.alloc == nil {
		return err
	}
	v := reflect.ValueOf(into)
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	var pools, tree, preempt, limits, caps, defaults reflect.Value
	// The fields may sit in an embedded struct (sw-fair's and nas's
	// parameters inline the fair policy's).
	var find func(v reflect.Value)
	find = func(v reflect.Value) {
		if v.Kind() != reflect.Struct {
			return
		}
		for i := range v.NumField() {
			f := v.Field(i)
			switch {
			case f.Type() == poolsType:
				pools = f
			case f.Type() == treeType:
				tree = f
			case f.Type() == preemptType:
				preempt = f
			case f.Type() == limitsType:
				limits = f
			case f.Type() == capsType:
				caps = f
			case v.Type().Field(i).Name == "PoolDefaults" && f.Type() == poolConfigType:
				defaults = f
			case v.Type().Field(i).Anonymous:
				find(f)
			}
		}
	}
	find(v)
	if !pools.IsValid() {
		c.noPools()
		return nil
	}
	if pools.Len() > 0 {
		return fmt.Errorf("policy.allocations: set either the allocation file or the scenario's pools (policy.pools), not both")
	}
	a := in.alloc
	pcs := allocationPools(a, t)
	pools.Set(reflect.ValueOf(pcs))
	if l := allocationLimits(a); limits.IsValid() && !l.Empty() {
		if !limits.Interface().(sched.JobLimits).Empty() {
			return fmt.Errorf("policy.allocations: set either the allocation file's running-job limits or the scenario's (policy.job_limits), not both")
		}
		limits.Set(reflect.ValueOf(l))
	}
	if a.Kind == allocations.YARN && tree.IsValid() {
		tree.Set(reflect.ValueOf(a.Tree(allocations.Units{TaskMemoryMB: allocations.DefaultTaskMemoryMB})))
	}
	if qc := queueCaps(a, t); caps.IsValid() && len(qc) > 0 {
		caps.Set(reflect.ValueOf(qc))
	}
	if defaults.IsValid() {
		defaults.Set(reflect.ValueOf(poolDefaults(a, t)))
	}
	if preempt.IsValid() {
		p := preempt.Addr().Interface().(*sched.PreemptionParams)
		if p.MinShareTimeoutS == 0 && a.DefaultMinSharePreemptionTimeoutS > 0 {
			p.MinShareTimeoutS = a.DefaultMinSharePreemptionTimeoutS
		}
		if p.FairShareTimeoutS == 0 && a.FairSharePreemptionTimeoutS > 0 {
			p.FairShareTimeoutS = a.FairSharePreemptionTimeoutS
		}
		if p.FairShareThreshold == 0 {
			p.FairShareThreshold = allocationThreshold(a)
		}
	}
	return nil
}

// allocationLimits are an allocation file's running-job limits, of pools
// and of users. Hadoop 1: each pool's <maxRunningJobs>, else
// <poolMaxJobsDefault> (FairScheduler's updateRunnability). YARN: each
// queue's <maxRunningApps>, else
// <queueMaxAppsDefault>, for every queue up to and including root
// (MaxRunningAppsEnforcer.canAppBeRunnable asks getQueueMaxApps of the
// job's queue and each parent). A limit of 0 is read as none, with the
// reader's warning.
func allocationLimits(a *allocations.Config) sched.JobLimits {
	l := sched.JobLimits{Pools: map[string]int{}, PoolDefault: a.PoolMaxJobsDefault}
	queues := a.Queues
	if a.Kind == allocations.YARN {
		queues = append([]*allocations.Queue{a.Root}, queues...)
	}
	for _, q := range queues {
		switch {
		case q.MaxRunning > 0:
			l.Pools[q.Name] = q.MaxRunning
		case a.Kind == allocations.YARN && a.PoolMaxJobsDefault > 0:
			l.Pools[q.Name] = a.PoolMaxJobsDefault
		}
	}
	if len(l.Pools) == 0 {
		l.Pools = nil
	}
	// Users: <user name><maxRunningJobs> (Hadoop 1) or <maxRunningApps>
	// (YARN), else userMaxJobsDefault or userMaxAppsDefault.
	l.UserDefault = a.UserMaxJobsDefault
	for name, n := range a.UserMaxRunning {
		if n > 0 {
			if l.Users == nil {
				l.Users = map[string]int{}
			}
			l.Users[name] = n
		}
	}
	return l
}

// allocationPools are the leaf pools or queues of an allocation file as
// the fair order's pools: Hadoop 1's minMaps and minReduces as written; a
// YARN queue's minResources in tasks of 1024 MB (memory decides, as YARN's
// fair policy divides memory), as containers in the container model and as
// both map and reduce slots in the slot model; drf queues share among
// their jobs fairly (the model's jobs ask one kind of container).
func allocationPools(a *allocations.Config, t *cluster.Topology) []sched.PoolConfig {
	u := allocations.Units{TaskMemoryMB: allocations.DefaultTaskMemoryMB}
	total := t.TotalSlots()
	var out []sched.PoolConfig
	for _, q := range a.Queues {
		if len(q.Children) > 0 {
			continue
		}
		pc := sched.PoolConfig{Name: q.Name, Weight: q.Weight, Mode: q.Mode, MinMaps: q.MinMaps, MinReduces: q.MinReduces}
		pc.MinShareTimeoutS, pc.FairShareTimeoutS = queueTimeouts(a, q)
		pc.FairShareThreshold = queueThreshold(a, q)
		for up := q; up != nil; up = up.Parent {
			if up.NoPreemptionFrom {
				// A parent's false holds for every queue below it
				// (FSQueue.updatePreemptionVariables).
				no := false
				pc.AllowPreemptionFrom = &no
				break
			}
		}
		if pc.Mode == "drf" {
			pc.Mode = "fair"
		}
		if pc.Weight == 0 {
			pc.Weight = 1e-9 // YARN's weight 0 gets its minimum only; the fair order needs a positive weight
		}
		if a.Kind == allocations.YARN {
			maxSlots := func(capacity float64) int { return taskCap(a.MaxSlots(q, u, capacity)) }
			if t.ContainerModel() {
				pc.MinShare = int(u.Slots(q.MinResources, float64(total[2]), false))
				pc.MaxShare = maxSlots(float64(total[2]))
			} else {
				pc.MinMaps = int(u.Slots(q.MinResources, float64(total[0]), false))
				pc.MinReduces = int(u.Slots(q.MinResources, float64(total[1]), false))
				pc.MaxMaps = maxSlots(float64(total[0]))
				pc.MaxReduces = maxSlots(float64(total[1]))
			}
		} else {
			pc.MaxMaps, pc.MaxReduces = q.MaxMaps, q.MaxReduces
		}
		out = append(out, pc)
	}
	return out
}

// poolDefaults are the settings of the pools an allocation file does not
// declare: placement made them, and they take the file's defaults, its
// default mode (drf as fair, as for a declared queue's) and, for YARN,
// queueMaxResourcesDefault as their cap.
func poolDefaults(a *allocations.Config, t *cluster.Topology) sched.PoolConfig {
	d := sched.PoolConfig{Mode: a.DefaultMode}
	if d.Mode == "drf" || d.Mode == "fair" {
		d.Mode = "" // fair, the zero value: an unset default records as before
	}
	if a.Kind == allocations.YARN && a.DefaultMaxResources != nil {
		u := allocations.Units{TaskMemoryMB: allocations.DefaultTaskMemoryMB}
		total := t.TotalSlots()
		if t.ContainerModel() {
			d.MaxShare = taskCap(a.MaxSlots(nil, u, float64(total[2])))
		} else {
			d.MaxMaps = taskCap(a.MaxSlots(nil, u, float64(total[0])))
			d.MaxReduces = taskCap(a.MaxSlots(nil, u, float64(total[1])))
		}
	}
	return d
}

// queueCaps are the caps of a YARN file's queues above pools, root
// included, from their maxResources, as taskCap reads a leaf's.
func queueCaps(a *allocations.Config, t *cluster.Topology) []sched.QueueCap {
	if a.Kind != allocations.YARN {
		return nil
	}
	u := allocations.Units{TaskMemoryMB: allocations.DefaultTaskMemoryMB}
	total := t.TotalSlots()
	var out []sched.QueueCap
	for _, q := range append([]*allocations.Queue{a.Root}, a.Queues...) {
		if len(q.Children) == 0 && q != a.Root || q.MaxResources == nil && (a.DefaultMaxResources == nil || q == a.Root) {
			continue // the default is a queue's below root (root's own is the cluster)
		}
		c := sched.QueueCap{Path: q.Name}
		if t.ContainerModel() {
			c.MaxShare = taskCap(a.MaxSlots(q, u, float64(total[2])))
		} else {
			c.MaxMaps = taskCap(a.MaxSlots(q, u, float64(total[0])))
			c.MaxReduces = taskCap(a.MaxSlots(q, u, float64(total[1])))
		}
		if c != (sched.QueueCap{Path: q.Name}) {
			out = append(out, c)
		}
	}
	return out
}

// taskCap is a YARN queue's maxResources, in tasks, as a cap on its
// running tasks: the tasks that fit whole (FSQueue.fitsInMaxShare lets a
// container in while usage plus the container stays within the maximum),
// at least one, so that the queue's jobs can finish (a maximum below one
// task would hold them for ever); 0, no cap, for an unlimited maximum.
func taskCap(slots float64) int {
	if math.IsInf(slots, 1) || slots > math.MaxInt32 {
		return 0
	}
	return max(1, int(math.Floor(slots+1e-9)))
}

// yarnDefaultThreshold is YARN's fair-share preemption threshold where
// the file gives none (FairSchedulerConfiguration's 0.5f).
const yarnDefaultThreshold = 0.5

// allocationThreshold is the fraction of its fair share below which the
// cluster's scheduler starves a pool: Hadoop 1's half
// (FairScheduler.isStarvedForFairShare); YARN's
// defaultFairSharePreemptionThreshold, else 0.5.
func allocationThreshold(a *allocations.Config) float64 {
	if a.Kind == allocations.YARN && a.DefaultFairSharePreemptionThreshold > 0 {
		return a.DefaultFairSharePreemptionThreshold
	}
	return yarnDefaultThreshold
}

// queueThreshold is a YARN queue's own fair-share preemption threshold,
// or its nearest parent's (FSQueue.updatePreemptionVariables); 0 where
// none above it gives one and the file's applies.
func queueThreshold(a *allocations.Config, q *allocations.Queue) float64 {
	if a.Kind != allocations.YARN {
		return 0
	}
	for ; q != nil; q = q.Parent {
		if q.FairSharePreemptionThreshold > 0 {
			return q.FairSharePreemptionThreshold
		}
	}
	return 0
}

// queueTimeouts are a pool's own preemption timeouts, 0 where it has
// none and the file-wide ones apply: Hadoop 1's per-pool
// minSharePreemptionTimeout (PoolManager.getMinSharePreemptionTimeout);
// YARN's per-queue min- and fairSharePreemptionTimeout, a queue without
// its own taking its nearest parent's (FSQueue.updatePreemptionVariables).
func queueTimeouts(a *allocations.Config, q *allocations.Queue) (minS, fairS float64) {
	for ; q != nil && (minS == 0 || fairS == 0); q = q.Parent {
		if minS == 0 {
			minS = q.MinSharePreemptionTimeoutS
		}
		if fairS == 0 {
			fairS = q.FairSharePreemptionTimeoutS
		}
		if a.Kind == allocations.Hadoop1 {
			break // pools have no parents to inherit from
		}
	}
	return minS, fairS
}

// EffectiveAllocations is an allocation file as a run used it: every pool
// or queue with its name as the file gives it, its place in the tree,
// weight and minimum share, and the file's warnings.
type EffectiveAllocations struct {
	File     string           `json:"file"`
	Kind     string           `json:"kind"`
	Queues   []EffectiveQueue `json:"queues"`
	Warnings []string         `json:"warnings"`
}

// EffectiveQueue is one pool or queue of an allocation file.
type EffectiveQueue struct {
	Name   string  `json:"name"` // as the file gives it
	Path   string  `json:"path"` // below the root, dotted
	Weight float64 `json:"weight"`
	// MinShare is the minimum share as the file writes it: "5 maps, 3
	// reduces" (Hadoop 1) or the minResources string (YARN); "" for none.
	MinShare string `json:"min_share"`
	Mode     string `json:"mode"`
}

// EffectiveTopology is a topology file as a run used it.
type EffectiveTopology struct {
	File     string   `json:"file,omitempty"`
	Source   string   `json:"source"` // the file's format, or "trace hosts"
	Racks    int      `json:"racks"`
	Nodes    int      `json:"nodes"`
	Warnings []string `json:"warnings,omitempty"`
}

// effectiveInputs records the own-cluster files of a run in e.
func (c *Config) effectiveInputs(e *Effective, t *cluster.Topology) {
	in, err := c.own()
	if err != nil {
		return
	}
	if in.format != "" && in.format != hadooptrace.FormatSWIM {
		e.Workload.Format = string(in.format)
		e.Workload.BytesModelled = in.format == hadooptrace.FormatSLS
		if w := c.Workload; w.MapMBps == 0 || w.ReduceMBps == 0 {
			e.Workload.TaskTimes = "trace" // map_mbps and reduce_mbps are the rates of tasks the trace did not measure
		}
	}
	if !t.Uniform() {
		et := &EffectiveTopology{Racks: t.NumRacks(), Nodes: t.NumNodes(), Source: "trace hosts"}
		if in.hosts != nil {
			et.File, et.Source, et.Warnings = c.Cluster.Topology, string(in.hosts.Format), in.hosts.Warnings
		}
		e.Topology = et
	}
	if a := in.alloc; a != nil {
		// The file's own warnings, and this policy's: not the warnings
		// other runs of a comparison add, which come in no fixed order.
		ea := &EffectiveAllocations{File: c.Policy.Allocations, Kind: string(a.Kind), Warnings: append([]string{}, a.Warnings...)}
		if _, has := e.Policy.Params["pools"]; !has {
			ea.Warnings = append(ea.Warnings, noPoolsLack.String([]string{c.Policy.Name}))
		}
		for _, q := range a.Queues {
			eq := EffectiveQueue{Name: q.FileName, Path: q.Name, Weight: q.Weight, Mode: q.Mode}
			switch {
			case q.MinResources != nil:
				eq.MinShare = q.MinResources.Text
			case q.MinMaps > 0 || q.MinReduces > 0:
				eq.MinShare = fmt.Sprintf("%d maps, %d reduces", q.MinMaps, q.MinReduces)
			}
			ea.Queues = append(ea.Queues, eq)
		}
		e.Policy.Allocations = ea
	}
}
