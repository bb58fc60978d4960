// Package allocations reads a Fair Scheduler allocation file, Hadoop 1's
// (pools) or YARN's (nested queues), into a tree of queues; places jobs in
// them by the file's rules (PoolFor); and divides a cluster's slots or
// containers down the tree as YARN's Fair Scheduler does (Tree). It says,
// by warnings, which settings of the file the simulator does not model.
package allocations

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// Kind is the scheduler an allocation file is for.
type Kind string

// The kinds.
const (
	Hadoop1 Kind = "hadoop1" // Hadoop 1's FairScheduler: <pool> with minMaps ...
	YARN    Kind = "yarn"    // YARN's FairScheduler: nested <queue> with minResources ...
)

// Resource is a YARN resource string's value (minResources,
// maxResources): absolute memory and vcores, or fractions of the
// cluster's. Unlimited marks a maxResources that leaves a resource out.
type Resource struct {
	MemoryMB, VCores   float64
	Percent            bool // MemoryMB and VCores are fractions of the cluster (0.5 = 50%)
	MemUnset, CPUUnset bool // the string leaves the resource out (new-style strings)
	Text               string
}

// Queue is one pool (Hadoop 1) or queue (YARN).
type Queue struct {
	// Name is the queue's path below the root, dotted ("prod.etl"); a
	// top-level queue's is the name the file gives it. The root's is
	// "root".
	Name string
	// FileName is the name attribute as the file gives it.
	FileName string
	Weight   float64 // default 1
	// Hadoop 1: minimum and maximum map and reduce slots (0: none).
	MinMaps, MinReduces, MaxMaps, MaxReduces int
	// YARN: minimum and maximum resources; nil when not given.
	MinResources, MaxResources *Resource
	// MaxRunning is maxRunningJobs (Hadoop 1) or maxRunningApps (YARN);
	// 0 when not given.
	MaxRunning int
	// Mode is how the queue shares among its jobs: "fair", "fifo" or
	// "drf" (YARN's schedulingPolicy, Hadoop 1's schedulingMode).
	Mode string
	// Preemption timeouts (seconds) and threshold; 0 when not given.
	MinSharePreemptionTimeoutS, FairSharePreemptionTimeoutS, FairSharePreemptionThreshold float64
	Parent                                                                                *Queue
	Children                                                                              []*Queue
	// NoPreemptionFrom is YARN's allowPreemptionFrom false: the queue's
	// tasks are not killed for another queue.
	NoPreemptionFrom bool
	// Declared is false for a queue placement created (a user's queue).
	Declared bool
	Line     int
}

// Rule is one rule of a YARN queuePlacementPolicy.
type Rule struct {
	Name   string // specified, user, primaryGroup, secondaryGroupExistingQueue, nestedUserQueue, default, reject
	Create bool   // the create attribute (default true)
	Queue  string // default's queue attribute
	Nested *Rule  // nestedUserQueue's inner rule
	Line   int
}

// Config is an allocation file.
type Config struct {
	Kind Kind
	File string
	Root *Queue
	// Queues lists every queue below the root, in file order (a parent
	// before its children).
	Queues []*Queue
	// Users' running-job limits (<user name=...><maxRunningJobs>) and the
	// file-wide defaults; 0 when not given.
	UserMaxRunning     map[string]int
	UserMaxJobsDefault int
	PoolMaxJobsDefault int
	// File-wide preemption settings (seconds; threshold a fraction).
	FairSharePreemptionTimeoutS, DefaultMinSharePreemptionTimeoutS, DefaultFairSharePreemptionThreshold float64
	// DefaultMode is the mode of queues that give none.
	DefaultMode string
	// DefaultMaxResources is YARN's queueMaxResourcesDefault, the maximum
	// of a queue that gives none; nil when not given.
	DefaultMaxResources *Resource
	// Placement is YARN's queuePlacementPolicy; nil means the default
	// policy (see PoolFor).
	Placement []Rule
	// Warnings name every setting the simulator does not model, and
	// anything the reader skipped, with its line.
	Warnings []string
	byName   map[string]*Queue
	// poolName is Hadoop 1's mapred.fairscheduler.poolnameproperty from
	// a site file (user.name, its default, where a Hadoop 1 site file
	// sets none); "" without one. poolNameAt is where the file sets it,
	// "file:line", for warnings; "" where it is the default.
	poolName, poolNameAt string
	// sitePlacement is YARN's placement from a site file's switches,
	// where the file has no queuePlacementPolicy (UseSite).
	sitePlacement []Rule
}

