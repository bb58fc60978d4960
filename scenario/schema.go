package scenario

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/faults"
	"github.com/mrsched/mrsched/sim"
	"github.com/mrsched/mrsched/workload"
)

// A setting is a numeric field of a scenario file and the values it may
// take. Every numeric field has one (TestEveryNumericFieldHasARange), and
// docs/scenarios.md lists them all (TestScenarioDocsListEveryRange).
//
// The zero rule follows from it: a field the file leaves out takes its
// default; a field it writes is checked against its range as written, so a
// written 0 means 0, and is refused wherever 0 is not in the range.
type setting struct {
	path   string
	lo, hi float64 // hi may be +Inf: no upper bound but finite
	loOpen bool    // lo itself is excluded
	unit   string  // for messages and docs: "s", "Mbit/s", ...
	def    string  // the default in words; "" when the field has none
	// integer and unsigned are set from the Go type (settingKinds).
	integer, unsigned bool
}

const inf = math.MaxFloat64 // "no upper bound" (values must still be finite)

// settings are the numeric fields of a scenario file, in the order
// docs/scenarios.md lists them. Ranges that depend on other settings are
// checked in checkSettings and checkAgainstWorkload.
var settings = []setting{
	{path: "seed", lo: 0, hi: inf, def: "1"},

	{path: "cluster.racks", lo: 1, hi: cluster.MaxNodes, def: "10"},
	{path: "cluster.nodes_per_rack", lo: 1, hi: cluster.MaxNodes, def: "10"},
	{path: "cluster.map_slots", lo: 0, hi: cluster.MaxSlotsPerNode, def: "4 (slot model)"},
	{path: "cluster.reduce_slots", lo: 0, hi: cluster.MaxSlotsPerNode, def: "2 (slot model)"},
	{path: "cluster.containers", lo: 0, hi: cluster.MaxSlotsPerNode, def: "0 (the slot model)"},
	{path: "cluster.cpu_cores", lo: 0, loOpen: true, hi: cluster.MaxCPUCores, def: "4"},
	{path: "cluster.memory_gb", lo: 0, loOpen: true, hi: cluster.MaxMemoryGB, unit: "GB", def: "15"},
	{path: "cluster.disk_mbps", lo: cluster.MinBandwidth, hi: cluster.MaxDiskMBps, unit: "MB/s", def: "400"},
	{path: "cluster.nic_mbps", lo: cluster.MinBandwidth, hi: cluster.MaxNICMbps, unit: "Mbit/s", def: "250"},
	{path: "cluster.rack_uplink_mbps", lo: cluster.MinBandwidth, hi: cluster.MaxRackUplinkMbps, unit: "Mbit/s", def: "500"},
	{path: "cluster.block_mb", lo: 1, hi: cluster.MaxBlockMB, unit: "MB", def: "64"},
	{path: "cluster.replication", lo: 1, hi: cluster.MaxReplication, def: "3"},
	{path: "cluster.disk.seq_mbps", lo: cluster.MinBandwidth, hi: cluster.MaxDiskMBps, unit: "MB/s", def: "the profile's; none without cluster.disk"},
	{path: "cluster.disk.seek_ms", lo: 0, hi: cluster.MaxSeekMs, unit: "ms", def: "the profile's"},
	{path: "cluster.disk.chunk_kb", lo: cluster.MinChunkKB, hi: cluster.MaxChunkKB, unit: "KiB", def: "the profile's"},
	{path: "cluster.node_groups.map_slots", lo: 0, hi: cluster.MaxSlotsPerNode, def: "the cluster's"},
	{path: "cluster.node_groups.reduce_slots", lo: 0, hi: cluster.MaxSlotsPerNode, def: "the cluster's"},
	{path: "cluster.node_groups.containers", lo: 0, hi: cluster.MaxSlotsPerNode, def: "the cluster's"},
	{path: "cluster.node_groups.cpu_cores", lo: 0, loOpen: true, hi: cluster.MaxCPUCores, def: "the cluster's"},
	{path: "cluster.node_groups.memory_gb", lo: 0, loOpen: true, hi: cluster.MaxMemoryGB, unit: "GB", def: "the cluster's"},
	{path: "cluster.node_groups.disk_mbps", lo: cluster.MinBandwidth, hi: cluster.MaxDiskMBps, unit: "MB/s", def: "the cluster's"},
	{path: "cluster.node_groups.nic_mbps", lo: cluster.MinBandwidth, hi: cluster.MaxNICMbps, unit: "Mbit/s", def: "the cluster's"},
	{path: "cluster.rack_uplinks", lo: cluster.MinBandwidth, hi: cluster.MaxRackUplinkMbps, unit: "Mbit/s", def: "cluster.rack_uplink_mbps"},

	{path: "workload.source_nodes", lo: 1, hi: maxSourceNodes, def: "the embedded trace's (600, 3000); required for a file"},
	{path: "workload.scale", lo: 0, loOpen: true, hi: maxScale, def: "nodes / source_nodes"},
	{path: "workload.bytes_per_reduce", lo: 1, hi: inf, unit: "bytes", def: "67108864 (64 MiB)"},
	{path: "workload.users", lo: 1, hi: maxUsers, def: "30"},
	{path: "workload.max_jobs", lo: 1, hi: math.MaxInt32, def: "all"},
	{path: "workload.start_s", lo: 0, hi: inf, unit: "s", def: "0"},
	{path: "workload.end_s", lo: 0, loOpen: true, hi: inf, unit: "s", def: "no end"},
	{path: "workload.map_mbps", lo: minTaskMBps, hi: maxTaskMBps, unit: "MiB/s", def: "8"},
	{path: "workload.reduce_mbps", lo: minTaskMBps, hi: maxTaskMBps, unit: "MiB/s", def: "8"},
	{path: "workload.mean_interarrival_s", lo: sim.MinPeriodS, hi: maxGeneratorS, unit: "s", def: "40"},
	{path: "workload.duration_s", lo: 1, hi: maxGeneratorS, unit: "s", def: "21600"},
	{path: "workload.input_scale", lo: 0, loOpen: true, hi: 1e6, def: "1"},
	{path: "workload.task_cost_scale", lo: 0, loOpen: true, hi: 1e6, def: "1"},
	{path: "workload.task_failure_rate", lo: 0, hi: 1, def: "0"},

	{path: "engine.heartbeat_s", lo: sim.MinPeriodS, hi: sim.MaxPeriodS, unit: "s", def: "3"},
	{path: "engine.slow_start", lo: 0, hi: 1, def: "0.05"},
	{path: "engine.parallel_copies", lo: 1, hi: cluster.MaxNodes, def: "5"},
	{path: "engine.task_startup_s", lo: 0, hi: sim.MaxTaskStartupS, unit: "s", def: "0"},
	{path: "engine.preemption_interval_s", lo: sim.MinPeriodS, hi: sim.MaxPeriodS, unit: "s", def: "0.5"},
	{path: "engine.copy_compute.max_reducers", lo: 1, hi: cluster.MaxSlotsPerNode, def: "3 x max_computing"},
	{path: "engine.copy_compute.max_computing", lo: 1, hi: cluster.MaxSlotsPerNode, def: "reduce_slots"},
	{path: "engine.monitor_period_s", lo: sim.MinPeriodS, hi: sim.MaxPeriodS, unit: "s", def: "3"},
	{path: "engine.congestion_threshold", lo: 0, loOpen: true, hi: 1, def: "0.8"},
	{path: "engine.timeseries_period_s", lo: sim.MinPeriodS, hi: sim.MaxTimeseriesPeriodS, unit: "s", def: "60"},
	{path: "engine.stall_s", lo: sim.MinStallS, hi: sim.MaxStallS, unit: "s", def: "86400"},
	{path: "engine.network_quantum_s", lo: 0, hi: sim.MaxNetworkQuantumS, unit: "s", def: "0 (exact)"},
	{path: "engine.tcp_payload_fraction", lo: 0, loOpen: true, hi: 1, def: "0.9564 (1,448 / 1,514)"},
	{path: "engine.max_attempts", lo: 1, hi: sim.MaxAttemptsLimit, def: "4"},
	{path: "engine.node_expiry_s", lo: sim.MinPeriodS, hi: sim.MaxNodeExpiryS, unit: "s", def: "600"},
	{path: "engine.sort_buffer_mb", lo: 1, hi: sim.MaxBufferMB, unit: "MiB", def: "the profile's; none (no spills) under fluid"},
	{path: "engine.merge_factor", lo: sim.MinMergeFactor, hi: sim.MaxMergeFactor, def: "10, with spills or a reduce buffer"},
	{path: "engine.reduce_buffer_mb", lo: 1, hi: sim.MaxBufferMB, unit: "MiB", def: "the profile's; none (no reduce merge) under fluid"},
	{path: "engine.reduce_input_buffer_mb", lo: 0, hi: sim.MaxBufferMB, unit: "MiB", def: "0, with a reduce buffer"},
	{path: "engine.launches_per_heartbeat", lo: 1, hi: sim.MaxLaunchesPerHeartbeat, def: "the profile's; no limit under fluid"},

	{path: "metrics.steady_start_s", lo: 0, hi: inf, unit: "s", def: "the first submit"},
	{path: "metrics.steady_end_s", lo: 0, loOpen: true, hi: inf, unit: "s", def: "the last submit"},
}

