package writeup

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mrsched/mrsched/report"
)

// Claim is a direction a sentence states, checked against an
// experiment's CSV rows.
type Claim struct {
	// Experiment is the experiment whose rows the claim reads.
	Experiment string
	// Text is the claim as written after the colon.
	Text string
	// Line is the claim's line in its write-up, from 1.
	Line int

	left, right term
	op          string
}

// term is a product of operands: the first, then each further one
// multiplied (div false) or divided (div true).
type term struct {
	first operand
	rest  []factor
}

type factor struct {
	div bool
	x   operand
}

// operand is a number or a cell: column[key=value,...].
type operand struct {
	isNum  bool
	num    float64
	column string
	keys   [][2]string
}

func (o operand) String() string {
	if o.isNum {
		return strconv.FormatFloat(o.num, 'g', -1, 64)
	}
	var kv []string
	for _, k := range o.keys {
		kv = append(kv, k[0]+"="+k[1])
	}
	return o.column + "[" + strings.Join(kv, ",") + "]"
}

// ParseClaim parses a claim's expression: TERM OP TERM, OP one of <, <=,
// >, >=; a TERM is operands joined by * or /; an operand a number or a
// cell, column[key=value,...]. A key's value runs to the next comma or
// closing bracket, spaces trimmed, so values may hold spaces and
// parentheses ("none (td/queues)").
func ParseClaim(experiment, expr string) (Claim, error) {
	c := Claim{Experiment: experiment, Text: expr}
	p := &claimParser{s: expr}
	var err error
	if c.left, err = p.term(); err != nil {
		return c, fmt.Errorf("claim %s: %q: %v", experiment, expr, err)
	}
	p.space()
	for _, op := range []string{"<=", ">=", "<", ">"} {
		if strings.HasPrefix(p.s[p.i:], op) {
			c.op = op
			p.i += len(op)
			break
		}
	}
	if c.op == "" {
		return c, fmt.Errorf("claim %s: %q: want <, <=, > or >= at %q", experiment, expr, p.s[p.i:])
	}
	if c.right, err = p.term(); err != nil {
		return c, fmt.Errorf("claim %s: %q: %v", experiment, expr, err)
	}
	if p.space(); p.i != len(p.s) {
		return c, fmt.Errorf("claim %s: %q: unexpected %q after the comparison", experiment, expr, p.s[p.i:])
	}
	return c, nil
}

type claimParser struct {
	s string
	i int
}

func (p *claimParser) space() {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
}

func (p *claimParser) term() (term, error) {
	var t term
	var err error
	if t.first, err = p.operand(); err != nil {
		return t, err
	}
	for {
		p.space()
		if p.i >= len(p.s) || (p.s[p.i] != '*' && p.s[p.i] != '/') {
			return t, nil
		}
		div := p.s[p.i] == '/'
		p.i++
		x, err := p.operand()
		if err != nil {
			return t, err
		}
		t.rest = append(t.rest, factor{div, x})
	}
}

func (p *claimParser) operand() (operand, error) {
	p.space()
	start := p.i
	for p.i < len(p.s) && !strings.ContainsRune(" []<>*/", rune(p.s[p.i])) {
		p.i++
	}
	word := p.s[start:p.i]
	if word == "" {
		return operand{}, fmt.Errorf("want a number or column[key=value,...] at %q", p.s[start:])
	}
	if p.i < len(p.s) && p.s[p.i] == '[' {
		end := strings.IndexByte(p.s[p.i:], ']')
		if end < 0 {
			return operand{}, fmt.Errorf("%s[ is not closed", word)
		}
		o := operand{column: word}
		for _, kv := range strings.Split(p.s[p.i+1:p.i+end], ",") {
			k, v, ok := strings.Cut(kv, "=")
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			if !ok || k == "" {
				return operand{}, fmt.Errorf("%s[...]: want key=value, got %q", word, kv)
			}
			o.keys = append(o.keys, [2]string{k, v})
		}
		p.i += end + 1
		return o, nil
	}
	v, err := strconv.ParseFloat(word, 64)
	if err != nil {
		return operand{}, fmt.Errorf("%q is neither a number nor column[key=value,...]", word)
	}
	return operand{isNum: true, num: v}, nil
}

// Eval reports whether the claim holds on rows, the experiment's CSV
// table, and the two sides' values for a message. A cell that names no
// column, matches no row or more than one, or is not a number is an
// error naming it.
func (c Claim) Eval(rows *report.Table) (holds bool, left, right float64, err error) {
	if left, err = c.left.value(rows); err != nil {
		return false, 0, 0, err
	}
	if right, err = c.right.value(rows); err != nil {
		return false, 0, 0, err
	}
	switch c.op {
	case "<":
		holds = left < right
	case "<=":
		holds = left <= right
	case ">":
		holds = left > right
	case ">=":
		holds = left >= right
	}
	return holds, left, right, nil
}

func (t term) value(rows *report.Table) (float64, error) {
	v, err := t.first.value(rows)
	if err != nil {
		return 0, err
	}
	for _, f := range t.rest {
		x, err := f.x.value(rows)
		if err != nil {
			return 0, err
		}
		if f.div {
			v /= x
		} else {
			v *= x
		}
	}
	return v, nil
}

func (o operand) value(rows *report.Table) (float64, error) {
	if o.isNum {
		return o.num, nil
	}
	col := func(name string) int {
		for i, h := range rows.Headers {
			if h == name {
				return i
			}
		}
		return -1
	}
	ci := col(o.column)
	if ci < 0 {
		return 0, fmt.Errorf("%s: no column %q (columns: %s)", o, o.column, strings.Join(rows.Headers, ", "))
	}
	keyCols := make([]int, len(o.keys))
	for i, k := range o.keys {
		if keyCols[i] = col(k[0]); keyCols[i] < 0 {
			return 0, fmt.Errorf("%s: no column %q to select by", o, k[0])
		}
	}
	var match []int
	for ri, r := range rows.Rows {
		ok := true
		for i, k := range o.keys {
			if keyCols[i] >= len(r) || !sameCell(r[keyCols[i]], k[1]) {
				ok = false
				break
			}
		}
		if ok {
			match = append(match, ri)
		}
	}
	if len(match) != 1 {
		return 0, fmt.Errorf("%s: matches %d rows, want exactly one", o, len(match))
	}
	r := rows.Rows[match[0]]
	if ci >= len(r) {
		return 0, fmt.Errorf("%s: the row has no such cell", o)
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(r[ci]), 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not a number", o, r[ci])
	}
	return v, nil
}

// sameCell says whether a CSV cell is the value a selector names: equal
// as text, or as numbers ("100" selects "100.0").
func sameCell(cell, want string) bool {
	if strings.TrimSpace(cell) == want {
		return true
	}
	a, err1 := strconv.ParseFloat(strings.TrimSpace(cell), 64)
	b, err2 := strconv.ParseFloat(want, 64)
	return err1 == nil && err2 == nil && a == b
}