// ParseError is a bad element: the file, its line, the element, and why.
type ParseError struct {
	File    string
	Line    int
	Element string
	Err     error
}

// Error reads `fair-scheduler.xml:12: <weight>: "heavy" is not a number`.
func (e *ParseError) Error() string {
	s := e.File
	if e.Line > 0 {
		s += ":" + strconv.Itoa(e.Line)
	}
	if e.Element != "" {
		s += ": <" + e.Element + ">"
	}
	return s + ": " + e.Err.Error()
}

// Unwrap gives the cause.
func (e *ParseError) Unwrap() error { return e.Err }

// elem is an XML element with its line, read before it is interpreted.
type elem struct {
	name  string
	attrs map[string]string
	text  string
	kids  []*elem
	line  int
}

// readTree reads an XML document into elements, with lines.
func readTree(r io.Reader, file string) (*elem, error) {
	d := xml.NewDecoder(r)
	var stack []*elem
	var root *elem
	for {
		line, _ := d.InputPos()
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				return nil, &ParseError{File: file, Line: se.Line, Err: errors.New(se.Msg)}
			}
			return nil, &ParseError{File: file, Line: line, Err: err}
		}
		switch t := tok.(type) {
		case xml.StartElement:
			e := &elem{name: t.Name.Local, attrs: map[string]string{}, line: line}
			for _, a := range t.Attr {
				e.attrs[a.Name.Local] = a.Value
			}
			if len(stack) == 0 {
				if root != nil {
					return nil, &ParseError{File: file, Line: line, Element: e.name, Err: errors.New("a second root element")}
				}
				root = e
			} else {
				p := stack[len(stack)-1]
				p.kids = append(p.kids, e)
			}
			stack = append(stack, e)
			if len(stack) > 64 {
				return nil, &ParseError{File: file, Line: line, Element: e.name, Err: errors.New("nested deeper than 64 elements")}
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text += string(t)
			}
		}
	}
	if root == nil {
		return nil, &ParseError{File: file, Err: errors.New("no XML element; want <allocations>")}
	}
	return root, nil
}

// Load reads the allocation file at path.
func Load(path string) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(f, path)
}

// yarnOnly and hadoop1Only are elements one kind of file has and the
// other does not; they tell the kinds apart.
var (
	yarnOnly = map[string]bool{"minResources": true, "maxResources": true, "maxRunningApps": true, "schedulingPolicy": true,
		"queuePlacementPolicy": true, "userMaxAppsDefault": true, "queueMaxAppsDefault": true, "defaultQueueSchedulingPolicy": true,
		"maxAMShare": true, "queueMaxAMShareDefault": true, "maxChildResources": true, "queueMaxResourcesDefault": true,
		"fairSharePreemptionThreshold": true, "defaultFairSharePreemptionThreshold": true, "defaultFairSharePreemptionTimeout": true,
		"reservation": true, "allowPreemptionFrom": true, "maxContainerAllocation": true}
	hadoop1Only = map[string]bool{"minMaps": true, "minReduces": true, "maxMaps": true, "maxReduces": true,
		"poolMaxJobsDefault": true, "userMaxJobsDefault": true, "defaultPoolSchedulingMode": true}
)

func anyElement(e *elem, set map[string]bool) bool {
	if set[e.name] {
		return true
	}
	for _, k := range e.kids {
		if anyElement(k, set) {
			return true
		}
	}
	return false
}

func hasQueue(e *elem) bool {
	for _, k := range e.kids {
		if k.name == "queue" || hasQueue(k) {
			return true
		}
	}
	return false
}

// Parse reads an allocation file from r; file names it in errors. The
// kind is told from the elements: YARN's when the file has any element
// only YARN reads (minResources, schedulingPolicy, queuePlacementPolicy,
// ...) or a <queue>; Hadoop 1's otherwise.
func Parse(r io.Reader, file string) (*Config, error) {
	root, err := readTree(r, file)
	if err != nil {
		return nil, err
	}
	if root.name != "allocations" {
		return nil, &ParseError{File: file, Line: root.line, Element: root.name, Err: errors.New("want <allocations> as the root element")}
	}
	c := &Config{File: file, UserMaxRunning: map[string]int{}, byName: map[string]*Queue{}}
	c.Kind = Hadoop1
	if anyElement(root, yarnOnly) || hasQueue(root) {
		c.Kind = YARN
	}
	c.Root = &Queue{Name: "root", FileName: "root", Weight: 1, Declared: true, Line: root.line}
	c.byName["root"] = c.Root
	for _, k := range root.kids {
		if err := c.top(k); err != nil {
			return nil, err
		}
	}
	for _, q := range c.Queues {
		if q.Mode == "" {
			q.Mode = c.DefaultMode
		}
		if q.Mode == "" {
			q.Mode = "fair"
		}
	}
	return c, nil
}