// A choice is a field of a scenario file that takes one of a few names.
// Like a setting's range it is checked where the file writes it, and
// docs/scenarios.md lists it (TestScenarioDocsListEveryChoice).
type choice struct {
	path   string
	values []string
	def    string // the default, one of values
}

// listIndex matches a list entry's index in a field's path
// ("cluster.node_groups[2].nic_mbps"), which ranges do not have.
var listIndex = regexp.MustCompile(`\[\d+\]`)

// choices are the fields that take one of a few names.
var choices = []choice{
	{path: "cluster.replica_choice", values: cluster.ReplicaChoices(), def: string(cluster.NearestRandom)},
	{path: "workload.placement", values: workload.PlacementNames(), def: workload.PlaceOutside.String()},
	{path: "policy.pool_by", values: []string{PoolByUser, PoolByQueue}, def: PoolByUser},
}

// choiceByPath indexes choices.
var choiceByPath = func() map[string]*choice {
	m := make(map[string]*choice, len(choices))
	for i := range choices {
		m[choices[i].path] = &choices[i]
	}
	return m
}()

// describe says what a choice takes, as docs/scenarios.md writes it:
// "one of `outside`, `writer`".
func (c *choice) describe() string {
	quoted := make([]string, len(c.values))
	for i, v := range c.values {
		quoted[i] = "`" + v + "`"
	}
	return "one of " + strings.Join(quoted, ", ")
}

