// Package scenario describes one simulation run as a YAML document (cluster,
// workload, policy and its parameters, engine settings, seed), builds it and
// runs it. It is what `mrsched simulate` reads.
package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/faults"
	"github.com/mrsched/mrsched/sim"
)

// Config is a scenario file.
type Config struct {
	// Seed drives every random choice of the run: block placement, user
	// assignment, generated arrivals. Default 1.
	Seed     uint64         `yaml:"seed"`
	Cluster  cluster.Config `yaml:"cluster"`
	Workload Workload       `yaml:"workload"`
	Policy   PolicySpec     `yaml:"policy"`
	Engine   sim.Params     `yaml:"engine"`
	Metrics  MetricsSpec    `yaml:"metrics"`
	// Faults are node losses and returns (docs/faults.md), in the order
	// listed; FaultEvents resolves them against the cluster.
	Faults []faults.Spec `yaml:"faults"`
	// Testbed and Validate are read by the testbed (`mrsched testbed`,
	// `mrsched validate`), which decodes them with DecodeSection; the
	// simulator ignores them.
	Testbed  yaml.Node `yaml:"testbed"`
	Validate yaml.Node `yaml:"validate"`

	dir  string // directory of the file, for relative trace paths
	name string // the file's name, for errors found after parsing
	src  []byte // the file's bytes, when Load read it
	// lines maps each field the file sets, by its path ("cluster.racks"),
	// to its line, so that a setting refused after parsing is reported
	// at its line.
	lines map[string]int
	// seedSet records a seed set by SetSeed, which a 0 Seed cannot tell
	// from none.
	seedSet bool
	// profiled is set once cluster.profile's values are in place
	// (resolveProfile).
	profiled bool
	// sited is set once a site file's node containers are in place
	// (resolveSiteCluster), and siteModel then says if they changed the
	// cluster from slots to containers (a note once the inputs are read).
	sited     bool
	siteModel string
	// inputs are the own-cluster files (inputs.go), read once and shared
	// with the scenario's copies.
	inputs *ownInputs
}

// Workload selects the jobs: a SWIM trace (embedded by name, or a file) or
// the ShuffleWatcher generator.
type Workload struct {
	// Trace is "FB-2009" or "FB-2010" for an embedded trace, or a path
	// (relative to the scenario file) to a SWIM TSV file, a Rumen JSON
	// trace, a job history (MapReduce 2's .jhist, in either encoding, or
	// Hadoop 1's) or a directory of them, or an SLS jobs file: the format
	// is read from the content, gzip-compressed or not.
	Trace string `yaml:"trace"`
	// Format overrides the format read from the trace's content: swim,
	// rumen, jhist or sls.
	Format string `yaml:"format"`
	// SourceNodes is the traced cluster's size; embedded traces know theirs.
	SourceNodes int `yaml:"source_nodes"`
	// Scale overrides the SWIM byte scale (default nodes / source_nodes).
	Scale float64 `yaml:"scale"`
	// BytesPerReduce is SWIM's reduce-count rule (default SWIM's).
	BytesPerReduce int64 `yaml:"bytes_per_reduce"`
	// Users is how many users jobs are spread over (default 30).
	Users int `yaml:"users"`
	// MaxJobs keeps only the first jobs (default all).
	MaxJobs int `yaml:"max_jobs"`
	// StartS and EndS take a slice of the trace by submit time.
	StartS float64 `yaml:"start_s"`
	EndS   float64 `yaml:"end_s"`
	// MapMBps and ReduceMBps override the per-task CPU processing rates of
	// trace jobs (default 8 MiB/s each).
	MapMBps    float64 `yaml:"map_mbps"`
	ReduceMBps float64 `yaml:"reduce_mbps"`

	// Generator "shufflewatcher" generates the ShuffleWatcher paper's mix
	// (Tables 1 and 2) instead of reading a trace.
	Generator         string  `yaml:"generator"`
	MeanInterarrivalS float64 `yaml:"mean_interarrival_s"`
	// InputScale multiplies every bound of Table 2's input-size bins
	// (default 1): the ShuffleWatcher paper's own scaled-down runs
	// (section 5.6) and a small cluster want smaller jobs.
	InputScale float64 `yaml:"input_scale"`
	DurationS  float64 `yaml:"duration_s"`
	// TaskCostScale multiplies every job's CPU cost per byte, maps' and
	// reduces' (default 1): the load the jobs put on the slots with the
	// bytes unchanged, which a trace's bytes alone do not fix.
	TaskCostScale float64 `yaml:"task_cost_scale"`

	// Demand sets jobs' j.demand for the `td` policy (DemandSpec); unset,
	// td chooses.
	Demand DemandSpec `yaml:"demand"`

	// TaskFailureRate is the probability that a task attempt fails
	// (sim.Params.TaskFailureRate); default 0.
	TaskFailureRate float64 `yaml:"task_failure_rate"`

	// Placement says who wrote the jobs' input: "outside" (the default)
	// or "writer", a node of the cluster drawn per data set
	// (workload.Placement).
	Placement string `yaml:"placement"`
}

