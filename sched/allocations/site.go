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
	// does not take, with their lines.
	Warnings []string
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
)

var localityProps = []string{propH1Delay, propH1DelayNode, propH1DelayRack, propThreshNode, propThreshRack,
	propDelayNodeMS, propDelayRackMS, propContinuousOn}

// ParseSite reads a site configuration from r; file names it in errors.
// A property without a name is an error at its line; a name given twice
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
		if (strings.HasPrefix(name, "mapred.fairscheduler.") || strings.HasPrefix(name, "yarn.scheduler.fair.")) && !slices.Contains(localityProps, name) {
			s.Warnings = append(s.Warnings, fmt.Sprintf("%s:%d: %s is not modelled; ignored", file, p.line, name))
		}
	}
	return s, nil
}

func (s *Site) number(name string) (float64, int, bool, error) {
	p, ok := s.props[name]
	if !ok {
		return 0, 0, false, nil
	}
	v, err := strconv.ParseFloat(p.value, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		// Hadoop reads these as a long or a float; NaN and infinities
		// would reach a delay policy as a wait no setting can have.
		return 0, p.line, false, &ParseError{File: s.File, Line: p.line, Element: name, Err: fmt.Errorf("%q is not a finite number", p.value)}
	}
	return v, p.line, true, nil
}

// LocalityWaits are the delay scheduling waits the file sets, in
// seconds: node, the wait for a node-local slot before a rack-local one
// (the delay policy's t1_s), and rack, the further wait before an
// off-rack one (t2_s); nil where the file sets none. heartbeatS is the
// engine's heartbeat.
//
// Hadoop 1: mapred.fairscheduler.locality.delay (ms) is both waits, and
// its .nodelocal and .racklocal forms each one (as the Fair Scheduler
// releases that have them read them); -1 is 1.5 heartbeats. YARN: a threshold (a fraction of
// the cluster's nodes; -1 or absent: no wait, YARN's default) lets a job
// pass over that many scheduling opportunities, one a node heartbeat; n
// nodes heartbeat n times a heartbeat period, so threshold x n
// opportunities last threshold x heartbeatS seconds, whatever n. With
// continuous scheduling enabled YARN waits by time instead, the
// locality-delay-node-ms and -rack-ms properties.
func (s *Site) LocalityWaits(heartbeatS float64) (node, rack *float64, err error) {
	set := func(into **float64, v float64) { *into = &v }
	// Hadoop 1's -1 (its default) is 1.5 heartbeats (FairScheduler's
	// autoComputeLocalityDelay).
	h1 := func(v float64) float64 {
		if v < 0 {
			return 1.5 * heartbeatS
		}
		return v / 1000
	}
	if v, _, ok, err := s.number(propH1Delay); err != nil {
		return nil, nil, err
	} else if ok {
		set(&node, h1(v))
		set(&rack, h1(v))
	}
	// waits sets node's and rack's waits from the properties nodeProp and
	// rackProp, where they are given, in seconds by conv.
	waits := func(nodeProp, rackProp string, conv func(float64) float64) error {
		for _, p := range []struct {
			name string
			into **float64
		}{{nodeProp, &node}, {rackProp, &rack}} {
			if v, _, ok, err := s.number(p.name); err != nil {
				return err
			} else if ok {
				set(p.into, conv(v))
			}
		}
		return nil
	}
	if err := waits(propH1DelayNode, propH1DelayRack, h1); err != nil {
		return nil, nil, err
	}
	continuous := strings.EqualFold(s.props[propContinuousOn].value, "true")
	if continuous {
		if err := waits(propDelayNodeMS, propDelayRackMS, func(ms float64) float64 { return ms / 1000 }); err != nil {
			return nil, nil, err
		}
		return node, rack, nil
	}
	for _, p := range []struct {
		name string
		into **float64
	}{{propThreshNode, &node}, {propThreshRack, &rack}} {
		v, line, ok, err := s.number(p.name)
		switch {
		case err != nil:
			return nil, nil, err
		case !ok:
		case v > 1:
			return nil, nil, &ParseError{File: s.File, Line: line, Element: p.name, Err: fmt.Errorf("%v; want a fraction of the cluster's nodes, 0 to 1, or -1 for none", v)}
		case v < 0:
			set(p.into, 0) // YARN's -1: no wait
		default:
			set(p.into, v*heartbeatS)
		}
	}
	return node, rack, nil
}