// Limits of workload settings; like the engine's and the cluster's
// (sim.MinPeriodS, cluster.MaxNodes, ...), they refuse typos and values
// that would exhaust memory or time, far outside any trace's.
const (
	maxSourceNodes = 10_000_000
	maxScale       = 1000
	maxUsers       = 1_000_000
	// minTaskMBps and maxTaskMBps bound the per-task processing rates: a
	// 64 MiB map at 0.001 MiB/s already takes 18 hours.
	minTaskMBps = 0.001
	maxTaskMBps = 1e6
	// maxGeneratorS bounds the generator's times (about 116 days).
	maxGeneratorS = 1e7
	// maxGeneratedJobs bounds duration_s / mean_interarrival_s, the
	// generator's expected number of jobs (the paper's set-up has 540).
	maxGeneratedJobs = 1_000_000
)

// settingByPath indexes settings, with integer set from the Go types.
var settingByPath = func() map[string]*setting {
	kinds := settingKinds()
	m := make(map[string]*setting, len(settings))
	for i := range settings {
		s := &settings[i]
		switch kinds[s.path] {
		case reflect.Int, reflect.Int64:
			s.integer = true
		case reflect.Uint64:
			s.integer, s.unsigned = true, true
		}
		m[s.path] = s
	}
	return m
}()

