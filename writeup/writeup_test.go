package writeup

import (
	"strings"
	"testing"

	"github.com/mrsched/mrsched/report"
)

const sample = "# Title\n\nProse.\n\n" +
	"<!-- generated: mrsched experiment td/queues -->\n```text\nold table\n```\n<!-- end generated -->\n\n" +
	"TD is faster than Fair. <!-- claim td/queues: completion_s[queue=small,scheduler=Fair] > completion_s[queue=small,scheduler=TD] -->\n\n" +
	"<!-- measured: /usr/bin/time ./mrsched compare -->\n| run | CPU |\n| --- | --- |\n| a | 3 s |\n<!-- end measured -->\n\n" +
	"Quoted in prose, `<!-- generated: mrsched x -->` is an example.\n\n" +
	"```md\n<!-- generated: mrsched experiment in a fence -->\n```\n"

// TestParseFindsBlocksAndClaims: both block kinds with their commands,
// lines and bodies, and the claim with its line; markers quoted in code
// are examples, not blocks.
func TestParseFindsBlocksAndClaims(t *testing.T) {
	d, err := Parse("x.md", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		kind    Kind
		command string
		line    int
		body    string
	}{
		{Generated, "mrsched experiment td/queues", 5, "```text\nold table\n```\n"},
		{Measured, "/usr/bin/time ./mrsched compare", 13, "| run | CPU |\n| --- | --- |\n| a | 3 s |\n"},
	}
	if len(d.Blocks) != len(want) {
		t.Fatalf("%d blocks, want %d: the generated and the measured one, not the quoted examples", len(d.Blocks), len(want))
	}
	for i, w := range want {
		b := d.Blocks[i]
		if b.Kind != w.kind || b.Command != w.command || b.Line != w.line || b.Body != w.body {
			t.Errorf("block %d = %s %q line %d body %q; want %s %q line %d body %q", i, b.Kind, b.Command, b.Line, b.Body, w.kind, w.command, w.line, w.body)
		}
	}
	if args, err := d.Blocks[0].Args(); err != nil || strings.Join(args, " ") != "experiment td/queues" {
		t.Errorf("args %q (%v), want the words after mrsched", args, err)
	}
	if len(d.Claims) != 1 || d.Claims[0].Experiment != "td/queues" || d.Claims[0].Line != 11 {
		t.Errorf("claims %+v, want one on td/queues at line 11", d.Claims)
	}
}

