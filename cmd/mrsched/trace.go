package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/cluster/hostmap"
	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/scenario"
	"github.com/mrsched/mrsched/workload"
	"github.com/mrsched/mrsched/workload/hadooptrace"
)

// traceStatsUsage is trace stats' usage line.
const traceStatsUsage = "usage: mrsched trace stats FILE|DIR|FB-2009|FB-2010|FB-2010-paths [-json] [-format swim|rumen|jhist|sls] [-source-nodes N]"

// hadoopTraceStats prints the stats of a Rumen, JobHistory or SLS trace,
// and reports false when path is none of those (a SWIM file, which the
// SWIM reader takes).
func hadoopTraceStats(path string, format hadooptrace.Format, asJSON bool, stdout io.Writer) (bool, error) {
	if format == "" {
		f, err := hadooptrace.SniffPath(path)
		if errors.Is(err, hadooptrace.ErrNotJobTrace) {
			if ok, cerr := confStats(path, asJSON, stdout); ok {
				return true, cerr // an allocation or site file
			}
			m, merr := hostmap.Load(path)
			if merr != nil {
				return true, fmt.Errorf("%w (nor a topology: %v)", err, merr)
			}
			return true, topologyStats(m, asJSON, stdout)
		}
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return false, nil
			}
			return true, err
		}
		format = f
	}
	if format == hadooptrace.FormatSWIM {
		return false, nil
	}
	s, err := hadooptrace.StatsOf(path, format)
	if err != nil {
		return true, err
	}
	if asJSON {
		return true, writeJSON(stdout, s)
	}
	return true, s.Write(stdout)
}

// swimStatsJSON is a SWIM trace's stats under the keys trace stats -json
// gives every format; a SWIM trace names no hosts or racks.
func swimStatsJSON(w io.Writer, s workload.Stats) error {
	return writeJSON(w, map[string]any{
		"format": "swim", "jobs": s.Jobs, "maps": s.Maps, "reduces": s.Reduces,
		"input_bytes": s.InputBytes, "shuffle_bytes": s.ShuffleBytes, "output_bytes": s.OutputBytes,
		"hosts": 0, "racks": 0, "bytes_modelled": false,
	})
}

// topologyStats prints a host map's racks and nodes: counts, each rack's
// size, the nodes that state their resources, and the reader's warnings.
func topologyStats(m *hostmap.Map, asJSON bool, w io.Writer) error {
	sizes := map[string]int{}
	withRes := 0
	for _, n := range m.Nodes {
		sizes[n.Rack]++
		if n.MemoryMB > 0 || n.VCores > 0 {
			withRes++
		}
	}
	racks := m.Racks()
	minR, maxR := len(m.Nodes), 0
	for _, r := range racks {
		minR, maxR = min(minR, sizes[r]), max(maxR, sizes[r])
	}
	warnings := m.Warnings
	if warnings == nil {
		warnings = []string{}
	}
	if asJSON {
		return writeJSON(w, map[string]any{
			"format": m.Format, "nodes": len(m.Nodes), "hosts": len(m.Nodes), "racks": len(racks), "rack_sizes": sizes,
			"aliases": len(m.Aliases), "names": len(m.Nodes) + len(m.Aliases), "nodes_with_resources": withRes, "warnings": warnings,
		})
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "format\t%s\n", m.Format)
	fmt.Fprintf(tw, "racks\t%d\n", len(racks))
	fmt.Fprintf(tw, "nodes\t%d\n", len(m.Nodes))
	fmt.Fprintf(tw, "nodes a rack\t%d to %d\n", minR, maxR)
	if len(m.Aliases) > 0 {
		fmt.Fprintf(tw, "addresses\t%d (aliases of hosts, not nodes)\n", len(m.Aliases))
	}
	fmt.Fprintf(tw, "nodes with resources\t%d\n", withRes)
	for _, r := range racks {
		fmt.Fprintf(tw, "  %s\t%d nodes\n", r, sizes[r])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, s := range warnings {
		fmt.Fprintf(w, "warning: %s\n", s)
	}
	return nil
}

func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("trace stats: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// isSWIMFile reports whether a trace file is a SWIM trace (which needs the
// traced cluster's size) rather than a Hadoop or YARN one.
func isSWIMFile(path string) bool {
	f, err := hadooptrace.SniffPath(path)
	return err != nil || f == hadooptrace.FormatSWIM
}

// ownClusterFlags sets compare's -topology, -allocations and -site on
// the scenario, as absolute paths.
func ownClusterFlags(c *scenario.Config, topology, allocs, site string) error {
	for _, f := range []struct {
		flag, path string
		into       *string
	}{{"-topology", topology, &c.Cluster.Topology}, {"-allocations", allocs, &c.Policy.Allocations}, {"-site", site, &c.Policy.Site}} {
		if f.path == "" {
			continue
		}
		if _, err := os.Stat(f.path); err != nil {
			return fmt.Errorf("%s: %w", f.flag, err)
		}
		abs, err := filepath.Abs(f.path)
		if err != nil {
			return fmt.Errorf("%s: %w", f.flag, err)
		}
		*f.into = abs
	}
	return nil
}

// printInputWarnings prints the warnings of a scenario's own-cluster
// files and settings: what they say that the model skips. After the runs,
// since building them adds some.
func printInputWarnings(c *scenario.Config, stderr io.Writer) {
	for _, w := range c.InputWarnings() {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
}

// clusterTitle names the cluster the results ran on: "10 racks x 10
// nodes", or, for a cluster of hosts (a topology file, a trace's hosts),
// its node and rack counts and where they came from.
func clusterTitle(cl cluster.Config, results []metrics.Summary) string {
	for _, s := range results {
		switch e := s.Config.(type) {
		case scenario.Effective:
			if e.Topology != nil {
				src := e.Topology.Source
				if e.Topology.File != "" {
					src = filepath.Base(e.Topology.File)
				}
				return hostsTitle(e.Topology.Nodes, e.Topology.Racks, src)
			}
		case map[string]any: // read back from summary.json
			if t, ok := e["topology"].(map[string]any); ok {
				src, _ := t["source"].(string)
				if f, _ := t["file"].(string); f != "" {
					src = filepath.Base(f)
				}
				nodes, _ := t["nodes"].(float64)
				racks, _ := t["racks"].(float64)
				return hostsTitle(int(nodes), int(racks), src)
			}
		}
	}
	return fmt.Sprintf("%d racks x %d nodes", cl.Racks, cl.NodesPerRack)
}

// hostsTitle is "547 nodes in 41 racks (topology.json)", or "1 node in
// 1 rack".
func hostsTitle(nodes, racks int, src string) string {
	return fmt.Sprintf("%s in %s (%s)", count(nodes, "node"), count(racks, "rack"), src)
}

// count is n things, "1 thing" or "2 things".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
