// Package writeup keeps the command output the project's write-ups show
// (README.md, docs/*.md, experiment/README-*.md) in step with the
// commands that print it. A table pasted into prose goes stale the day
// the engine changes; a marked block names the command that made it, so
// a tool can make it again and a test can tell when it no longer matches.
//
// Three markers, each an HTML comment, so that a rendered page shows none
// of them:
//
//	<!-- generated: mrsched experiment td/queues -->
//	```text
//	(the command's stdout, exactly)
//	```
//	<!-- end generated -->
//
// A generated block holds what its command prints, in a text fence. The
// begin and end markers stand alone on their lines; the command is the
// words after "generated:", starting with "mrsched".
//
//	<!-- measured: /usr/bin/time -v ./mrsched simulate -config F -out D -->
//	(a table of times)
//	<!-- end measured -->
//
// A measured block records the command its numbers came from, but the
// numbers are a machine's (wall and CPU times, memory, a testbed's runs
// over real TCP), so nothing rewrites or diffs them: the marker says
// where they came from and that they are not checked.
//
//	<!-- claim td/queues: completion_s[queue=small,scheduler=Fair] > completion_s[queue=small,scheduler=TD] -->
//
// A claim sits beside a sentence that states a direction ("Fair is the
// slowest") and says it in terms of the experiment's CSV rows (what
// `mrsched experiment -out DIR NAME` writes): a cell is column[key=value,
// ...], the keys selecting exactly one row; two sides, each a cell or a
// number, multiplied or divided by more, compared by <, <=, > or >=.
// When a change to the engine turns the direction round, the check fails
// on the sentence, not only on the table.
package writeup

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

// Kind is a block's kind: what a check does with it.
type Kind string

const (
	// Generated blocks hold a command's output and are rewritten and
	// diffed.
	Generated Kind = "generated"
	// Measured blocks record the command of machine-dependent numbers
	// (times, testbed runs) and are neither rewritten nor diffed.
	Measured Kind = "measured"
)

// Block is a marked block of a write-up.
type Block struct {
	Kind Kind
	// Command is the command as the marker writes it, e.g. "mrsched
	// experiment td/queues".
	Command string
	// Line is the begin marker's line, from 1.
	Line int
	// Body is the text between the markers' lines.
	Body string
	// start and end are Body's byte offsets in the document.
	start, end int
}

// Args is a generated block's command as arguments to mrsched: its
// words after "mrsched". The words are split on spaces; a generated
// command has no quoting.
func (b Block) Args() ([]string, error) {
	f := strings.Fields(b.Command)
	if len(f) < 2 || f[0] != "mrsched" {
		return nil, fmt.Errorf("line %d: generated command %q: want \"mrsched\" and its arguments", b.Line, b.Command)
	}
	return f[1:], nil
}

// Doc is a parsed write-up.
type Doc struct {
	Path   string
	Blocks []Block
	Claims []Claim
	text   []byte
}

var (
	beginRe = regexp.MustCompile(`^<!--\s*(generated|measured):\s*(.*?)\s*-->$`)
	endRe   = regexp.MustCompile(`^<!--\s*end\s+(generated|measured)\s*-->$`)
	claimRe = regexp.MustCompile(`<!--\s*claim\s+([^\s:]+)\s*:\s*(.*?)\s*-->`)
	// looseRe finds what looks like a marker but is not one of the
	// forms above, so that a misspelt marker is an error, not a block
	// silently left unchecked.
	looseRe = regexp.MustCompile(`<!--\s*(generat|measur|end\b|claim)`)
	// inlineCode is a code span, whose text is never a marker.
	inlineCode = regexp.MustCompile("`[^`]*`")
)