func (c *Config) warnf(line int, format string, args ...any) {
	c.Warnings = append(c.Warnings, fmt.Sprintf("%s:%d: %s", c.File, line, fmt.Sprintf(format, args...)))
}

func (c *Config) errAt(e *elem, format string, args ...any) error {
	return &ParseError{File: c.File, Line: e.line, Element: e.name, Err: fmt.Errorf(format, args...)}
}

// text is an element's trimmed text.
func (e *elem) value() string { return strings.TrimSpace(e.text) }

func (c *Config) intVal(e *elem) (int, error) {
	v, err := strconv.Atoi(e.value())
	if err != nil || v < 0 {
		return 0, c.errAt(e, "%q; want a whole number, 0 or more", e.value())
	}
	return v, nil
}

func (c *Config) floatVal(e *elem) (float64, error) {
	v, err := strconv.ParseFloat(e.value(), 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, c.errAt(e, "%q; want a number, 0 or more", e.value())
	}
	return v, nil
}

// thresholdVal reads a fair-share preemption threshold as YARN does,
// clamped to 0..1 (AllocationFileLoaderService), naming a clamp in a
// warning. 0, which turns fair-share preemption off, is read as none
// given (the file's default, else YARN's 0.5), with a warning.
func (c *Config) thresholdVal(e *elem) (float64, error) {
	v, err := c.floatVal(e)
	switch {
	case err != nil:
		return 0, err
	case v > 1:
		c.warnf(e.line, "<%s> %v is above 1, which YARN reads as 1", e.name, v)
		return 1, nil
	case v == 0:
		c.warnf(e.line, "<%s> 0 turns fair-share preemption off, which is not modelled; read as not given", e.name)
	}
	return v, nil
}

// secondsVal reads a preemption timeout: whole seconds in Hadoop 1 and
// YARN allocation files alike (both read it with Long.parseLong and
// refuse a fraction). A timeout of 0 makes either scheduler preempt as
// soon as a pool is starved; the model's timeouts are above 0 (0 is
// "not given" throughout a scenario), so it is read as not given, with a
// warning.
func (c *Config) secondsVal(e *elem) (float64, error) {
	v, err := strconv.ParseInt(e.value(), 10, 64)
	if err != nil || v < 0 {
		return 0, c.errAt(e, "%q; want whole seconds, 0 or more", e.value())
	}
	if v == 0 {
		c.warnf(e.line, "<%s> 0 preempts as soon as a pool is starved, which is not modelled; read as not given", e.name)
	}
	return float64(v), nil
}