// PolicySpec names a policy and its parameters, and holds the cluster's
// pools.
type PolicySpec struct {
	Name   string    `yaml:"name"`
	Params yaml.Node `yaml:"params"`
	// Pools and Preemption are the cluster's Fair Scheduler pools
	// (sched.PoolSettings): unlike Params, they are the cluster's, and
	// apply under every policy that has pools, so that `compare` and
	// sweeps run each policy with them. A scenario may also write them
	// under params, as the fair policies' own parameters; Parse moves
	// them here (poolsAt says where they were written).
	Pools      yaml.Node `yaml:"pools"`
	Preemption yaml.Node `yaml:"preemption"`
	// JobLimits are the cluster's running-job limits
	// (sched.JobLimits), and SizeBasedWeight its scheduler's weighing of
	// jobs by demand, the pools' as Pools are.
	JobLimits       yaml.Node `yaml:"job_limits"`
	SizeBasedWeight yaml.Node `yaml:"size_based_weight"`

	// PoolBy says which pool a job goes to without an allocation file:
	// "user" (the default: the trace's user, or the user a SWIM trace's
	// or the generator's job is drawn for, user0, user1, ...) or "queue"
	// (the trace's queue, for a trace that names queues).
	PoolBy string `yaml:"pool_by"`

	// poolsAt is the section the pools were written in, "policy" or
	// "policy.params", for errors in the file's own words.
	poolsAt string

	// Allocations is a Fair Scheduler allocation file (Hadoop 1's or
	// YARN's fair-scheduler.xml, relative to the scenario file) whose
	// pools or queues, placement rules and timeouts the policy takes.
	Allocations string `yaml:"allocations"`
	// Site is a Hadoop site configuration (mapred-site.xml,
	// yarn-site.xml) whose Fair Scheduler locality settings give the
	// delay policies' waits and whose preemption switch the fair
	// policies' preemption, where the scenario leaves them unset, and
	// whose placement settings place jobs in the allocation file's pools.
	Site string `yaml:"site"`
}

// MetricsSpec tunes derived metrics.
type MetricsSpec struct {
	// SteadyStartS and SteadyEndS bound the steady-state throughput
	// window (default: first to last submit).
	SteadyStartS float64 `yaml:"steady_start_s" json:"steady_start_s"`
	SteadyEndS   float64 `yaml:"steady_end_s" json:"steady_end_s"`
	// Slowdown also runs every job alone on the same cluster (under fifo,
	// same engine settings) and reports turnaround / turnaround alone:
	// one extra small simulation a job.
	Slowdown bool `yaml:"slowdown" json:"slowdown"`
	// TimeBreakdown splits each completed job's turnaround along its
	// critical path (jobs.csv's time_*_s columns, summary.json's
	// time_breakdown; docs/time.md). On unless set to false.
	TimeBreakdown *bool `yaml:"time_breakdown" json:"time_breakdown"`
}

// Breakdown reports whether runs record where each job's time goes.
func (m MetricsSpec) Breakdown() bool { return m.TimeBreakdown == nil || *m.TimeBreakdown }

// Validate reports a steady-state window no run can measure, naming its
// field: both bounds are needed, the end after the start, or neither for
// the default.
func (m MetricsSpec) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"steady_start_s", m.SteadyStartS}, {"steady_end_s", m.SteadyEndS}} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			return fmt.Errorf("metrics.%s: want a finite time >= 0, got %v", f.name, f.v)
		}
	}
	if (m.SteadyStartS != 0 || m.SteadyEndS != 0) && !(m.SteadyEndS > m.SteadyStartS) {
		return fmt.Errorf("metrics.steady_end_s: %v is not after metrics.steady_start_s %v (set both, or neither for first to last submit)",
			m.SteadyEndS, m.SteadyStartS)
	}
	return nil
}

