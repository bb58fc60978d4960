package scenario

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestEveryNumericFieldHasARange: a numeric field added to the scenario
// without a valid range would be taken unchecked; each one has its
// setting, and each setting is a field.
func TestEveryNumericFieldHasARange(t *testing.T) {
	kinds := settingKinds()
	for path := range kinds {
		if settingByPath[path] == nil {
			t.Errorf("%s has no valid range in settings: add one, and a row in docs/scenarios.md", path)
		}
	}
	for _, s := range settings {
		if _, ok := kinds[s.path]; !ok {
			t.Errorf("setting %s names no numeric field of a scenario", s.path)
		}
	}
}

// TestScenarioDocsListEveryRange: docs/scenarios.md gives every numeric
// field its valid range, as the checks read it.
func TestScenarioDocsListEveryRange(t *testing.T) {
	b, err := os.ReadFile("../docs/scenarios.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	// The example file the page opens with is a valid scenario.
	_, example, _ := strings.Cut(doc, "```yaml\n")
	example, _, _ = strings.Cut(example, "```")
	cfg, err := Parse(strings.NewReader(example), "docs/scenarios.md")
	if err == nil {
		err = cfg.checkSettings()
	}
	if err != nil {
		t.Errorf("docs/scenarios.md's example: %v", err)
	}
	for _, s := range settings {
		row := "| `" + s.path + "` | " + s.describe() + " |"
		if !strings.Contains(doc, row) {
			t.Errorf("docs/scenarios.md lacks the row %q", row)
		}
	}
}

// TestEveryChoiceIsAStringField: a choice names a field of the scenario
// that takes a name, and its default is one of its values.
func TestEveryChoiceIsAStringField(t *testing.T) {
	strs := map[string]bool{}
	var walk func(rt reflect.Type, prefix string)
	walk = func(rt reflect.Type, prefix string) {
		for _, f := range yamlFields(rt) {
			switch {
			case f.typ == nodeType || f.typ == demandType:
			case f.typ.Kind() == reflect.Struct:
				walk(f.typ, prefix+f.name+".")
			case f.typ.Kind() == reflect.String:
				strs[prefix+f.name] = true
			}
		}
	}
	walk(reflect.TypeOf(Config{}), "")
	for _, c := range choices {
		if !strs[c.path] {
			t.Errorf("choice %s names no field of a scenario that takes a name", c.path)
		}
		if !slices.Contains(c.values, c.def) {
			t.Errorf("choice %s: default %q is not one of %v", c.path, c.def, c.values)
		}
	}
}

// TestScenarioDocsListEveryChoice: docs/scenarios.md gives every field
// that takes a name its names and default, as the checks read them.
func TestScenarioDocsListEveryChoice(t *testing.T) {
	b, err := os.ReadFile("../docs/scenarios.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range choices {
		row := "| `" + c.path + "` | " + c.describe() + " | `" + c.def + "` |"
		if !strings.Contains(string(b), row) {
			t.Errorf("docs/scenarios.md lacks the row %q", row)
		}
	}
}

// TestWrittenZeroMeansZero: where 0 is a valid value, a written 0 is
// that value, not the default: seed 0 is a seed of its own, slow_start 0
// lets reduces start with their job.
func TestWrittenZeroMeansZero(t *testing.T) {
	run := func(head string) *Result {
		t.Helper()
		return runYAML(t, head+"cluster: {racks: 2, nodes_per_rack: 4}\nworkload: {trace: FB-2009, max_jobs: 30}\npolicy: {name: fifo}\n")
	}
	zero, absent := run("seed: 0\n"), run("")
	if got := zero.Summary.Config.(Effective).Seed; got != 0 {
		t.Errorf("seed: 0 ran seed %d", got)
	}
	if absent.Summary.Config.(Effective).Seed != 1 {
		t.Errorf("no seed ran seed %d, want the default 1", absent.Summary.Config.(Effective).Seed)
	}
	if zero.Summary.Bytes == absent.Summary.Bytes {
		t.Error("seed 0 moved the same bytes as the default seed 1: it was taken for the default")
	}
	slow := run("engine: {slow_start: 0}\n")
	if got := *slow.Summary.Config.(Effective).Engine.SlowStart; got != 0 {
		t.Errorf("slow_start: 0 ran %v", got)
	}
	for _, j := range slow.Collector.Jobs() {
		if j.MapProgressAtFirstReduce > 0 {
			t.Fatalf("job %d's first reduce launched at map progress %v under slow_start 0, want 0", j.ID, j.MapProgressAtFirstReduce)
		}
	}
}

// TestSectionsOfOtherPackagesAreCheckedToo: a section another package
// decodes (testbed) gets the same checks as a policy's parameters, placed
// at the value's line under the section's path.
func TestSectionsOfOtherPackagesAreCheckedToo(t *testing.T) {
	cfg, err := Parse(strings.NewReader("policy: {name: fifo}\nworkload: {trace: FB-2009}\ntestbed:\n  nodes: 2.5\n"), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var into struct {
		Nodes int `yaml:"nodes"`
	}
	err = cfg.DecodeSection(&cfg.Testbed, "testbed", &into)
	if err == nil || !strings.HasPrefix(err.Error(), "s.yaml: line 4: testbed.nodes: 2.5 is not a whole number") {
		t.Errorf("DecodeSection = %v, want the file, line 4 and testbed.nodes", err)
	}
}
