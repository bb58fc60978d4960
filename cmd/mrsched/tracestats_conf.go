package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/mrsched/mrsched/sched/allocations"
)

// confStats prints what the reader takes from an allocation file or a
// site file at path, and reports false when the file is neither (its
// root element is another), so that trace stats tries the next reader.
// A file of either kind that the reader refuses is an error.
func confStats(path string, asJSON bool, w io.Writer) (bool, error) {
	if !looksXML(path) {
		return false, nil
	}
	a, err := allocations.Load(path)
	switch {
	case err == nil:
		return true, allocationStats(a, asJSON, w)
	case !strings.Contains(err.Error(), "want <allocations> as the root element"):
		return isParseError(err), err
	}
	s, err := allocations.LoadSite(path)
	switch {
	case err == nil:
		return true, siteStats(s, asJSON, w)
	case !strings.Contains(err.Error(), "want <configuration> as the root element"):
		return isParseError(err), err
	}
	return false, nil
}

// isParseError reports whether err is the reader's, about the file's
// content, rather than a failure to open or read it (which leaves the
// file to the next reader).
func isParseError(err error) bool {
	_, ok := err.(*allocations.ParseError)
	return ok
}

// looksXML reports whether the file at path starts, past white space, with
// '<': an XML file, which only the configuration readers take.
func looksXML(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	t := bytes.TrimSpace(head[:n])
	return len(t) > 0 && t[0] == '<'
}