// Load reads a scenario file, rejecting unknown fields with their line.
func Load(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c, err := Parse(bytes.NewReader(b), path)
	if err != nil {
		return nil, err
	}
	c.dir = filepath.Dir(path)
	c.src = b
	return c, nil
}

// Source returns the scenario file as Load read it, so that a run's output
// can carry the scenario that made it; nil for a Config from Parse.
func (c *Config) Source() []byte { return c.src }

// Parse reads a scenario from r; name is used in errors. Every field is
// checked against its type and valid range before it is decoded
// (checker), so that errors name the file, the line and the field in the
// scenario's own words.
func Parse(r io.Reader, name string) (*Config, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty scenario", name)
		}
		return nil, fmt.Errorf("%s: %s", name, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		return nil, fmt.Errorf("%s: line %d: a second YAML document; a scenario is one document (remove the \"---\")", name, next.Line)
	case !errors.Is(err, io.EOF):
		return nil, fmt.Errorf("%s: %s", name, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(doc.Content) != 1 || isNull(doc.Content[0]) {
		return nil, fmt.Errorf("%s: empty scenario", name)
	}
	root := doc.Content[0]
	if err := (checker{file: name}).duplicates(root, ""); err != nil {
		return nil, err
	}
	if err := (checker{file: name}).section(root, reflect.TypeOf(Config{}), ""); err != nil {
		return nil, err
	}
	var c Config
	if err := root.Decode(&c); err != nil {
		// The checker lets through only what decodes; this is a bug.
		return nil, fmt.Errorf("%s: %s", name, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if c.Policy.Name == "" {
		return nil, fmt.Errorf("%s: policy.name: required (one of the registered policies)", name)
	}
	if err := c.Policy.liftPools(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	c.name = name
	c.lines = map[string]int{}
	fieldLines(root, "", c.lines)
	if err := c.resolveProfile(); err != nil {
		return nil, c.fileErr(err)
	}
	return &c, nil
}

// fieldLines records the line of every mapping key under n by its dotted
// path from the document's root, and of every list entry by its path and
// index ("policy.params.pools[1]", "policy.params.pools[1].weight"), the
// way validation errors name them.
func fieldLines(n *yaml.Node, prefix string, into map[string]int) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			path := prefix + k.Value
			into[path] = k.Line
			fieldLines(v, path+".", into)
		}
	case yaml.SequenceNode:
		list := strings.TrimSuffix(prefix, ".")
		for i, v := range n.Content {
			path := fmt.Sprintf("%s[%d]", list, i)
			into[path] = v.Line
			fieldLines(v, path+".", into)
		}
	}
}

// fileErr prefixes err with the scenario file's name, when it came from
// one and err does not already name it, and with the line of the field
// err starts with ("cluster.racks: ..."), when the file sets that field.
func (c *Config) fileErr(err error) error {
	field, _, _ := strings.Cut(err.Error(), ":")
	field, _, _ = strings.Cut(field, ",")
	if e, ok := c.fromSite(field); ok {
		// The value is the site file's: say where it is written.
		err = fmt.Errorf("%w (the value of %s:%d: %s)", err, c.Policy.Site, e.Line, e.Prop)
	}
	if c.name == "" || strings.HasPrefix(err.Error(), c.name) {
		return err
	}
	if line, ok := c.lines[field]; ok {
		return fmt.Errorf("%s: line %d: %w", c.name, line, err)
	}
	return fmt.Errorf("%s: %w", c.name, err)
}

// policyErr places an error from building the policy: a parameter the
// policy refused ("policy delay: t1_s: ...") at the parameter's line.
func (c *Config) policyErr(err error) error {
	if c.name == "" || strings.HasPrefix(err.Error(), c.name) {
		return err
	}
	_, rest, _ := strings.Cut(err.Error(), ": ")
	field, _, _ := strings.Cut(rest, ":")
	field, _, _ = strings.Cut(field, " ") // "pools[0].weight (a)": the entry's name follows
	for _, at := range []string{"policy.params.", "policy."} {
		if line, ok := c.lines[at+field]; ok {
			return fmt.Errorf("%s: line %d: %w", c.name, line, err)
		}
	}
	return c.fileErr(err)
}

// DecodeSection decodes one of the scenario's sections that another
// package owns (Testbed, Validate), named by its field ("testbed"),
// strictly: an unknown field is an error naming the file and line. An
// absent section leaves into as it is.
func (c *Config) DecodeSection(n *yaml.Node, field string, into any) error {
	if err := decodeSection(n, field)(into); err != nil {
		if c.name != "" {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		return err
	}
	return nil
}

// LineOf is the line of a field the file sets, by its dotted path
// ("testbed.byte_scale"), 0 when it does not set it: for errors found
// after decoding.
func (c *Config) LineOf(path string) int { return c.lines[path] }

// Name is the scenario file's name, for errors.
func (c *Config) Name() string { return c.name }

// Dir is the directory relative paths in the scenario (a trace file) are
// taken from: the file's own, for a scenario Load read.
func (c *Config) Dir() string { return c.dir }

// decodeParams decodes the policy's params node strictly, so that a
// misspelt parameter is an error naming its line, not a silent default.
//
// yaml.v3 decodes a node strictly only from text, so the node is written
// out again and decoded; the lines the decoder reports are then lines of
// that text, and are put back at the file's lines: an unknown field's at
// its key in the node, any other at its offset from the node's first line
// (at that line for a flow-style map, whose keys may share it).
func decodeParams(n *yaml.Node) func(any) error { return decodeSection(n, "policy.params") }

// decodeSection decodes node n, the field at path, strictly into its
// argument, with errors at the file's lines.
func decodeSection(n *yaml.Node, path string) func(any) error {
	return func(into any) error {
		if n.Kind == 0 {
			return nil
		}
		if err := checkParams(n, reflect.TypeOf(into), ""); err != nil {
			// A policy's parameter error is placed by policyErr, as the
			// policy's own are; another section's names its line here.
			var pe *paramError
			switch {
			case !errors.As(err, &pe):
			case pe.path == "":
				return fmt.Errorf("line %d: %s: %s", pe.line, path, pe.msg)
			case path != "policy.params":
				return fmt.Errorf("line %d: %s.%s: %s", pe.line, path, pe.path, pe.msg)
			}
			return err
		}
		b, err := yaml.Marshal(n)
		if err != nil {
			return err
		}
		dec := yaml.NewDecoder(bytes.NewReader(b))
		dec.KnownFields(true)
		if err := dec.Decode(into); err != nil && !errors.Is(err, io.EOF) {
			msg := strings.TrimPrefix(err.Error(), "yaml: ")
			msg = strings.TrimPrefix(msg, "unmarshal errors:\n")
			msg = paramLine.ReplaceAllStringFunc(msg, func(m string) string {
				sub := paramLine.FindStringSubmatch(m)
				if sub[2] != "" {
					if line, top := keyLine(n, sub[2]), isKey(n, sub[2]); line > 0 && top {
						// A misspelt name at the top: say what is taken.
						what, has := "field", path+" has"
						if path == "policy.params" {
							what, has = "parameter", "the policy takes"
						}
						return fmt.Sprintf("line %d: %s: no such %s; %s %s", line, sub[2], what, has, fieldList(reflect.TypeOf(into)))
					} else if line > 0 {
						return fmt.Sprintf("line %d: field %s not found", line, sub[2])
					}
				}
				line, _ := strconv.Atoi(sub[1])
				line += n.Line - 1
				if n.Style&yaml.FlowStyle != 0 {
					line = n.Line // written out again, a flow map spreads over lines of its own
				}
				return fmt.Sprintf("line %d: %s", line, strings.TrimPrefix(m, "line "+sub[1]+": "))
			})
			msg = strings.TrimSpace(unknownType.ReplaceAllString(msg, ""))
			return fmt.Errorf("%s: %s", path, msg)
		}
		return nil
	}
}

var (
	// paramLine matches a line reference in a yaml.v3 decode error, with
	// the unknown field's name when that is the error.
	paramLine = regexp.MustCompile(`line (\d+): (?:field (\S+) not found)?`)
	// unknownType is the Go type yaml.v3 names after an unknown field,
	// which means nothing to a scenario's author.
	unknownType = regexp.MustCompile(` in type [\w.]+`)
)

// isKey reports whether mapping n has key at its top.
func isKey(n *yaml.Node, key string) bool {
	if n.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return true
		}
	}
	return false
}

// fieldList names the YAML fields of the struct t points to, in order.
func fieldList(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return "no fields"
	}
	return fieldNames(yamlFields(t))
}

// keyLine returns the line of the first mapping key named key in n or
// below it, 0 if there is none.
func keyLine(n *yaml.Node, key string) int {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				return n.Content[i].Line
			}
		}
	}
	for _, c := range n.Content {
		if l := keyLine(c, key); l > 0 {
			return l
		}
	}
	return 0
}
