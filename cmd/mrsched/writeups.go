package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mrsched/mrsched/experiment"
	"github.com/mrsched/mrsched/report"
	"github.com/mrsched/mrsched/writeup"
)

// The write-ups' generated blocks and claims (package writeup): found in
// the module's README.md, docs/*.md and experiment/README-*.md, made by
// running the commands they name in this process, and rewritten
// (-write-docs) or compared (-check).

// writeupGlobs are the write-ups, relative to the module root.
var writeupGlobs = []string{"README.md", "docs/*.md", "experiment/README-*.md"}

// writeupScope is which blocks and claims a pass covers.
type writeupScope struct {
	// fast keeps only blocks and claims whose commands are fast
	// (blockFast): the ones the test reruns.
	fast bool
	// names, when set, keeps only blocks and claims of these experiments
	// (as experiment.Select resolves them).
	names map[string]bool
	// write rewrites the generated blocks; otherwise they are compared.
	write bool
	// keep, when set, is the -keep directory the blocks' experiment
	// commands keep their simulations in and resume from, so that a pass
	// stopped half way loses none of the runs it finished.
	keep string
}

// writeupCommand is what a generated block's command gave: its stdout
// and, for an experiment command, each experiment's CSV rows.
type writeupCommand struct {
	stdout string
	rows   map[string]*report.Table
}

// writeupPass runs one pass over the write-ups.
type writeupPass struct {
	root  string
	scope writeupScope
	log   io.Writer // a line per command run, or io.Discard
	ran   map[string]*writeupCommand
	// Counts for the summary.
	blocks, claims, skipped int
}

// moduleRoot finds the directory of this module's go.mod, from the
// working directory up: go generate and go test run in a package's
// directory, a user anywhere in the tree.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.HasPrefix(string(data), "module github.com/mrsched/mrsched\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("the write-ups are in the mrsched source tree: run from inside it (no go.mod of github.com/mrsched/mrsched above the working directory)")
		}
		dir = parent
	}
}

// experimentNames are the experiments an "experiment" command's
// arguments name; the only flags a generated command may give are -seeds
// and -seed, which keep it deterministic and do not write files.
func experimentNames(args []string) ([]experiment.Experiment, error) {
	var names []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch strings.TrimLeft(a, "-") {
		case "seeds", "seed":
			if !strings.HasPrefix(a, "-") {
				break
			}
			if i+1 >= len(args) {
				return nil, fmt.Errorf("%s needs a value", a)
			}
			if _, err := strconv.ParseUint(args[i+1], 10, 64); err != nil {
				return nil, fmt.Errorf("%s %s: %v", a, args[i+1], err)
			}
			i++
			continue
		}
		if strings.HasPrefix(a, "-") {
			return nil, fmt.Errorf("a generated experiment command takes only -seeds and -seed, not %s", a)
		}
		names = append(names, a)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("names no experiment")
	}
	return experiment.Select(names)
}

// blockFast says whether a generated block's command is fast enough for
// the test that reruns the fast blocks: an experiment command when every
// experiment it names is (experiment.Experiment.Fast); mrsched compare,
// whose write-up examples run the embedded FB-2009 day in about 17
// CPU-seconds, always. Any other command is slow: only -check and
// -write-docs run it.
func blockFast(args []string) (bool, error) {
	switch args[0] {
	case "experiment":
		exps, err := experimentNames(args[1:])
		if err != nil {
			return false, err
		}
		for _, e := range exps {
			if !e.Fast {
				return false, nil
			}
		}
		return true, nil
	case "compare":
		return true, nil
	}
	return false, nil
}

// inScope says whether a block with args is covered by the pass.
func (p *writeupPass) inScope(args []string) (bool, error) {
	fast, err := blockFast(args)
	if err != nil {
		return false, err
	}
	if p.scope.fast && !fast {
		return false, nil
	}
	if p.scope.names == nil {
		return true, nil
	}
	if args[0] != "experiment" {
		return false, nil
	}
	exps, err := experimentNames(args[1:])
	if err != nil {
		return false, err
	}
	for _, e := range exps {
		if p.scope.names[e.Name] {
			return true, nil
		}
	}
	return false, nil
}