// settingKinds maps every numeric field of Config to its Go kind.
func settingKinds() map[string]reflect.Kind {
	out := map[string]reflect.Kind{}
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for _, f := range yamlFields(t) {
			ft := f.typ
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			switch {
			case ft == nodeType || ft == demandType:
			case ft.Kind() == reflect.Struct:
				walk(ft, prefix+f.name+".")
			case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct && ft != faultsType:
				walk(ft.Elem(), prefix+f.name+".") // a list's entries: ranges by the field's path without the index
			case ft.Kind() == reflect.Map && isNumber(ft.Elem().Kind()):
				out[prefix+f.name] = ft.Elem().Kind() // every value of the map has the field's range
			case isNumber(ft.Kind()):
				out[prefix+f.name] = ft.Kind()
			}
		}
	}
	walk(reflect.TypeOf(Config{}), "")
	return out
}

func isNumber(k reflect.Kind) bool {
	switch k {
	case reflect.Int, reflect.Int64, reflect.Uint64, reflect.Float64:
		return true
	}
	return false
}

// describe says what a setting takes, as docs/scenarios.md and errors
// write it: "a whole number from 1 to 1048576", "a number > 0, at most 1",
// "a number from 0.001 to 3600 (s)".
func (s *setting) describe() string {
	what := "a number"
	if s.integer {
		what = "a whole number"
	}
	var r string
	switch {
	case s.hi >= inf && s.loOpen:
		r = fmt.Sprintf(" > %s", num(s.lo))
	case s.hi >= inf:
		r = fmt.Sprintf(", %s or more", num(s.lo))
	case s.loOpen:
		r = fmt.Sprintf(" > %s, at most %s", num(s.lo), num(s.hi))
	default:
		r = fmt.Sprintf(" from %s to %s", num(s.lo), num(s.hi))
	}
	if s.unit != "" {
		r += " (" + s.unit + ")"
	}
	return what + r
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// fieldInfo is a struct field as a YAML mapping key.
type fieldInfo struct {
	name  string
	index []int
	typ   reflect.Type
	zero  string // the default a 0 stands for (tag zero), if any
}

var (
	nodeType   = reflect.TypeOf(yaml.Node{})
	demandType = reflect.TypeOf(DemandSpec{})
	faultsType = reflect.TypeOf([]faults.Spec{})
)

// yamlFields lists t's fields by their YAML keys, in declaration order,
// with ",inline" structs' fields in place.
func yamlFields(t reflect.Type) []fieldInfo {
	var out []fieldInfo
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if opts == "inline" {
			for _, g := range yamlFields(f.Type) {
				g.index = append([]int{i}, g.index...)
				out = append(out, g)
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out = append(out, fieldInfo{name: name, index: []int{i}, typ: f.Type, zero: f.Tag.Get("zero")})
	}
	return out
}

// checker walks a scenario document against Config's fields before it is
// decoded, so that every error is in the scenario's words: the file, the
// line and the field's path, never a Go type. It also rewrites a whole
// number written as a float (1e3) into an integer, which yaml.v3 would
// refuse for an integer field.
type checker struct{ file string }

func (k checker) errorf(n *yaml.Node, path, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if path == "" {
		return fmt.Errorf("%s: line %d: %s", k.file, n.Line, msg)
	}
	return fmt.Errorf("%s: line %d: %s: %s", k.file, n.Line, path, msg)
}

// holds reports whether n, at path, is a node of kind to look into:
// false with no error when it is null (the field is left out), false with
// an error saying what is wanted when it is of another kind.
func (k checker) holds(n *yaml.Node, path string, kind yaml.Kind, what string) (bool, error) {
	if isNull(n) {
		return false, nil
	}
	if n.Kind != kind {
		return false, k.errorf(n, path, "want %s, got %s", what, kindName(n))
	}
	return true, nil
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return strconv.Quote(n.Value)
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// duplicates finds the first mapping anywhere under n that gives a key
// twice, which YAML forbids: the decoder would refuse it in its own words,
// so the scenario's are given first.
func (k checker) duplicates(n *yaml.Node, path string) error {
	switch n.Kind {
	case yaml.MappingNode:
		seen := map[string]*yaml.Node{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i]
			p := key.Value
			if path != "" {
				p = path + "." + key.Value
			}
			if key.Kind == yaml.ScalarNode {
				if first, ok := seen[key.Value]; ok {
					return k.errorf(key, p, "given twice (first at line %d)", first.Line)
				}
				seen[key.Value] = key
			}
			if err := k.duplicates(n.Content[i+1], p); err != nil {
				return err
			}
		}
	case yaml.SequenceNode:
		for i, e := range n.Content {
			if err := k.duplicates(e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// section checks a mapping node against struct type t.
func (k checker) section(n *yaml.Node, t reflect.Type, path string) error {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if isNull(n) {
		return nil
	}
	fields := yamlFields(t)
	if n.Kind != yaml.MappingNode {
		what := "a mapping of its fields"
		if path == "" {
			what = "a mapping of scenario sections"
		}
		return k.errorf(n, path, "want %s (%s), got %s", what, fieldNames(fields), kindName(n))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		p := key.Value
		if path != "" {
			p = path + "." + key.Value
		}
		if key.Kind != yaml.ScalarNode {
			return k.errorf(key, path, "a field's name must be a word, got %s", kindName(key))
		}
		if key.Value == "<<" {
			return k.errorf(key, path, "merge keys (<<) are not supported; write the fields out")
		}
		var f *fieldInfo
		for j := range fields {
			if fields[j].name == key.Value {
				f = &fields[j]
			}
		}
		if f == nil {
			where := "a scenario"
			if path != "" {
				where = path
			}
			return k.errorf(key, p, "unknown field; %s has %s", where, fieldNames(fields))
		}
		if err := k.value(val, f.typ, p); err != nil {
			return err
		}
	}
	return nil
}

func fieldNames(fs []fieldInfo) string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.name
	}
	return strings.Join(names, ", ")
}

// value checks the node of one field of Go type t at path.
func (k checker) value(n *yaml.Node, t reflect.Type, path string) error {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == nodeType:
		return nil // policy.params: the policy decodes it (decodeParams)
	case t == demandType:
		return k.demand(n, path)
	case t == faultsType:
		return k.faults(n, path)
	case t.Kind() == reflect.Struct:
		return k.section(n, t, path)
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct:
		if ok, err := k.holds(n, path, yaml.SequenceNode, "a list"); !ok {
			return err
		}
		for i, e := range n.Content {
			if err := k.section(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return nil
	case t.Kind() == reflect.Map && t.Key().Kind() == reflect.String:
		if ok, err := k.holds(n, path, yaml.MappingNode, "a mapping of names to values"); !ok {
			return err
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i]
			if key.Kind != yaml.ScalarNode {
				return k.errorf(key, path, "a name must be a word, got %s", kindName(key))
			}
			s := settingByPath[path]
			if s == nil {
				return k.errorf(n, path, "no valid range is known for this field")
			}
			at := *s
			at.path = path + "." + key.Value
			if err := k.number(n.Content[i+1], &at); err != nil {
				return err
			}
		}
		return nil
	}
	if isNull(n) {
		hint := ""
		if s := settingByPath[path]; s != nil && s.def != "" {
			hint = fmt.Sprintf(" (leave the field out for the default, %s)", s.def)
		}
		if c := choiceByPath[path]; c != nil {
			hint = fmt.Sprintf(" (leave the field out for the default, %s)", c.def)
		}
		return k.errorf(n, path, "no value%s", hint)
	}
	if n.Kind != yaml.ScalarNode {
		return k.errorf(n, path, "want a single value, got %s", kindName(n))
	}
	switch t.Kind() {
	case reflect.Bool:
		var b bool
		if n.Tag != "!!bool" || n.Decode(&b) != nil {
			return k.errorf(n, path, "want true or false, got %s", kindName(n))
		}
	case reflect.String:
		if c := choiceByPath[path]; c != nil && !slices.Contains(c.values, n.Value) {
			return k.errorf(n, path, "%s; want one of %s (leave the field out for the default, %s)",
				kindName(n), strings.Join(c.values, ", "), c.def)
		}
	case reflect.Int, reflect.Int64, reflect.Uint64, reflect.Float64:
		s := settingByPath[listIndex.ReplaceAllString(path, "")]
		if s == nil {
			return k.errorf(n, path, "no valid range is known for this field") // TestEveryNumericFieldHasARange
		}
		if s.path != path { // an entry of a list: errors name the entry
			at := *s
			at.path = path
			s = &at
		}
		return k.number(n, s)
	default:
		return k.errorf(n, path, "unsupported field") // a Config field of a new kind: teach the checker
	}
	return nil
}

// number checks a numeric field's value against its range, and writes a
// whole number given as a float back as an integer.
func (k checker) number(n *yaml.Node, s *setting) error {
	want := func() string {
		w := "want " + s.describe()
		if s.def != "" {
			w += fmt.Sprintf(" (leave the field out for the default, %s)", s.def)
		}
		return w
	}
	var v float64
	switch n.Tag {
	case "!!int":
		if s.unsigned { // seed: any uint64
			var u uint64
			if err := n.Decode(&u); err != nil {
				return k.errorf(n, s.path, "%s; %s", n.Value, want())
			}
			return nil
		}
		var i int64
		if err := n.Decode(&i); err != nil {
			var f float64
			if err := n.Decode(&f); err != nil {
				return k.errorf(n, s.path, "%s; %s", n.Value, want())
			}
			v = f
		} else {
			v = float64(i)
		}
	case "!!float":
		if err := n.Decode(&v); err != nil {
			return k.errorf(n, s.path, "%s; %s", n.Value, want())
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return k.errorf(n, s.path, "%s; %s", n.Value, want())
		}
		if s.integer && v != math.Trunc(v) {
			return k.errorf(n, s.path, "%s is not a whole number; %s", n.Value, want())
		}
	default:
		return k.errorf(n, s.path, "%s is not a number; %s", kindName(n), want())
	}
	tooBig := s.integer && (v >= 1<<63 && !s.unsigned || v >= 1<<64)
	if v < s.lo || (s.loOpen && v == s.lo) || v > s.hi || tooBig {
		return k.errorf(n, s.path, "%s; %s", n.Value, want())
	}
	if s.integer && n.Tag == "!!float" {
		// In range, so it fits the field's type: 1e3 is read as 1000.
		n.Tag = "!!int"
		if v < 1<<63 {
			n.Value = strconv.FormatInt(int64(v), 10)
		} else {
			n.Value = strconv.FormatUint(uint64(v), 10)
		}
	}
	return nil
}

// demand checks workload.demand: whole numbers under default, by_kind
// and by_job. Their range depends on the cluster (DemandSpec.apply).
func (k checker) demand(n *yaml.Node, path string) error {
	if ok, err := k.holds(n, path, yaml.MappingNode, "a mapping of default, by_kind and by_job"); !ok {
		return err
	}
	whole := func(v *yaml.Node, p string) error {
		var i int
		if v.Kind != yaml.ScalarNode || v.Tag != "!!int" || v.Decode(&i) != nil {
			return k.errorf(v, p, "%s; want a whole number of map slots, from 1 to the cluster's", kindName(v))
		}
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		p := path + "." + key.Value
		if key.Kind != yaml.ScalarNode {
			return k.errorf(key, path, "a field's name must be a word, got %s", kindName(key))
		}
		switch key.Value {
		case "default":
			if err := whole(val, p); err != nil {
				return err
			}
		case "by_kind", "by_job":
			if ok, err := k.holds(val, p, yaml.MappingNode, "a mapping of names to map slots"); !ok {
				if err != nil {
					return err
				}
				continue
			}
			for j := 0; j+1 < len(val.Content); j += 2 {
				if val.Content[j].Kind != yaml.ScalarNode {
					return k.errorf(val.Content[j], p, "a name must be a word, got %s", kindName(val.Content[j]))
				}
				if err := whole(val.Content[j+1], p+"."+val.Content[j].Value); err != nil {
					return err
				}
			}
		default:
			return k.errorf(key, p, "unknown field; %s has default, by_kind, by_job", path)
		}
	}
	return nil
}

// faults checks the faults list: each entry a mapping of exactly one of
// kill_node, kill_rack and restore_node, and at_s. Whether the nodes and
// racks exist, and whether the sequence makes sense, depends on the
// cluster (Config.FaultEvents).
func (k checker) faults(n *yaml.Node, path string) error {
	if ok, err := k.holds(n, path, yaml.SequenceNode, "a list of events ({kill_node: r1n2, at_s: 600})"); !ok {
		return err
	}
	at := setting{path: "at_s", lo: 0, hi: faults.MaxAtS, unit: "s"}
	for i, e := range n.Content {
		p := fmt.Sprintf("%s[%d]", path, i)
		if e.Kind == yaml.AliasNode {
			e = e.Alias
		}
		if e.Kind != yaml.MappingNode {
			return k.errorf(e, p, "want an event, a mapping of kill_node, kill_rack or restore_node, and at_s, got %s", kindName(e))
		}
		actions, hasAt := 0, false
		for j := 0; j+1 < len(e.Content); j += 2 {
			key, val := e.Content[j], e.Content[j+1]
			if val.Kind == yaml.AliasNode {
				val = val.Alias
			}
			fp := p + "." + key.Value
			if key.Kind != yaml.ScalarNode {
				return k.errorf(key, p, "a field's name must be a word, got %s", kindName(key))
			}
			switch key.Value {
			case "kill_node", "restore_node":
				actions++
				if val.Kind != yaml.ScalarNode || isNull(val) {
					return k.errorf(val, fp, "want a node name rRnN (r1n2: node 2 of rack 1), got %s", kindName(val))
				}
				if _, _, err := faults.ParseName(val.Value); err != nil {
					return k.errorf(val, fp, "%v", err)
				}
			case "kill_rack":
				actions++
				var r int
				if val.Kind != yaml.ScalarNode || val.Tag != "!!int" || val.Decode(&r) != nil || r < 0 {
					return k.errorf(val, fp, "%s; want a rack number, a whole number from 0", kindName(val))
				}
			case "at_s":
				hasAt = true
				if isNull(val) || val.Kind != yaml.ScalarNode {
					return k.errorf(val, fp, "want a time, a number from 0 to %v (s), got %s", faults.MaxAtS, kindName(val))
				}
				s := at
				s.path = fp
				if err := k.number(val, &s); err != nil {
					return err
				}
			default:
				return k.errorf(key, fp, "unknown field; an event has kill_node, kill_rack or restore_node, and at_s")
			}
		}
		if actions != 1 {
			return k.errorf(e, p, "want exactly one of kill_node, kill_rack and restore_node, got %d", actions)
		}
		if !hasAt {
			return k.errorf(e, p, "at_s: required, the event's time in scenario seconds")
		}
	}
	return nil
}