// top reads one child of <allocations>.
func (c *Config) top(e *elem) error {
	var err error
	switch e.name {
	case "pool", "queue":
		if c.Kind == Hadoop1 && e.name == "queue" {
			c.warnf(e.line, "<queue> in a Hadoop 1 file; read as a pool")
		}
		return c.queue(e, c.Root)
	case "user":
		return c.user(e)
	case "userMaxJobsDefault", "userMaxAppsDefault":
		if c.otherKinds(e, "userMaxJobsDefault") {
			return nil
		}
		c.UserMaxJobsDefault, err = c.intVal(e)
		c.zeroLimit(e, c.UserMaxJobsDefault, "every user without their own")
	case "poolMaxJobsDefault", "queueMaxAppsDefault":
		if c.otherKinds(e, "poolMaxJobsDefault") {
			return nil
		}
		c.PoolMaxJobsDefault, err = c.intVal(e)
		c.zeroLimit(e, c.PoolMaxJobsDefault, "every queue without its own")
	case "fairSharePreemptionTimeout", "defaultFairSharePreemptionTimeout":
		c.FairSharePreemptionTimeoutS, err = c.secondsVal(e)
	case "defaultMinSharePreemptionTimeout":
		c.DefaultMinSharePreemptionTimeoutS, err = c.secondsVal(e)
	case "defaultFairSharePreemptionThreshold":
		c.DefaultFairSharePreemptionThreshold, err = c.thresholdVal(e)
	case "defaultPoolSchedulingMode", "defaultQueueSchedulingPolicy", "defaultQueueSchedulingMode":
		// Hadoop 1 reads the first; YARN the other two, alike.
		if c.otherKinds(e, "defaultPoolSchedulingMode") {
			return nil
		}
		c.DefaultMode, err = c.mode(e)
		if c.DefaultMode == "drf" {
			c.warnf(e.line, "drf among a queue's jobs is modelled as fair (the model's jobs each ask one kind of container); between queues the tree divides memory")
		}
		if err == nil && c.Kind == YARN && c.DefaultMode == "fifo" {
			// AllocationFileLoaderService refuses it: a queue made for a
			// job would order by submission with no way to share.
			return c.errAt(e, "fifo; YARN's Fair Scheduler refuses fifo as the default policy (give it to queues, <schedulingPolicy>fifo</schedulingPolicy>)")
		}
	case "queueMaxResourcesDefault":
		if c.otherKinds(e, "") {
			return nil
		}
		c.DefaultMaxResources, err = c.resource(e, true)
	case "queuePlacementPolicy":
		if c.Kind != YARN {
			c.warnf(e.line, "<queuePlacementPolicy> is YARN's; ignored in a Hadoop 1 file")
			return nil
		}
		c.Placement, err = c.rules(e)
	default:
		c.notModelled(e, "")
	}
	return err
}

// otherKinds reports, with a warning, that element e, read under the name
// hadoop1Name by Hadoop 1 and under its YARN name by YARN, is in a file of
// the other kind, whose Fair Scheduler does not read it.
func (c *Config) otherKinds(e *elem, hadoop1Name string) bool {
	if (e.name == hadoop1Name) == (c.Kind == Hadoop1) {
		return false
	}
	c.warnf(e.line, "<%s> is not read by the %s Fair Scheduler this file is for; ignored", e.name, c.Kind)
	return true
}

// zeroCap warns of a cap of 0 running tasks, which would keep the pool's
// jobs from finishing: it is read as no cap.
func (c *Config) zeroCap(e *elem, v int, pool string) {
	if v == 0 {
		c.warnf(e.line, "<%s> 0 would keep the jobs of pool %s from finishing; read as no cap", e.name, pool)
	}
}

// zeroLimit warns of a running-job limit of 0: the Fair Scheduler then
// runs none of the queue's jobs, which a run that must finish its jobs
// cannot model, so the limit is read as none.
func (c *Config) zeroLimit(e *elem, v int, what string) {
	if v == 0 {
		c.warnf(e.line, "<%s> 0 would keep the jobs of %s from running; read as no limit", e.name, what)
	}
}

// notModelled warns that element e is read (or ignored) but not modelled.
func (c *Config) notModelled(e *elem, what string) {
	if what == "" {
		c.warnf(e.line, "<%s> is not modelled; ignored", e.name)
		return
	}
	c.warnf(e.line, "<%s> (%s) is not modelled; ignored", e.name, what)
}

func (c *Config) user(e *elem) error {
	name := e.attrs["name"]
	if name == "" {
		return c.errAt(e, "a <user> without its name attribute")
	}
	for _, k := range e.kids {
		switch k.name {
		case "maxRunningJobs", "maxRunningApps":
			v, err := c.intVal(k)
			if err != nil {
				return err
			}
			if c.Kind == YARN && k.name == "maxRunningJobs" {
				c.warnf(k.line, "<maxRunningJobs> under <user %s> is Hadoop 1's; YARN's Fair Scheduler reads maxRunningApps, so the user's limit is the default", name)
				continue
			}
			c.UserMaxRunning[name] = v
			c.zeroLimit(k, v, "user "+name)
		default:
			c.notModelled(k, "")
		}
	}
	return nil
}

func (c *Config) mode(e *elem) (string, error) {
	switch v := strings.ToLower(e.value()); v {
	case "fair", "fifo":
		return v, nil
	case "drf":
		if c.Kind != YARN {
			break
		}
		return v, nil
	}
	return "", c.errAt(e, "%q; want fair or fifo%s", e.value(), map[bool]string{true: " or drf", false: ""}[c.Kind == YARN])
}

