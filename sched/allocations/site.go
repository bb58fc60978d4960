package allocations

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Site is a Hadoop site configuration (mapred-site.xml, yarn-site.xml):
// <configuration> of <property> name and value pairs. The Fair
// Scheduler's locality waits live there, not in the allocation file.
type Site struct {
	File  string
	props map[string]siteProp
	// Warnings name the Fair Scheduler properties of the file the model
	// does not take, and the locality settings that do not apply as
	// written, with their lines.
	Warnings []string

	warnings            []siteWarning // Warnings as they are found, with their lines
	w                   siteWaits
	preempt, preemptSet bool
	// YARN's placement switches, as Configuration.getBoolean reads them
	// (true where the file leaves them out, YARN's defaults).
	userAsDefault, undeclared bool
	engine                    []EngineSetting
	utilization               float64
	utilizationSet            bool
	sizeWeight                string // SizeBasedWeight's mode, "" where the file sets none
}

type siteProp struct {
	value string
	line  int
}

// LoadSite reads the site configuration at path.
func LoadSite(path string) (*Site, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseSite(f, path)
}

// The locality properties the model takes.
const (
	propH1Delay      = "mapred.fairscheduler.locality.delay"
	propH1DelayNode  = "mapred.fairscheduler.locality.delay.nodelocal"
	propH1DelayRack  = "mapred.fairscheduler.locality.delay.racklocal"
	propThreshNode   = "yarn.scheduler.fair.locality.threshold.node"
	propThreshRack   = "yarn.scheduler.fair.locality.threshold.rack"
	propDelayNodeMS  = "yarn.scheduler.fair.locality-delay-node-ms"
	propDelayRackMS  = "yarn.scheduler.fair.locality-delay-rack-ms"
	propContinuousOn = "yarn.scheduler.fair.continuous-scheduling-enabled"
	propH1Preempt    = "mapred.fairscheduler.preemption"
	// propH1PreemptLog true has Hadoop 1 log the tasks it would preempt
	// and kill none (FairScheduler.preemptTasks, onlyLogPreemption).
	propH1PreemptLog = "mapred.fairscheduler.preemption.only.log"
	propYARNPreempt  = "yarn.scheduler.fair.preemption"

	// The placement properties, read with an allocation file (UseSite).
	propPoolName      = "mapred.fairscheduler.poolnameproperty"
	propUserAsDefault = "yarn.scheduler.fair.user-as-default-queue"
	propUndeclared    = "yarn.scheduler.fair.allow-undeclared-pools"
)

// placementProps are the properties UseSite reads, and engineProps the
// Fair Scheduler's that engineSettings reads.
var (
	placementProps = []string{propPoolName, propUserAsDefault, propUndeclared}
	engineProps    = []string{"yarn.scheduler.fair.assignmultiple", "yarn.scheduler.fair.max.assign", "yarn.scheduler.fair.dynamic.max.assign", "mapred.fairscheduler.assignmultiple",
		propH1PreemptInterval, propYARNPreemptInterval, propH1LoadManager,
		"mapred.fairscheduler.assignmultiple.maps", "mapred.fairscheduler.assignmultiple.reduces"}
)

var localityProps = []string{propH1Delay, propH1DelayNode, propH1DelayRack, propThreshNode, propThreshRack,
	propDelayNodeMS, propDelayRackMS, propContinuousOn}

// readElsewhere are Fair Scheduler properties whose setting the model
// takes from another input, with what to say of them.
var readElsewhere = map[string]string{
	"mapred.fairscheduler.allocation.file": "the allocation file is read from policy.allocations (compare -allocations), not from this path",
	"yarn.scheduler.fair.allocation.file":  "the allocation file is read from policy.allocations (compare -allocations), not from this path",
	propH1Update:                           "read only as the shortest preemption interval (the model's fair shares follow every event)",
	propYARNUpdate:                         "read only as the shortest preemption interval (the model's fair shares follow every event)",
}

