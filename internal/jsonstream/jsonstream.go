// Package jsonstream reads a stream of JSON values (one document, or many
// concatenated as Rumen and YARN SLS write them) value by value, key by
// key, in bounded memory: the caller walks the structure it wants and
// skips the rest without building it. Hadoop's trace files run to many
// gigabytes; decoding them into maps, or with reflection, costs several
// times the file in memory and time, which this reader does not.
//
// Every error is a *SyntaxError carrying the 1-based line it was found at,
// so that a caller can name the file, line and field.
package jsonstream

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxToken bounds one string or number: a longer one is not a trace
// value (a binary file, a missing quote), and reading it whole would
// take unbounded memory.
const MaxToken = 64 << 20

// MaxDepth bounds the nesting of objects and arrays, so that a hostile
// file cannot exhaust the stack.
const MaxDepth = 512

// SyntaxError is malformed JSON, or a value of the wrong kind, at Line.
type SyntaxError struct {
	Line int
	Msg  string
}

// Error reads "line 12: want a number, got a string".
func (e *SyntaxError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// Reader reads JSON values from an io.Reader.
type Reader struct {
	r     io.Reader
	buf   []byte
	pos   int // next byte to read in buf
	end   int // bytes of buf filled
	eof   bool
	rerr  error // a read error other than io.EOF
	line  int
	depth int
	// keys holds each open object's current key, by depth, so that a key
	// stays valid while its value is read, nested objects included.
	keys [][]byte
}

// NewReader reads from r.
func NewReader(r io.Reader) *Reader {
	return &Reader{r: r, buf: make([]byte, 256<<10), line: 1}
}

// SetLine says which line the reader's input starts at, for input that
// follows lines another reader took (a header).
func (d *Reader) SetLine(n int) { d.line = n }

// Line is the line the reader has reached, 1-based.
func (d *Reader) Line() int { return d.line }

// Errorf is an error at the line the reader has reached, for a value
// the caller refuses (a negative count), so that it names the line as a
// syntax error does.
func (d *Reader) Errorf(format string, args ...any) error {
	return &SyntaxError{Line: d.line, Msg: fmt.Sprintf(format, args...)}
}

func (d *Reader) errf(format string, args ...any) error {
	return &SyntaxError{Line: d.line, Msg: fmt.Sprintf(format, args...)}
}

// fill reads more input, keeping buf[d.pos:d.end]; it reports false when
// no more input comes.
func (d *Reader) fill() bool {
	if d.eof {
		return false
	}
	if d.pos > 0 {
		n := copy(d.buf, d.buf[d.pos:d.end])
		d.pos, d.end = 0, n
	}
	if d.end == len(d.buf) {
		if len(d.buf) >= MaxToken+1024 {
			return false
		}
		nb := make([]byte, 2*len(d.buf))
		copy(nb, d.buf[:d.end])
		d.buf = nb
	}
	for {
		n, err := d.r.Read(d.buf[d.end:])
		d.end += n
		if err != nil {
			d.eof = true
			if !errors.Is(err, io.EOF) {
				d.rerr = err
			}
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
}

// peek skips whitespace and returns the next byte, or 0 at the end.
func (d *Reader) peek() byte {
	for {
		for d.pos < d.end {
			switch c := d.buf[d.pos]; c {
			case ' ', '\t', '\r':
				d.pos++
			case '\n':
				d.line++
				d.pos++
			default:
				return c
			}
		}
		if !d.fill() {
			return 0
		}
	}
}

func (d *Reader) endErr(what string) error {
	if d.pos < d.end {
		// peek's 0 was a NUL byte of the input, not its end.
		return d.errf("a NUL byte inside %s", what)
	}
	if d.rerr != nil {
		return &SyntaxError{Line: d.line, Msg: "read error: " + d.rerr.Error()}
	}
	return d.errf("input ends inside %s", what)
}

// More skips whitespace and reports whether another top-level value
// follows; false at the end of the input.
func (d *Reader) More() (bool, error) {
	if d.peek() == 0 {
		if d.pos < d.end {
			return false, d.errf("a NUL byte where a value may start")
		}
		if d.rerr != nil {
			return false, d.endErr("")
		}
		return false, nil
	}
	return true, nil
}

// Kind is the first byte of the next value: '{', '[', '"', 't', 'f',
// 'n', or a digit or '-' for a number; 0 at the end of the input.
func (d *Reader) Kind() byte { return d.peek() }

// kindName names a value by its first byte, for errors.
func kindName(c byte) string {
	switch {
	case c == '{':
		return "an object"
	case c == '[':
		return "a list"
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "true or false"
	case c == 'n':
		return "null"
	case c == '-' || (c >= '0' && c <= '9'):
		return "a number"
	case c == 0:
		return "the end of the input"
	}
	return fmt.Sprintf("%q", rune(c))
}

// IsNull reports whether the next value is null, and consumes it if so.
func (d *Reader) IsNull() (bool, error) {
	if d.peek() != 'n' {
		return false, nil
	}
	return true, d.literal("null")
}

func (d *Reader) literal(word string) error {
	for d.end-d.pos < len(word) {
		if !d.fill() {
			return d.endErr("a literal")
		}
	}
	if string(d.buf[d.pos:d.pos+len(word)]) != word {
		return d.errf("want %s", word)
	}
	d.pos += len(word)
	return nil
}

// enter reads null, or the byte first that opens a container (what names
// it in errors) and, if it is empty at once, the byte last that closes it.
// more reports whether members follow: the container then counts in the
// nesting depth, which the caller takes back when it has read them.
func (d *Reader) enter(first, last byte, what string) (more bool, err error) {
	switch c := d.peek(); c {
	case 'n':
		return false, d.literal("null")
	case first:
	default:
		return false, d.errf("want %s, got %s", what, kindName(c))
	}
	if d.depth >= MaxDepth {
		return false, d.errf("nested deeper than %d", MaxDepth)
	}
	d.pos++
	if d.peek() == last {
		d.pos++
		return false, nil
	}
	d.depth++
	return true, nil
}

// next reads what follows a member of a container (what names it in
// errors): a comma, before another member, or the byte end that closes
// it, after the last.
func (d *Reader) next(end byte, what string) (last bool, err error) {
	switch c := d.peek(); c {
	case ',':
		d.pos++
		return false, nil
	case end:
		d.pos++
		return true, nil
	case 0:
		return false, d.endErr(what)
	default:
		return false, d.errf("want ',' or '%c' in %s, got %s", end, what, kindName(c))
	}
}

// Object reads an object, calling fn with each key; fn must read or
// Skip the key's value. The key is valid until fn returns. null reads as
// an empty object.
func (d *Reader) Object(fn func(key []byte) error) error {
	if more, err := d.enter('{', '}', "an object"); !more {
		return err
	}
	defer func() { d.depth-- }()
	for {
		if c := d.peek(); c != '"' {
			if c == 0 {
				return d.endErr("an object")
			}
			return d.errf("want a key in quotes, got %s", kindName(c))
		}
		key, err := d.stringBytes()
		if err != nil {
			return err
		}
		// The key must survive the reads fn makes of the buffer.
		for len(d.keys) < d.depth {
			d.keys = append(d.keys, nil)
		}
		d.keys[d.depth-1] = append(d.keys[d.depth-1][:0], key...)
		key = d.keys[d.depth-1]
		if c := d.peek(); c != ':' {
			if c == 0 {
				return d.endErr("an object")
			}
			return d.errf("want ':' after key %q, got %s", key, kindName(c))
		}
		d.pos++
		if err := fn(key); err != nil {
			return err
		}
		if last, err := d.next('}', "an object"); last || err != nil {
			return err
		}
	}
}

// Array reads a list, calling fn for each element with its index; fn
// must read or Skip the element. null reads as an empty list.
func (d *Reader) Array(fn func(i int) error) error {
	if more, err := d.enter('[', ']', "a list"); !more {
		return err
	}
	defer func() { d.depth-- }()
	for i := 0; ; i++ {
		if d.peek() == 0 {
			return d.endErr("a list")
		}
		if err := fn(i); err != nil {
			return err
		}
		if last, err := d.next(']', "a list"); last || err != nil {
			return err
		}
	}
}

// String reads a string; null reads as "".
func (d *Reader) String() (string, error) {
	switch c := d.peek(); c {
	case 'n':
		return "", d.literal("null")
	case '"':
	default:
		return "", d.errf("want a string, got %s", kindName(c))
	}
	b, err := d.stringBytes()
	return string(b), err
}

// StringBytes reads a string and returns its bytes, valid until the next
// read: for a caller that looks the string up (an interned host name)
// without keeping it. null reads as empty.
func (d *Reader) StringBytes() ([]byte, error) {
	switch c := d.peek(); c {
	case 'n':
		return nil, d.literal("null")
	case '"':
	default:
		return nil, d.errf("want a string, got %s", kindName(c))
	}
	return d.stringBytes()
}

// stringBytes reads the string at d.pos (a quote) and returns its
// unescaped bytes, valid until the next read.
func (d *Reader) stringBytes() ([]byte, error) {
	start := d.pos + 1
	i := start
	escaped, wide := false, false
	for {
		for i < d.end {
			c := d.buf[i]
			if c == '"' {
				goto done
			}
			switch {
			case c == '\\':
				escaped = true
				i++ // the escaped byte is never the closing quote
			case c < 0x20:
				return nil, d.errf("a control character (byte %#x) inside a string", c)
			case c >= 0x80:
				wide = true
			}
			i++
		}
		if i-start > MaxToken {
			return nil, d.errf("a string longer than %d bytes", MaxToken)
		}
		off := i - d.pos
		if !d.fill() {
			return nil, d.endErr("a string")
		}
		start, i = d.pos+1, d.pos+off
	}
done:
	raw := d.buf[start:i]
	d.pos = i + 1
	if !escaped {
		if wide && !utf8.Valid(raw) {
			return nil, d.errf("a string that is not valid UTF-8")
		}
		return raw, nil
	}
	out, err := unescape(raw)
	if err != nil {
		return nil, d.errf("%v", err)
	}
	return out, nil
}

func unescape(raw []byte) ([]byte, error) {
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		if i >= len(raw) {
			return nil, errors.New("a string ends in a lone backslash")
		}
		switch raw[i] {
		case '"', '\\', '/':
			out = append(out, raw[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, n, err := hex4(raw[i+1:])
			if err != nil {
				return nil, err
			}
			i += n
			if utf16.IsSurrogate(r) {
				if len(raw) > i+2 && raw[i+1] == '\\' && raw[i+2] == 'u' {
					if r2, n2, err := hex4(raw[i+3:]); err == nil {
						if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
							r = d
							i += 2 + n2
						}
					}
				}
				if utf16.IsSurrogate(r) {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return nil, fmt.Errorf("an unknown escape \\%c inside a string", raw[i])
		}
	}
	if !utf8.Valid(out) {
		return nil, errors.New("a string that is not valid UTF-8")
	}
	return out, nil
}

func hex4(b []byte) (rune, int, error) {
	if len(b) < 4 {
		return 0, 0, errors.New("a \\u escape without four hex digits")
	}
	v, err := strconv.ParseUint(string(b[:4]), 16, 32)
	if err != nil {
		return 0, 0, errors.New("a \\u escape without four hex digits")
	}
	return rune(v), 4, nil
}

// numberAs reads the text of a number, what the caller wants (named so in
// the error when a value of another kind comes), valid until the next read.
func (d *Reader) numberAs(what string) ([]byte, error) {
	if c := d.peek(); c != '-' && (c < '0' || c > '9') {
		return nil, d.errf("want %s, got %s", what, kindName(c))
	}
	return d.number()
}

// number reads a number's text, valid until the next read.
func (d *Reader) number() ([]byte, error) {
	i := d.pos
	for {
		for i < d.end {
			switch c := d.buf[i]; {
			case c >= '0' && c <= '9', c == '-', c == '+', c == '.', c == 'e', c == 'E':
				i++
				continue
			}
			goto done
		}
		if i-d.pos > 1024 {
			return nil, d.errf("a number longer than 1024 bytes")
		}
		off := i - d.pos
		more := d.fill() // may move the buffer's bytes even when no more come
		i = d.pos + off
		if !more {
			break // the input may end right after a number
		}
	}
done:
	b := d.buf[d.pos:i]
	d.pos = i
	return b, nil
}

// Int reads a number that is a whole number within int64. A whole number
// written with a fraction or exponent (1.0, 1e3) is taken. null is an
// error: callers that allow it check IsNull first.
func (d *Reader) Int() (int64, error) {
	b, err := d.numberAs("a whole number")
	if err != nil {
		return 0, err
	}
	if v, ok := smallInt(b); ok {
		return v, nil
	}
	if v, err := strconv.ParseInt(string(b), 10, 64); err == nil && validNumber(b) {
		return v, nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || !validNumber(b) {
		return 0, d.errf("%q is not a number", b)
	}
	if f != math.Trunc(f) || math.Abs(f) >= 1<<63 {
		return 0, d.errf("%s is not a whole number within 64 bits", b)
	}
	return int64(f), nil
}

// smallInt parses a JSON integer of at most 18 digits, the common case,
// without the string conversion ParseInt needs.
func smallInt(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	digits := b
	if neg {
		digits = b[1:]
	}
	if len(digits) == 0 || len(digits) > 18 || (len(digits) > 1 && digits[0] == '0') {
		return 0, false
	}
	var v int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

// Float reads a finite number.
func (d *Reader) Float() (float64, error) {
	b, err := d.numberAs("a number")
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || !validNumber(b) {
		return 0, d.errf("%q is not a finite number", b)
	}
	return f, nil
}

// validNumber checks JSON's number grammar, which ParseFloat is looser
// than (it takes "+1", "1_000", "0x10", "Inf").
func validNumber(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if n := digits(); n == 0 || (n > 1 && b[i-n] == '0') {
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(b)
}

// Bool reads true or false.
func (d *Reader) Bool() (bool, error) {
	switch c := d.peek(); c {
	case 't':
		return true, d.literal("true")
	case 'f':
		return false, d.literal("false")
	default:
		return false, d.errf("want true or false, got %s", kindName(c))
	}
}

// Skip reads and discards the next value, checking its syntax. Objects
// and lists are walked without a call a level, since most of what a
// trace's reader skips is lists of numbers.
func (d *Reader) Skip() error {
	switch c := d.peek(); {
	case c == '{' || c == '[':
		return d.skipContainer()
	case c == '"':
		_, err := d.stringBytes()
		return err
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == 'n':
		return d.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		b, err := d.number()
		if err == nil && !validNumber(b) {
			err = d.errf("%q is not a number", b)
		}
		return err
	case c == 0:
		return d.endErr("a value")
	default:
		return d.errf("want a value, got %s", kindName(c))
	}
}

// skipContainer skips the object or list at d.pos, checking its grammar
// with a stack of the open containers.
func (d *Reader) skipContainer() error {
	type state uint8
	const (
		wantValue    state = iota // a value (or, just after '[', a ']')
		wantKey                   // a key (or, just after '{', a '}')
		wantColon                 // ':' after a key
		wantCommaEnd              // ',' or the container's end
	)
	var stack []byte // '{' or '[' of each open container
	st := wantValue
	first := false // the container just opened: it may close at once
	for {
		c := d.peek()
		if c == 0 {
			return d.endErr("a value")
		}
		switch st {
		case wantKey:
			if c == '}' && first {
				break
			}
			if c != '"' {
				return d.errf("want a key in quotes, got %s", kindName(c))
			}
			if _, err := d.rawString(); err != nil {
				return err
			}
			st = wantColon
			continue
		case wantColon:
			if c != ':' {
				return d.errf("want ':' after a key, got %s", kindName(c))
			}
			d.pos++
			st = wantValue
			first = false
			continue
		case wantValue:
			if c == ']' && first {
				break
			}
			first = false
			switch {
			case c == '{' || c == '[':
				if len(stack)+d.depth >= MaxDepth {
					return d.errf("nested deeper than %d", MaxDepth)
				}
				stack = append(stack, c)
				d.pos++
				first = true
				st = wantValue
				if c == '{' {
					st = wantKey
				}
				continue
			case c == '"':
				if _, err := d.rawString(); err != nil {
					return err
				}
			case c == 't':
				if err := d.literal("true"); err != nil {
					return err
				}
			case c == 'f':
				if err := d.literal("false"); err != nil {
					return err
				}
			case c == 'n':
				if err := d.literal("null"); err != nil {
					return err
				}
			case c == '-' || (c >= '0' && c <= '9'):
				b, err := d.number()
				if err != nil {
					return err
				}
				if !validNumber(b) {
					return d.errf("%q is not a number", b)
				}
			default:
				return d.errf("want a value, got %s", kindName(c))
			}
			st = wantCommaEnd
			if len(stack) == 0 {
				return nil
			}
			continue
		case wantCommaEnd:
			top := stack[len(stack)-1]
			switch {
			case c == ',':
				d.pos++
				st = wantValue
				if top == '{' {
					st = wantKey
				}
				continue
			case (c == '}' && top == '{') || (c == ']' && top == '['):
			default:
				return d.errf("want ',' or the end of %s, got %s", map[byte]string{'{': "an object", '[': "a list"}[top], kindName(c))
			}
		}
		// The container at the top closes here.
		d.pos++
		stack = stack[:len(stack)-1]
		first = false
		if len(stack) == 0 {
			return nil
		}
		st = wantCommaEnd
	}
}

// rawString skips a string, checking it as stringBytes does but without
// unescaping it.
func (d *Reader) rawString() ([]byte, error) { return d.stringBytes() }
