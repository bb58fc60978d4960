package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mrsched/mrsched/scenario"
	"github.com/mrsched/mrsched/traces"
)

// scenarioFlags are the flags that say which cluster and workload a
// command runs on (simulate, compare, advise): a scenario file,
// or the embedded default, with the operator's trace, topology, allocation
// and site files in place of its own.
type scenarioFlags struct {
	config, trace, topology, allocations, site *string
	sourceNodes                                *int
}

// addScenarioFlags defines the flags; configHelp says what -config is
// for in this command.
func addScenarioFlags(fs *flag.FlagSet, configHelp string) *scenarioFlags {
	return &scenarioFlags{
		config:      fs.String("config", "", configHelp),
		trace:       fs.String("trace", "", "override the workload trace: FB-2009, FB-2010, FB-2010-paths, a SWIM TSV file (with -source-nodes), a Rumen or SLS jobs file, or a job history (.jhist or Hadoop 1) file or directory; gzip-compressed or not"),
		topology:    fs.String("topology", "", "the cluster's hosts and racks: a Rumen topology, a Hadoop table file or an SLS nodes file"),
		allocations: fs.String("allocations", "", "a Hadoop 1 or YARN fair-scheduler.xml whose pools or queues the policies with pools take"),
		site:        fs.String("site", "", "a Hadoop site file (mapred-site.xml, yarn-site.xml) whose locality waits, preemption settings, placement, job settings, YARN node resources and Hadoop 1 TaskTracker slots the runs take"),
		sourceNodes: fs.Int("source-nodes", 0, "the node count of the cluster a trace file was recorded on (SWIM scales its bytes by nodes / source nodes); embedded traces know theirs"),
	}
}

// owned describes the flags the command line gave that put the
// operator's files in place of the scenario's (all but -config), each as
// "-name value", by name.
func (f *scenarioFlags) owned(fs *flag.FlagSet) []string {
	var out []string
	fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "trace", "topology", "allocations", "site", "source-nodes":
			out = append(out, "-"+fl.Name+" "+fl.Value.String())
		}
	})
	return out
}

// base is the scenario the flags name.
func (f *scenarioFlags) base() (*scenario.Config, error) {
	if *f.sourceNodes < 0 {
		return nil, fmt.Errorf("-source-nodes: must be positive, got %d", *f.sourceNodes)
	}
	base := scenario.Default()
	if *f.config != "" {
		c, err := scenario.Load(*f.config)
		if err != nil {
			return nil, err
		}
		base = c
	}
	if t := *f.trace; t != "" {
		// Another trace: the scenario's source_nodes was for its own.
		base.Workload.Trace, base.Workload.Generator, base.Workload.SourceNodes = t, "", 0
		if _, _, embedded := traces.Embedded(t); !embedded {
			if _, err := os.Stat(t); err != nil {
				return nil, fmt.Errorf("-trace: neither an embedded trace (%s) nor a file: %w", strings.Join(traces.Names(), ", "), err)
			}
			if *f.sourceNodes == 0 && isSWIMFile(t) {
				return nil, fmt.Errorf("-trace %s: a trace file needs -source-nodes N, the node count of the cluster it was recorded on", t)
			}
			abs, _ := filepath.Abs(t)
			base.Workload.Trace = abs
		}
	}
	if err := ownClusterFlags(base, *f.topology, *f.allocations, *f.site); err != nil {
		return nil, err
	}
	if *f.sourceNodes > 0 {
		base.Workload.SourceNodes = *f.sourceNodes
	}
	return base, nil
}