// Parse reads a write-up's markers. A marker that does not parse, a block
// not ended, ended twice or nested, a claim whose expression does not
// parse: each is an error naming path and line.
func Parse(path string, text []byte) (*Doc, error) {
	d := &Doc{Path: path, text: text}
	var open *Block
	off := 0
	fenced := false // inside a code fence outside any block: markers there are examples
	for i, line := range bytes.SplitAfter(text, []byte("\n")) {
		n := i + 1
		s := strings.TrimSpace(string(line))
		lineStart := off
		off += len(line)
		if strings.HasPrefix(s, "```") {
			fenced = !fenced
		}
		if fenced || strings.HasPrefix(s, "```") {
			continue
		}
		if m := beginRe.FindStringSubmatch(s); m != nil {
			if open != nil {
				return nil, fmt.Errorf("%s:%d: %s block begins inside the %s block of line %d; end that one first (<!-- end %s -->)", path, n, m[1], open.Kind, open.Line, open.Kind)
			}
			if m[2] == "" {
				return nil, fmt.Errorf("%s:%d: %s marker names no command", path, n, m[1])
			}
			open = &Block{Kind: Kind(m[1]), Command: m[2], Line: n, start: off}
			if open.Kind == Generated {
				if _, err := open.Args(); err != nil {
					return nil, fmt.Errorf("%s:%d: %v", path, n, strings.TrimPrefix(err.Error(), fmt.Sprintf("line %d: ", n)))
				}
			}
			continue
		}
		if m := endRe.FindStringSubmatch(s); m != nil {
			if open == nil {
				return nil, fmt.Errorf("%s:%d: <!-- end %s --> with no block open", path, n, m[1])
			}
			if Kind(m[1]) != open.Kind {
				return nil, fmt.Errorf("%s:%d: <!-- end %s --> ends the %s block of line %d", path, n, m[1], open.Kind, open.Line)
			}
			open.end = lineStart
			open.Body = string(text[open.start:open.end])
			d.Blocks = append(d.Blocks, *open)
			open = nil
			continue
		}
		s = inlineCode.ReplaceAllString(s, "``") // a marker quoted in prose is an example
		claims := claimRe.FindAllStringSubmatchIndex(s, -1)
		for _, c := range claims {
			exp, expr := s[c[2]:c[3]], s[c[4]:c[5]]
			cl, err := ParseClaim(exp, expr)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, n, err)
			}
			cl.Line = n
			d.Claims = append(d.Claims, cl)
		}
		if loose := looseRe.FindAllStringIndex(s, -1); len(loose) > len(claims) {
			return nil, fmt.Errorf("%s:%d: a marker that is none of <!-- generated: mrsched ... -->, <!-- measured: ... -->, <!-- end generated -->, <!-- end measured --> (each alone on its line) or <!-- claim EXPERIMENT: ... -->", path, n)
		}
	}
	if open != nil {
		return nil, fmt.Errorf("%s:%d: %s block is never ended (<!-- end %s -->)", path, open.Line, open.Kind, open.Kind)
	}
	return d, nil
}

// Fence is the body of a generated block that holds output: the text in
// a text fence, ending with a newline.
func Fence(output string) string {
	if output != "" && !strings.HasSuffix(output, "\n") {
		output += "\n"
	}
	return "```text\n" + output + "```\n"
}

// With is the document with the bodies of some blocks replaced: bodies
// maps an index into Blocks to its new body.
func (d *Doc) With(bodies map[int]string) []byte {
	var b bytes.Buffer
	off := 0
	for i, bl := range d.Blocks {
		body, ok := bodies[i]
		if !ok {
			continue
		}
		b.Write(d.text[off:bl.start])
		b.WriteString(body)
		off = bl.end
	}
	b.Write(d.text[off:])
	return b.Bytes()
}

// FirstDifference says where got first differs from want, by line, for a
// message: the line number within the block and the two lines.
func FirstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl || i >= len(w) || i >= len(g) {
			return fmt.Sprintf("line %d of the block:\n\twritten: %q\n\tprinted: %q", i+1, wl, gl)
		}
	}
	return "no difference"
}
