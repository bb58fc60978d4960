package scenario

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/sched"
)

// FuzzParse feeds Parse arbitrary bytes, seeded with the shipped examples
// and the malformed scenarios of TestParseRejectsBadScenarios. Parse and
// the checks a run makes before it starts (cluster and engine settings,
// the policy and its parameters) must answer every input with a scenario
// or an error naming the file, never a panic.
func FuzzParse(f *testing.F) {
	examples, err := filepath.Glob(filepath.Join("..", "examples", "*.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range examples {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		"", "seed: 1\n", "policy: {name: fair}\ncluster:\n  racks: many\n",
		"policy: {name: fair, params: {weights: [1, 2]}}\n",
		"policy: {name: delay, params: {node_wait_s: -1}}\n",
		"policy: {name: nas}\nengine: {network_quantum_s: .nan}\n",
		"policy: {name: fair}\ncluster: {racks: 0}\n",
		"policy: [fair]\n", "- 1\n- 2\n", "policy: {name: fair}\n---\npolicy: {name: fifo}\n",
		"policy: {name: fair}\ncluster: {racks: 2.5, rackz: 1}\n", "policy: {name: fair}\ncluster: {racks: 1e30}\n",
		"policy: {name: fair}\nengine: {heartbeat_s: 1e-300, copy_compute: {enabled: true, max_computing: 9}}\n",
		"policy: {name: fair, params: {pools: [{name: a, weight: 0, min_maps: 2.5}]}}\nworkload: {users: 0, task_failure_rate: 2}\n",
		"seed: -1\npolicy: {name: fifo, params: {x: 1}}\nworkload: {generator: shufflewatcher, max_jobs: 3}\n",
		"policy: {name: fair}\nworkload: {demand: {default: 2.5, by_kind: {swim: x}}}\n",
		"policy: {name: fair, job_limits: {pools: {user0: 0, root: 2}, users: {a: x}, pool_default: 0}}\n",
		"policy: {name: delay, pools: [{name: a, max_maps: -1, max_share: 2, min_share_timeout_s: .nan}]}\n",
	} {
		f.Add([]byte(s))
	}
	// words checks that an error names the file and speaks the
	// scenario's words: no decoder's "cannot unmarshal", no YAML tag
	// (unless the input wrote one, and the error quotes it back).
	words := func(t *testing.T, data []byte, err error) {
		msg := err.Error()
		bad := !strings.Contains(msg, "fuzz.yaml") || strings.Contains(msg, "unmarshal")
		for _, tag := range []string{"!!int", "!!float", "!!str", "!!map", "!!seq", "!!bool", "!!null"} {
			bad = bad || strings.Contains(msg, tag) && !bytes.Contains(data, []byte(tag))
		}
		if bad {
			t.Errorf("error %q: want one naming the file, in the scenario's words", msg)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(bytes.NewReader(data), "fuzz.yaml")
		if err != nil {
			words(t, data, err)
			return
		}
		// The checks a run makes before it builds anything large: a
		// cluster of a billion nodes must be refused or accepted here,
		// not allocated.
		if err := c.checkSettings(); err != nil {
			words(t, data, c.fileErr(err))
		}
		_ = c.Cluster.WithDefaults().Validate()
		if _, err := sched.NewPolicy(c.Policy.Name, decodeParams(&c.Policy.Params)); err != nil {
			words(t, data, c.policyErr(err))
		}
	})
}
