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
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(bytes.NewReader(data), "fuzz.yaml")
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.yaml") {
				t.Errorf("error %q does not name the file", err)
			}
			return
		}
		// The checks a run makes before it builds anything large: a
		// cluster of a billion nodes must be refused or accepted here,
		// not allocated.
		_ = c.Cluster.WithDefaults().Validate()
		_ = c.Engine.WithDefaults().Validate()
		_, _ = sched.NewPolicy(c.Policy.Name, decodeParams(&c.Policy.Params))
	})
}