// ParseSite reads a site configuration from r; file names it in errors.
// A property without a name is an error at its line, and so is a
// locality setting Hadoop could not read as its type; a name given twice
// keeps its last value, as Hadoop's Configuration does.
func ParseSite(r io.Reader, file string) (*Site, error) {
	root, err := readTree(r, file)
	if err != nil {
		return nil, err
	}
	if root.name != "configuration" {
		return nil, &ParseError{File: file, Line: root.line, Element: root.name, Err: errors.New("want <configuration> as the root element (a Hadoop site file)")}
	}
	s := &Site{File: file, props: map[string]siteProp{}}
	for _, p := range root.kids {
		if p.name != "property" {
			continue
		}
		var name, value string
		for _, k := range p.kids {
			switch k.name {
			case "name":
				name = k.value()
			case "value":
				value = k.value()
			}
		}
		if name == "" {
			return nil, &ParseError{File: file, Line: p.line, Element: "property", Err: errors.New("a property without its <name>")}
		}
		s.props[name] = siteProp{value: value, line: p.line}
	}
	// Warnings in the order of the file's lines, each property once (the
	// last of a name given twice is the one read).
	names := make([]string, 0, len(s.props))
	for name := range s.props {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int { return s.props[a].line - s.props[b].line })
	for _, name := range names {
		if !strings.HasPrefix(name, "mapred.fairscheduler.") && !strings.HasPrefix(name, "yarn.scheduler.fair.") ||
			slices.Contains(localityProps, name) || slices.Contains(placementProps, name) || slices.Contains(engineProps, name) ||
			name == propH1Preempt || name == propH1PreemptLog || name == propYARNPreempt || name == propUtilization || name == propH1SizeWeight || name == propYARNSizeWeight {
			continue
		}
		what := "not modelled; ignored"
		if w, ok := readElsewhere[name]; ok {
			what = w
		}
		s.warn(s.props[name].line, "%s: %s", name, what)
	}
	if s.w, err = s.waits(); err != nil {
		return nil, err
	}
	s.preempt, s.preemptSet = s.boolean(propYARNPreempt, false)
	if !s.preemptSet {
		s.preempt, s.preemptSet = s.boolean(propH1Preempt, false)
		if onlyLog, _ := s.boolean(propH1PreemptLog, false); onlyLog && s.preempt {
			s.preempt = false
			s.warn(s.props[propH1PreemptLog].line, "%s: true logs the tasks Hadoop 1 would preempt and kills none; read as preemption off", propH1PreemptLog)
		}
	}
	s.userAsDefault, _ = s.boolean(propUserAsDefault, true)
	s.undeclared, _ = s.boolean(propUndeclared, true)
	if s.engine, err = s.engineSettings(); err != nil {
		return nil, err
	}
	if err := s.readUtilization(); err != nil {
		return nil, err
	}
	s.sizeWeight = s.readSizeWeight()
	slices.SortStableFunc(s.warnings, func(a, b siteWarning) int { return a.line - b.line })
	for _, w := range s.warnings {
		s.Warnings = append(s.Warnings, w.text)
	}
	return s, nil
}

// boolean reads a property as Configuration.getBoolean does: true or
// false in any case, trimmed. Hadoop reads any other value as the
// default, def, which a warning says; set is false where the file leaves
// the property out.
func (s *Site) boolean(name string, def bool) (v, set bool) {
	p, ok := s.props[name]
	if !ok {
		return def, false
	}
	switch strings.ToLower(strings.TrimSpace(p.value)) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	s.warn(p.line, "%s: %q is neither true nor false; Hadoop reads it as %v, its default", name, p.value, def)
	return def, true
}

// Preemption is the Fair Scheduler's preemption switch as the file sets
// it (yarn.scheduler.fair.preemption, or Hadoop 1's
// mapred.fairscheduler.preemption); set is false where it sets neither.
func (s *Site) Preemption() (enabled, set bool) { return s.preempt, s.preemptSet }

// The Fair Scheduler's size-based weight switches.
const (
	propH1SizeWeight   = "mapred.fairscheduler.sizebasedweight"
	propYARNSizeWeight = "yarn.scheduler.fair.sizebasedweight"
)

// SizeBasedWeight is the Fair Scheduler's sizebasedweight as the file
// sets it, in the fair order's words (sched.FairParams.SizeBasedWeight):
// "tasks" for Hadoop 1's switch on, "memory" for YARN's, "none" for
// either off; set is false where the file sets neither.
func (s *Site) SizeBasedWeight() (mode string, set bool) { return s.sizeWeight, s.sizeWeight != "" }