// command runs a generated block's command once per pass and returns
// what it gave.
func (p *writeupPass) command(args []string) (*writeupCommand, error) {
	key := strings.Join(args, " ")
	if c, ok := p.ran[key]; ok {
		return c, nil
	}
	fmt.Fprintf(p.log, "running mrsched %s\n", key)
	var stdout, stderr bytes.Buffer
	c := &writeupCommand{rows: map[string]*report.Table{}}
	if args[0] == "experiment" {
		exps, err := experimentNames(args[1:])
		if err != nil {
			return nil, err
		}
		dir, err := os.MkdirTemp("", "mrsched-writeup-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		eargs := append(slices.Clone(args[1:]), "-q", "-out", dir)
		if p.scope.keep != "" && !slices.Contains(eargs, "-keep") {
			eargs = append(eargs, "-keep", p.scope.keep)
		}
		if err := cmdExperiment(eargs, &stdout, &stderr); err != nil {
			return nil, fmt.Errorf("mrsched %s: %v", key, err)
		}
		for _, e := range exps {
			f, err := os.Open(filepath.Join(dir, filepath.FromSlash(e.Name)+".csv"))
			if err != nil {
				return nil, err
			}
			t, err := report.ReadCSV(f)
			f.Close()
			if err != nil {
				return nil, fmt.Errorf("%s's CSV: %v", e.Name, err)
			}
			c.rows[e.Name] = t
		}
	} else if code := run(args, &stdout, &stderr); code != 0 {
		return nil, fmt.Errorf("mrsched %s: exit status %d: %s", key, code, strings.TrimSpace(stderr.String()))
	}
	c.stdout = stdout.String()
	p.ran[key] = c
	return c, nil
}

// rowsOf is an experiment's CSV rows for a claim: from a command the
// pass ran already that included it, or from running it alone.
func (p *writeupPass) rowsOf(name string) (*report.Table, error) {
	for _, c := range p.ran {
		if t, ok := c.rows[name]; ok {
			return t, nil
		}
	}
	c, err := p.command([]string{"experiment", name})
	if err != nil {
		return nil, err
	}
	return c.rows[name], nil
}

// regenerate is the command that rewrites a block, for messages.
func regenerate(args []string) string {
	if args[0] == "experiment" {
		names, _ := experimentNames(args[1:])
		var n []string
		for _, e := range names {
			n = append(n, e.Name)
		}
		return "go run ./cmd/mrsched experiment -write-docs " + strings.Join(n, " ")
	}
	return "go run ./cmd/mrsched experiment -write-docs (all blocks; `go generate ./cmd/mrsched` for the fast ones)"
}

// file runs the pass over one write-up and returns its problems, one
// message each.
func (p *writeupPass) file(rel string) ([]string, error) {
	path := filepath.Join(p.root, rel)
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	doc, err := writeup.Parse(rel, text)
	if err != nil {
		return nil, err
	}
	var problems []string
	bodies := map[int]string{}
	for i, b := range doc.Blocks {
		if b.Kind != writeup.Generated {
			continue
		}
		args, err := b.Args()
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", rel, b.Line, err)
		}
		ok, err := p.inScope(args)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %s: %v", rel, b.Line, b.Command, err)
		}
		if !ok {
			p.skipped++
			continue
		}
		p.blocks++
		c, err := p.command(args)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", rel, b.Line, err)
		}
		want := writeup.Fence(c.stdout)
		switch {
		case p.scope.write:
			bodies[i] = want
		case b.Body != want:
			problems = append(problems, fmt.Sprintf("%s:%d: the block of `%s` is not what the command prints now; first difference at %s\n\tregenerate: %s",
				rel, b.Line, b.Command, writeup.FirstDifference(b.Body, want), regenerate(args)))
		}
	}
	if len(bodies) > 0 {
		if out := doc.With(bodies); !bytes.Equal(out, text) {
			if err := os.WriteFile(path, out, 0o644); err != nil {
				return nil, err
			}
			fmt.Fprintf(p.log, "wrote %s\n", rel)
		}
	}
	for _, cl := range doc.Claims {
		ok, err := p.inScope([]string{"experiment", cl.Experiment})
		if err != nil {
			return nil, fmt.Errorf("%s:%d: claim %s: %v", rel, cl.Line, cl.Experiment, err)
		}
		if !ok {
			p.skipped++
			continue
		}
		p.claims++
		e, err := experiment.Lookup(cl.Experiment)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: claim: %v", rel, cl.Line, err)
		}
		rows, err := p.rowsOf(e.Name)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: claim: %v", rel, cl.Line, err)
		}
		holds, l, r, err := cl.Eval(rows)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s:%d: claim %s: %v", rel, cl.Line, cl.Experiment, err))
			continue
		}
		if !holds {
			problems = append(problems, fmt.Sprintf("%s:%d: claim %s: %s no longer holds (left %.4g, right %.4g): the sentence beside it states a direction the experiment no longer shows; reword it (and the claim) from `mrsched experiment %s`",
				rel, cl.Line, cl.Experiment, cl.Text, l, r, e.Name))
		}
	}
	return problems, nil
}

// writeupFiles lists the write-ups, sorted.
func writeupFiles(root string) ([]string, error) {
	var files []string
	for _, g := range writeupGlobs {
		m, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(g)))
		if err != nil {
			return nil, err
		}
		for _, f := range m {
			rel, err := filepath.Rel(root, f)
			if err != nil {
				return nil, err
			}
			files = append(files, filepath.ToSlash(rel))
		}
	}
	slices.Sort(files)
	return files, nil
}

// runWriteups runs a pass over every write-up under root and returns the
// problems found (for -check: blocks that differ, claims that fail; for
// -write-docs: claims that fail after the rewrite) and the pass's counts.
func runWriteups(root string, scope writeupScope, log io.Writer) ([]string, *writeupPass, error) {
	p := &writeupPass{root: root, scope: scope, log: log, ran: map[string]*writeupCommand{}}
	files, err := writeupFiles(root)
	if err != nil {
		return nil, nil, err
	}
	var problems []string
	for _, f := range files {
		pr, err := p.file(f)
		if err != nil {
			return nil, nil, err
		}
		problems = append(problems, pr...)
	}
	return problems, p, nil
}

// cmdWriteups is experiment -check and -write-docs.
func cmdWriteups(write, fast bool, keep string, names []string, quiet bool, stdout, stderr io.Writer) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	scope := writeupScope{fast: fast, write: write, keep: keep}
	if len(names) > 0 {
		exps, err := experiment.Select(names)
		if err != nil {
			return err
		}
		scope.names = map[string]bool{}
		for _, e := range exps {
			scope.names[e.Name] = true
		}
	}
	log := stderr
	if quiet {
		log = io.Discard
	}
	problems, p, err := runWriteups(root, scope, log)
	if err != nil {
		return err
	}
	for _, pr := range problems {
		fmt.Fprintln(stderr, pr)
	}
	verb := "checked"
	if write {
		verb = "wrote"
	}
	fmt.Fprintf(stdout, "%s %d generated blocks and %d claims; %d out of scope (slow or not named)\n", verb, p.blocks, p.claims, p.skipped)
	if len(problems) > 0 {
		return fmt.Errorf("%d write-up problems (above)", len(problems))
	}
	return nil
}