// allocationStats prints an allocation file's queues as the file gives
// them, its placement rules and defaults, and the reader's warnings.
func allocationStats(a *allocations.Config, asJSON bool, w io.Writer) error {
	type queue struct {
		Path       string  `json:"path"`
		Weight     float64 `json:"weight"`
		Mode       string  `json:"mode"`
		MinShare   string  `json:"min_share,omitempty"`
		MaxShare   string  `json:"max_share,omitempty"`
		MaxRunning int     `json:"max_running_jobs,omitempty"`
		Leaf       bool    `json:"leaf"`
	}
	var qs []queue
	for _, q := range a.Queues {
		e := queue{Path: q.Name, Weight: q.Weight, Mode: q.Mode, MaxRunning: q.MaxRunning, Leaf: len(q.Children) == 0}
		switch a.Kind {
		case allocations.Hadoop1:
			if q.MinMaps > 0 || q.MinReduces > 0 {
				e.MinShare = count(q.MinMaps, "map") + ", " + count(q.MinReduces, "reduce")
			}
			if q.MaxMaps > 0 || q.MaxReduces > 0 {
				e.MaxShare = count(q.MaxMaps, "map") + ", " + count(q.MaxReduces, "reduce")
			}
		default:
			if q.MinResources != nil {
				e.MinShare = q.MinResources.Text
			}
			if q.MaxResources != nil {
				e.MaxShare = q.MaxResources.Text
			}
		}
		qs = append(qs, e)
	}
	var rules []string
	for _, r := range a.Placement {
		rules = append(rules, ruleText(r))
	}
	warnings := a.Warnings
	if warnings == nil {
		warnings = []string{}
	}
	if asJSON {
		return writeJSON(w, map[string]any{
			"format": "allocations", "kind": string(a.Kind), "queues": qs, "placement": rules,
			"default_mode": a.DefaultMode, "pool_max_running_jobs_default": a.PoolMaxJobsDefault,
			"user_max_running_jobs": a.UserMaxRunning, "user_max_running_jobs_default": a.UserMaxJobsDefault,
			"warnings": warnings,
		})
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "format\t%s allocation file\n", a.Kind)
	fmt.Fprintf(tw, "queues\t%d\n", len(qs))
	for _, q := range qs {
		parts := []string{fmt.Sprintf("weight %v", q.Weight), q.Mode}
		if q.MinShare != "" {
			parts = append(parts, "min "+q.MinShare)
		}
		if q.MaxShare != "" {
			parts = append(parts, "max "+q.MaxShare)
		}
		if q.MaxRunning > 0 {
			parts = append(parts, fmt.Sprintf("at most %d jobs", q.MaxRunning))
		}
		if !q.Leaf {
			parts = append(parts, "parent")
		}
		fmt.Fprintf(tw, "  %s\t%s\n", q.Path, strings.Join(parts, ", "))
	}
	if len(rules) > 0 {
		fmt.Fprintf(tw, "placement\t%s\n", strings.Join(rules, ", "))
	}
	if a.PoolMaxJobsDefault > 0 || a.UserMaxJobsDefault > 0 || len(a.UserMaxRunning) > 0 {
		fmt.Fprintf(tw, "job limits\ta queue %s, a user %s, %d users their own\n", limitText(a.PoolMaxJobsDefault), limitText(a.UserMaxJobsDefault), len(a.UserMaxRunning))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, s := range warnings {
		fmt.Fprintf(w, "warning: %s\n", s)
	}
	return nil
}

func limitText(n int) string {
	if n <= 0 {
		return "none"
	}
	return fmt.Sprint(n)
}

// ruleText names a placement rule as the file writes it.
func ruleText(r allocations.Rule) string {
	s := r.Name
	if r.Queue != "" {
		s += " " + r.Queue
	}
	if r.Nested != nil {
		s += " (" + ruleText(*r.Nested) + ")"
	}
	if !r.Create {
		s += " create=false"
	}
	return s
}

// siteStats prints what a run takes from a site file: the locality waits
// (at the file's heartbeat, else the engine's 3 s), preemption, the
// engine's settings, a YARN node's containers, and the reader's warnings.
func siteStats(s *allocations.Site, asJSON bool, w io.Writer) error {
	hb := 3.0 // sim.Params' default heartbeat
	engine := map[string]float64{}
	var order [][2]string // section and setting
	for _, e := range s.Engine() {
		engine[e.Path] = e.Value
		section, name, _ := strings.Cut(e.Path, ".")
		line := fmt.Sprintf("%s %s (%s)", name, engineValue(e), e.Prop)
		if e.Path == "cluster.containers" {
			if mb, vc, err := s.ContainerMB(); err == nil {
				line += fmt.Sprintf(" a node, of %d MB and %s each", mb, count(int(vc), "vcore"))
			}
		}
		order = append(order, [2]string{section, line})
		if e.Path == "engine.heartbeat_s" {
			hb = e.Value
		}
	}
	node, rack := s.LocalityWaits(hb)
	on, preemptSet := s.Preemption()
	util, utilSet := s.PreemptionUtilization()
	weight, _ := s.SizeBasedWeight()
	warnings := s.Warnings
	if warnings == nil {
		warnings = []string{}
	}
	if asJSON {
		out := map[string]any{"format": "site", "heartbeat_s": hb, "engine": engine, "warnings": warnings}
		if node != nil {
			out["t1_s"], out["t2_s"] = *node, *rack
		}
		if preemptSet {
			out["preemption"] = on
		}
		if utilSet {
			out["preemption_cluster_utilization_threshold"] = util
		}
		if weight != "" {
			out["size_based_weight"] = weight
		}
		return writeJSON(w, out)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "format\tHadoop site file\n")
	if node != nil {
		fmt.Fprintf(tw, "locality waits\t%v s for a node-local slot, %v s more for a rack-local one (at a %v s heartbeat)\n", *node, *rack, hb)
	} else {
		fmt.Fprintf(tw, "locality waits\tnone set\n")
	}
	if preemptSet {
		p := fmt.Sprint(on)
		if utilSet {
			p += fmt.Sprintf(", while the cluster is more than %v used", util)
		}
		fmt.Fprintf(tw, "preemption\t%s\n", p)
	}
	if weight != "" {
		fmt.Fprintf(tw, "size-based weight\t%s\n", weight)
	}
	for _, e := range order {
		fmt.Fprintf(tw, "%s\t%s\n", e[0], e[1])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, m := range warnings {
		fmt.Fprintf(w, "warning: %s\n", m)
	}
	return nil
}

// engineValue is a site file's engine setting as a scenario writes it:
// true or false for a switch, "0 (no limit)" for launches without one.
func engineValue(e allocations.EngineSetting) string {
	switch e.Path {
	case "engine.speculative", "engine.dynamic_max_assign", "engine.load_cap":
		return strconv.FormatBool(e.Value == 1)
	case "engine.launches_per_heartbeat":
		if e.Value == 0 {
			return "0 (no limit)"
		}
	}
	return fmt.Sprint(e.Value)
}