func (s *Site) readSizeWeight() string {
	for _, c := range []struct{ prop, mode string }{{propYARNSizeWeight, "memory"}, {propH1SizeWeight, "tasks"}} {
		if on, ok := s.boolean(c.prop, false); ok {
			if on {
				return c.mode
			}
			return "none"
		}
	}
	return ""
}

// propUtilization gates YARN's preemption on the cluster's use.
const propUtilization = "yarn.scheduler.fair.preemption.cluster-utilization-threshold"

// PreemptionUtilization is the cluster use above which YARN's Fair
// Scheduler kills tasks, for a YARN file that sets preemption: its
// yarn.scheduler.fair.preemption.cluster-utilization-threshold, else
// YARN's 0.8; set is false for a file without YARN's preemption switch.
func (s *Site) PreemptionUtilization() (threshold float64, set bool) {
	return s.utilization, s.utilizationSet
}

func (s *Site) readUtilization() error {
	_, yarn := s.props[propYARNPreempt]
	_, given := s.props[propUtilization]
	if !yarn && !given {
		return nil
	}
	v, p, err := s.float(propUtilization, 0.8)
	if err != nil {
		return err
	}
	if v < 0 || v > 1 {
		return s.errAt(p, "%v; want a fraction of the cluster, 0 to 1", v)
	}
	s.utilization, s.utilizationSet = v, true
	return nil
}

// prop is a property the file sets, with its line, for the locality
// rules below.
type prop struct {
	name string
	line int
	set  bool
}

func (s *Site) lookup(name string) (prop, string) {
	p, ok := s.props[name]
	return prop{name: name, line: p.line, set: ok}, p.value
}

func (s *Site) errAt(p prop, format string, args ...any) error {
	return &ParseError{File: s.File, Line: p.line, Element: p.name, Err: fmt.Errorf(format, args...)}
}

// long reads a property as Hadoop's Configuration.getLong does: trimmed,
// decimal or hexadecimal after 0x, a whole number in a long's range; def
// where the file leaves it out. A fraction of a millisecond is an error,
// as it stops Hadoop's daemon at start-up.
func (s *Site) long(name string, def int64) (int64, prop, error) {
	p, raw := s.lookup(name)
	if !p.set {
		return def, p, nil
	}
	v := strings.TrimSpace(raw)
	sign, digits := "", v
	if strings.HasPrefix(digits, "-") {
		sign, digits = "-", digits[1:]
	}
	var n int64
	var err error
	if len(digits) > 2 && (digits[:2] == "0x" || digits[:2] == "0X") {
		n, err = strconv.ParseInt(sign+digits[2:], 16, 64)
	} else {
		n, err = strconv.ParseInt(v, 10, 64)
	}
	if err != nil {
		return 0, p, s.errAt(p, "%q is not a whole number (Hadoop reads it as a long)", raw)
	}
	return n, p, nil
}

// float reads a property as Configuration.getFloat does, trimmed; def
// where the file leaves it out. NaN and infinities are errors: no
// threshold can be one.
func (s *Site) float(name string, def float64) (float64, prop, error) {
	p, raw := s.lookup(name)
	if !p.set {
		return def, p, nil
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, p, s.errAt(p, "%q is not a finite number", raw)
	}
	return v, p, nil
}

// maxAutoDelayS caps Hadoop 1's automatic wait, 1.5 heartbeats
// (FairScheduler's MAX_AUTOCOMPUTED_LOCALITY_DELAY, 15,000 ms).
const maxAutoDelayS = 15

// siteWaits is what a site file says of the delay scheduling waits,
// before a heartbeat turns it into seconds.
type siteWaits struct {
	set bool
	// auto is Hadoop 1's -1: both waits 1.5 heartbeats, at most 15 s.
	auto bool
	// perHeartbeat: node and rack are YARN thresholds, each that
	// fraction of a heartbeat; otherwise they are seconds.
	perHeartbeat bool
	node, rack   float64
}