// queue reads a <pool> or <queue> element under parent.
func (c *Config) queue(e *elem, parent *Queue) error {
	short := strings.TrimSpace(e.attrs["name"])
	if short == "" {
		return c.errAt(e, "a queue without its name attribute")
	}
	if strings.Contains(short, ".") && c.Kind == YARN {
		return c.errAt(e, "queue name %q has a '.', which separates levels of the tree", short)
	}
	name := short
	if parent != c.Root {
		name = parent.Name + "." + short
	} else if c.Kind == YARN && short == "root" {
		// <queue name="root"> is the root itself: its children are the
		// top-level queues.
		for _, k := range e.kids {
			if k.name == "queue" || k.name == "pool" {
				if err := c.queue(k, c.Root); err != nil {
					return err
				}
			} else if err := c.queueSetting(c.Root, k); err != nil {
				return err
			}
		}
		return nil
	}
	if _, dup := c.byName[name]; dup {
		return c.errAt(e, "queue %q is declared twice", name)
	}
	q := &Queue{Name: name, FileName: short, Weight: 1, Parent: parent, Declared: true, Line: e.line}
	c.byName[name] = q
	parent.Children = append(parent.Children, q)
	c.Queues = append(c.Queues, q)
	if t := e.attrs["type"]; t != "" && t != "parent" {
		c.warnf(e.line, "queue %s: type %q is not modelled", name, t)
	}
	for _, k := range e.kids {
		if k.name == "queue" || k.name == "pool" {
			if c.Kind == Hadoop1 {
				return c.errAt(k, "a pool inside pool %s: Hadoop 1's pools do not nest", name)
			}
			if err := c.queue(k, q); err != nil {
				return err
			}
			continue
		}
		if err := c.queueSetting(q, k); err != nil {
			return err
		}
	}
	return nil
}

// queueSetting reads one setting of queue q.
func (c *Config) queueSetting(q *Queue, k *elem) error {
	var err error
	h1, yarn := c.Kind == Hadoop1, c.Kind == YARN
	switch {
	case k.name == "weight":
		q.Weight, err = c.floatVal(k)
	case h1 && k.name == "minMaps":
		q.MinMaps, err = c.intVal(k)
	case h1 && k.name == "minReduces":
		q.MinReduces, err = c.intVal(k)
	case h1 && k.name == "maxMaps":
		q.MaxMaps, err = c.intVal(k)
		c.zeroCap(k, q.MaxMaps, q.Name)
	case h1 && k.name == "maxReduces":
		q.MaxReduces, err = c.intVal(k)
		c.zeroCap(k, q.MaxReduces, q.Name)
	case h1 && k.name == "maxRunningJobs", yarn && k.name == "maxRunningApps":
		q.MaxRunning, err = c.intVal(k)
		c.zeroLimit(k, q.MaxRunning, "queue "+q.Name)
	case yarn && k.name == "maxRunningJobs":
		c.warnf(k.line, "<maxRunningJobs> is Hadoop 1's; YARN's Fair Scheduler reads maxRunningApps, so queue %s has no running-job limit of its own", q.Name)
	case h1 && k.name == "schedulingMode", yarn && (k.name == "schedulingPolicy" || k.name == "schedulingMode"):
		// YARN reads Hadoop 1's schedulingMode as schedulingPolicy
		// (AllocationFileLoaderService.loadQueue).
		q.Mode, err = c.mode(k)
		if q.Mode == "drf" {
			c.warnf(k.line, "queue %s: drf among a queue's jobs is modelled as fair (the model's jobs each ask one kind of container); between queues the tree divides memory", q.Name)
		}
	case yarn && k.name == "minResources":
		q.MinResources, err = c.resource(k, false)
	case yarn && k.name == "maxResources":
		q.MaxResources, err = c.resource(k, true)
	case k.name == "minSharePreemptionTimeout":
		q.MinSharePreemptionTimeoutS, err = c.secondsVal(k)
	case yarn && k.name == "fairSharePreemptionTimeout":
		q.FairSharePreemptionTimeoutS, err = c.secondsVal(k)
	case yarn && k.name == "fairSharePreemptionThreshold":
		q.FairSharePreemptionThreshold, err = c.thresholdVal(k)
	case yarn && k.name == "allowPreemptionFrom":
		// Boolean.parseBoolean: anything but true is false.
		switch v := strings.ToLower(k.value()); v {
		case "true":
		case "false":
			q.NoPreemptionFrom = true
		default:
			c.warnf(k.line, "<allowPreemptionFrom> %q is not true, which YARN reads as false", k.value())
			q.NoPreemptionFrom = true
		}
	default:
		if (h1 && yarnOnly[k.name]) || (yarn && hadoop1Only[k.name]) {
			c.warnf(k.line, "<%s> is not read by the %s Fair Scheduler this file is for; ignored", k.name, c.Kind)
			return nil
		}
		c.notModelled(k, "")
	}
	return err
}