// TestWithRewritesOnlyTheNamedBodies: a rewrite replaces the generated
// block's body and leaves every other byte, markers included, as it was.
func TestWithRewritesOnlyTheNamedBodies(t *testing.T) {
	d, err := Parse("x.md", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	out := string(d.With(map[int]string{0: Fence("new table")}))
	want := strings.Replace(sample, "```text\nold table\n```\n", "```text\nnew table\n```\n", 1)
	if out != want {
		t.Errorf("rewritten:\n%s\nwant:\n%s", out, want)
	}
	again, err := Parse("x.md", []byte(out))
	if err != nil || len(again.Blocks) != 2 || again.Blocks[0].Body != Fence("new table") {
		t.Errorf("the rewritten document does not parse back to the new body: %v %+v", err, again)
	}
	if same := string(d.With(nil)); same != sample {
		t.Error("With(nil) changed the document")
	}
}

// TestParseRejectsBrokenMarkers: every malformed marker is an error with
// the file and line, never a block silently left unchecked.
func TestParseRejectsBrokenMarkers(t *testing.T) {
	cases := []struct {
		name, text, want string
	}{
		{"never ended", "a\n<!-- generated: mrsched experiment x -->\nbody\n", "x.md:2: generated block is never ended"},
		{"end without begin", "<!-- end generated -->\n", "x.md:1: <!-- end generated --> with no block open"},
		{"ended by the other kind", "<!-- generated: mrsched experiment x -->\n<!-- end measured -->\n", "x.md:2: <!-- end measured --> ends the generated block of line 1"},
		{"nested", "<!-- measured: t -->\n<!-- generated: mrsched experiment x -->\n", "x.md:2: generated block begins inside the measured block of line 1"},
		{"no command", "<!-- generated: -->\n", "x.md:1: "},
		{"not mrsched", "<!-- generated: go test ./... -->\n<!-- end generated -->\n", "x.md:1: generated command \"go test ./...\""},
		{"misspelt kind", "<!-- generate: mrsched experiment x -->\n", "x.md:1: a marker that is none of"},
		{"an ordinary comment", "<!-- a note -->\n", ""},
		{"marker not alone on its line", "text <!-- generated: mrsched experiment x -->\n", "x.md:1: a marker that is none of"},
		{"claim without a colon", "<!-- claim td/queues x > 1 -->\n", "x.md:1: a marker that is none of"},
		{"claim without a comparison", "<!-- claim td/queues: a[b=c] -->\n", "x.md:1: claim td/queues"},
	}
	for _, tc := range cases {
		_, err := Parse("x.md", []byte(tc.text))
		if tc.want == "" {
			// Not a marker form at all: an ordinary comment.
			if err != nil {
				t.Errorf("%s: %v, want an ordinary comment to pass", tc.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// TestClaimEval: claims read cells by column and keys, compare with each
// operator, scale by numbers and other cells, and refuse a reference that
// does not pick exactly one number.
func TestClaimEval(t *testing.T) {
	rows := &report.Table{
		Headers: []string{"queue", "scheduler", "completion_s", "data_gb", "paper"},
		Rows: [][]string{
			{"small", "FIFO", "298.7", "200", "~35"},
			{"small", "TD", "297.5", "200.0", "high"},
			{"none (td/queues)", "TD", "250", "100", ""},
		},
	}
	cases := []struct {
		expr  string
		holds bool
		err   string
	}{
		{"completion_s[queue=small,scheduler=FIFO] > completion_s[queue=small,scheduler=TD]", true, ""},
		{"completion_s[queue=small,scheduler=FIFO] < completion_s[queue=small,scheduler=TD]", false, ""},
		{"completion_s[queue=small,scheduler=FIFO] / completion_s[queue=small,scheduler=TD] <= 1.01", true, ""},
		{"completion_s[queue=small,scheduler=FIFO] >= 1.01 * completion_s[queue=small,scheduler=TD]", false, ""},
		{"completion_s[queue=none (td/queues)] < 251", true, ""},
		{"completion_s[scheduler=TD,data_gb=200] < 298", true, ""}, // 200 selects 200.0
		{"completion_s[queue=small] > 1", false, "matches 2 rows"},
		{"completion_s[queue=large,scheduler=TD] > 1", false, "matches 0 rows"},
		{"turnaround[queue=small,scheduler=TD] > 1", false, `no column "turnaround"`},
		{"completion_s[size=small] > 1", false, `no column "size" to select by`},
		{"paper[queue=small,scheduler=TD] > 1", false, `"high" is not a number`},
	}
	for _, tc := range cases {
		c, err := ParseClaim("td/queues", tc.expr)
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		holds, _, _, err := c.Eval(rows)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want one containing %q", tc.expr, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.expr, err)
		case tc.err == "" && holds != tc.holds:
			t.Errorf("%s: holds = %v, want %v", tc.expr, holds, tc.holds)
		}
	}
}

// TestParseClaimRejects: malformed expressions are errors naming them.
func TestParseClaimRejects(t *testing.T) {
	for _, expr := range []string{
		"", "a[b=c]", "a[b=c] = 1", "a[b=c > 1", "a[b] > 1", "1 > x", "a[b=c] > 1 extra", "a[b=c] > * 2",
	} {
		if _, err := ParseClaim("e", expr); err == nil {
			t.Errorf("%q parsed; want an error", expr)
		}
	}
}

// TestFirstDifference names the first line that differs, counting from
// the block's first line.
func TestFirstDifference(t *testing.T) {
	got := FirstDifference("a\nb\nc\n", "a\nB\nc\n")
	if !strings.HasPrefix(got, "line 2 of the block") || !strings.Contains(got, `"b"`) || !strings.Contains(got, `"B"`) {
		t.Errorf("FirstDifference = %q, want line 2 with both texts", got)
	}
	if got := FirstDifference("a\n", "a\nb\n"); !strings.HasPrefix(got, "line 2") {
		t.Errorf("an added line: %q, want line 2", got)
	}
}