// waits reads the locality properties by the rules of the scheduler
// whose properties the file holds, YARN's where it holds both kinds,
// and appends what does not apply as written to the warnings.
func (s *Site) waits() (siteWaits, error) {
	var yarnSet, h1Set []string
	for _, name := range localityProps {
		if _, ok := s.props[name]; ok {
			if strings.HasPrefix(name, "yarn.") {
				yarnSet = append(yarnSet, name)
			} else {
				h1Set = append(h1Set, name)
			}
		}
	}
	if len(yarnSet) > 0 {
		if len(h1Set) > 0 {
			s.warn(s.props[h1Set[0]].line, "%s: Hadoop 1's locality settings beside YARN's; YARN's are used", strings.Join(h1Set, ", "))
		}
		return s.yarnWaits()
	}
	if len(h1Set) > 0 || s.namesHadoop1Fair() {
		// A JobTracker running the Fair Scheduler with none of the
		// properties set waits by its automatic delay.
		return s.hadoop1Waits()
	}
	return siteWaits{}, nil
}

// hadoop1FairScheduler is the Fair Scheduler's class, which
// mapred.jobtracker.taskScheduler names to have Hadoop 1's JobTracker run
// it.
const hadoop1FairScheduler = "org.apache.hadoop.mapred.FairScheduler"

// namesHadoop1Fair reports whether the file has the JobTracker run the
// Fair Scheduler.
func (s *Site) namesHadoop1Fair() bool {
	p, ok := s.props["mapred.jobtracker.taskScheduler"]
	return ok && strings.TrimSpace(p.value) == hadoop1FairScheduler
}

func (s *Site) warn(line int, format string, args ...any) {
	s.warnings = append(s.warnings, siteWarning{line, fmt.Sprintf("%s:%d: ", s.File, line) + fmt.Sprintf(format, args...)})
}

type siteWarning struct {
	line int
	text string
}

// hadoop1Waits: mapred.fairscheduler.locality.delay (ms, default -1) is
// both waits, and the .nodelocal and .racklocal forms each one, in the
// Fair Scheduler releases that have them. When the delay is -1 and so is
// one of the two (Hadoop 1.2.1 has only the delay), both waits are
// computed from the heartbeat (autoComputeLocalityDelay). A negative
// wait otherwise passes every comparison with the time waited: no wait.
func (s *Site) hadoop1Waits() (siteWaits, error) {
	def, _, err := s.long(propH1Delay, -1)
	if err != nil {
		return siteWaits{}, err
	}
	node, _, err := s.long(propH1DelayNode, def)
	if err != nil {
		return siteWaits{}, err
	}
	rack, _, err := s.long(propH1DelayRack, def)
	if err != nil {
		return siteWaits{}, err
	}
	if def == -1 && (node == -1 || rack == -1) {
		return siteWaits{set: true, auto: true}, nil
	}
	sec := func(ms int64) float64 { return float64(max(ms, 0)) / 1000 }
	return siteWaits{set: true, node: sec(node), rack: sec(rack)}, nil
}