// resource reads a YARN resource string in every form the Fair Scheduler
// documents (FairSchedulerConfiguration.parseResourceConfigValue):
//
//   - "X mb, Y vcores": both required, in any order, fractions
//     truncated, as YARN's findResource reads them;
//   - "X%": that fraction of every resource of the cluster;
//   - "X% memory, Y% cpu": fractions of each, both required;
//   - "memory-mb=X, vcores=Y" (new style; a resource left out is 0 in a
//     minimum and unlimited in a maximum), or with percentages,
//     "memory-mb=X%, vcores=Y%".
//
// Negative values are refused, as YARN refuses them.
func (c *Config) resource(e *elem, isMax bool) (*Resource, error) {
	s := strings.ToLower(e.value())
	r := &Resource{Text: e.value()}
	bad := func(format string, args ...any) (*Resource, error) {
		return nil, c.errAt(e, "%q: %s", e.value(), fmt.Sprintf(format, args...))
	}
	if s == "" {
		return bad("empty; want \"X mb, Y vcores\", \"X%%\", \"X%% memory, Y%% cpu\" or \"memory-mb=X, vcores=Y\"")
	}
	switch {
	case strings.Contains(s, "="):
		r.Percent = strings.Contains(s, "%")
		r.MemUnset, r.CPUUnset = true, true
		for part := range strings.SplitSeq(s, ",") {
			k, v, ok := strings.Cut(part, "=")
			if !ok || strings.Count(part, "=") != 1 {
				return bad("every resource must be name=value")
			}
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			var x float64
			if r.Percent {
				p, ok := strings.CutSuffix(v, "%")
				f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
				if !ok || err != nil || !(f >= 0) || math.IsInf(f, 1) {
					return bad("%q: with one percentage every value must be a percentage, a finite number 0 or more", v)
				}
				x = f / 100
			} else {
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil || n < 0 {
					return bad("%q: want a whole number, 0 or more", v)
				}
				x = float64(n)
			}
			switch k {
			case "memory-mb", "memory":
				r.MemoryMB, r.MemUnset = x, false
			case "vcores":
				r.VCores, r.CPUUnset = x, false
			default:
				c.warnf(e.line, "resource %q is not modelled (the model has memory and vcores); ignored", k)
			}
		}
		if !isMax {
			r.MemUnset, r.CPUUnset = false, false // a minimum's missing resource is 0
		}
	case strings.Contains(s, "%"):
		r.Percent = true
		if !strings.Contains(s, ",") {
			f, ok := findNumber(s, `%`)
			if !ok {
				return bad("want a percentage")
			}
			r.MemoryMB, r.VCores = f/100, f/100
			break
		}
		mem, ok1 := findNumber(s, `%\s*memory`)
		cpu, ok2 := findNumber(s, `%\s*cpu`)
		if !ok1 || !ok2 {
			return bad("want \"X%% memory, Y%% cpu\" with both resources")
		}
		r.MemoryMB, r.VCores = mem/100, cpu/100
	default:
		mem, ok1 := findNumber(s, `\s*mb`)
		cpu, ok2 := findNumber(s, `\s*vcores`)
		if !ok1 || !ok2 {
			return bad("want \"X mb, Y vcores\" with both resources")
		}
		r.MemoryMB, r.VCores = math.Trunc(mem), math.Trunc(cpu)
	}
	if r.MemoryMB < 0 || r.VCores < 0 {
		return bad("a resource must not be negative")
	}
	return r, nil
}

// findNumber finds the first number followed by suffix (a regular
// expression) in s, as YARN's findResource and findPercentage do.
func findNumber(s, suffix string) (float64, bool) {
	re, err := regexp.Compile(`(-?\d+(\.\d*)?)` + suffix)
	if err != nil {
		return 0, false
	}
	m := re.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(m[1], 64)
	return v, err == nil
}

// Queue returns the queue of a name ("prod.etl", or "root.prod.etl"),
// nil when the file declares none.
func (c *Config) Queue(name string) *Queue {
	if q, ok := c.byName[name]; ok {
		return q
	}
	return c.byName[strings.TrimPrefix(name, "root.")]
}