// yarnWaits: without continuous scheduling a job passes over threshold x
// n scheduling opportunities a level, one a node heartbeat (YARN caps a
// threshold at 1); n nodes heartbeat n times a heartbeat period, so that
// lasts threshold heartbeats, whatever n. With continuous scheduling it
// waits by time, locality-delay-node-ms and -rack-ms. Either way the two
// properties default to -1, and either one below 0 turns delay
// scheduling off at both levels (FSAppAttempt.getAllowedLocalityLevel
// and getAllowedLocalityLevelByTime).
func (s *Site) yarnWaits() (siteWaits, error) {
	continuous, _ := s.boolean(propContinuousOn, false)
	nodeProp, rackProp, read := propThreshNode, propThreshRack, s.float
	unread, why := []string{propDelayNodeMS, propDelayRackMS}, "read only with "+propContinuousOn+" true; not read"
	if continuous {
		nodeProp, rackProp, read = propDelayNodeMS, propDelayRackMS, s.longMS
		unread, why = []string{propThreshNode, propThreshRack}, "not read with continuous scheduling, which waits by "+propDelayNodeMS+" and "+propDelayRackMS
	}
	for _, name := range unread {
		if p, ok := s.props[name]; ok {
			s.warn(p.line, "%s: %s", name, why)
		}
	}
	node, pn, err := read(nodeProp, -1)
	if err != nil {
		return siteWaits{}, err
	}
	rack, pr, err := read(rackProp, -1)
	if err != nil {
		return siteWaits{}, err
	}
	switch {
	case !pn.set && !pr.set && continuous:
		s.warn(s.props[propContinuousOn].line, "%s: no wait: with continuous scheduling YARN does no delay scheduling unless %s and %s are 0 or more", propContinuousOn, propDelayNodeMS, propDelayRackMS)
		return siteWaits{set: true}, nil
	case !pn.set && !pr.set:
		return siteWaits{}, nil
	}
	for _, t := range []struct {
		p prop
		v *float64
	}{{pn, &node}, {pr, &rack}} {
		if !continuous && *t.v > 1 {
			s.warn(t.p.line, "%s: %v is above 1, which YARN reads as 1 (a pass over every node)", t.p.name, *t.v)
			*t.v = 1
		}
	}
	if node < 0 || rack < 0 {
		s.warnOff(pn, pr, node, rack)
		return siteWaits{set: true}, nil
	}
	if continuous {
		return siteWaits{set: true, node: node / 1000, rack: rack / 1000}, nil
	}
	return siteWaits{set: true, perHeartbeat: true, node: node, rack: rack}, nil
}

// longMS reads a millisecond property as long does, as a float64.
func (s *Site) longMS(name string, def float64) (float64, prop, error) {
	v, p, err := s.long(name, int64(def))
	return float64(v), p, err
}

// warnOff says why a YARN file that sets one level's wait gets none:
// the other level's property is below 0 or left at its default, -1.
func (s *Site) warnOff(pn, pr prop, node, rack float64) {
	for _, c := range []struct {
		set, other prop
		v, ov      float64
	}{{pn, pr, node, rack}, {pr, pn, rack, node}} {
		if c.set.set && c.v >= 0 && c.ov < 0 {
			how := "is " + strconv.FormatFloat(c.ov, 'g', -1, 64)
			if !c.other.set {
				how = "is left at its default, -1"
			}
			s.warn(c.set.line, "%s: no wait: YARN does no delay scheduling at either level while %s %s", c.set.name, c.other.name, how)
		}
	}
}

// LocalityWaits are the delay scheduling waits the file sets, in
// seconds: node, the wait for a node-local slot before a rack-local one
// (the delay policy's t1_s), and rack, the further wait before an
// off-rack one (t2_s); nil where the file sets none. heartbeatS is the
// engine's heartbeat, which Hadoop 1's automatic wait and YARN's
// thresholds are counted in. The rules are Hadoop's, read in waits and
// the functions it calls.
func (s *Site) LocalityWaits(heartbeatS float64) (node, rack *float64) {
	w := s.w
	if !w.set {
		return nil, nil
	}
	n, r := w.node, w.rack
	switch {
	case w.auto:
		n = min(1.5*heartbeatS, maxAutoDelayS)
		r = n
	case w.perHeartbeat:
		n, r = n*heartbeatS, r*heartbeatS
	}
	return &n, &r
}

// PlacementSettings names the placement properties the file sets, with
// their lines: they apply with an allocation file (Config.UseSite).
func (s *Site) PlacementSettings() []string {
	var out []string
	for _, name := range placementProps {
		if p, ok := s.props[name]; ok {
			out = append(out, fmt.Sprintf("%s:%d: %s", s.File, p.line, name))
		}
	}
	return out
}

// Kind is the scheduler the file configures: YARN for a yarn-site.xml
// (a yarn. property), Hadoop 1 for a mapred-site.xml with the
// JobTracker's or its Fair Scheduler's properties, "" where it names
// neither.
func (s *Site) Kind() Kind {
	switch {
	case s.holds("yarn."):
		return YARN
	case s.holds("mapred.fairscheduler.") || s.holds("mapred.jobtracker."):
		return Hadoop1
	}
	return ""
}

// holds reports whether the file sets a property whose name starts with
// prefix.
func (s *Site) holds(prefix string) bool {
	for name := range s.props {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}
