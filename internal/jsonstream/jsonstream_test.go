package jsonstream

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// walk reads every value of the input into a flat description, through
// the reader's own calls, so that a test can compare what was read.
func walk(d *Reader, out *[]string) error {
	switch d.Kind() {
	case '{':
		return d.Object(func(k []byte) error {
			*out = append(*out, "key:"+string(k))
			return walk(d, out)
		})
	case '[':
		return d.Array(func(int) error { return walk(d, out) })
	case '"':
		s, err := d.String()
		*out = append(*out, "str:"+s)
		return err
	case 't', 'f':
		b, err := d.Bool()
		if b {
			*out = append(*out, "true")
		} else {
			*out = append(*out, "false")
		}
		return err
	case 'n':
		_, err := d.IsNull()
		*out = append(*out, "null")
		return err
	}
	v, err := d.Float()
	*out = append(*out, "num:"+strconv.FormatFloat(v, 'g', -1, 64))
	return err
}

func TestReadsValues(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a":1,"b":[true,false,null],"c":"x\"y\u00e9\ud83d\ude00"}`, `key:a num:1 key:b true false null key:c str:x"yé😀`},
		{"{}\n[]\n{\"k\":{}}", "key:k"},
		{`"tab\tnew\nline"`, "str:tab\tnew\nline"},
		{`-1.5e2`, "num:-150"},
	} {
		for _, oneByte := range []bool{false, true} {
			d := NewReader(strings.NewReader(tc.in))
			if oneByte {
				d = NewReader(iotest.OneByteReader(strings.NewReader(tc.in)))
			}
			var got []string
			for {
				more, err := d.More()
				if err != nil {
					t.Fatal(err)
				}
				if !more {
					break
				}
				if err := walk(d, &got); err != nil {
					t.Fatalf("%s: %v", tc.in, err)
				}
			}
			if g := strings.Join(got, " "); g != tc.want {
				t.Errorf("%s (one byte a read: %v): read %q; want %q", tc.in, oneByte, g, tc.want)
			}
		}
	}
}

func TestErrorsNameTheLine(t *testing.T) {
	for _, tc := range []struct {
		in   string
		line int
		msg  string
	}{
		{"{\n\"a\": tru}", 2, "want true"},
		{"{\n\n\"a\" 1}", 3, "want ':'"},
		{"[1,\n2,\n]", 3, "got ']'"},
		{"{\"a\":\"\x01\"}", 1, "control character"},
		{"{\"a\":01}", 1, "is not a finite number"},
		{"{\"a\":\"\\q\"}", 1, "unknown escape"},
		{"{\"a\":[", 1, "input ends"},
		{strings.Repeat("[", MaxDepth+1), 1, "nested deeper"},
	} {
		d := NewReader(strings.NewReader(tc.in))
		var got []string
		err := walk(d, &got)
		var se *SyntaxError
		if !errors.As(err, &se) || se.Line != tc.line || !strings.Contains(se.Msg, tc.msg) {
			t.Errorf("%q: error %v; want line %d, %q", tc.in, err, tc.line, tc.msg)
		}
	}
}

func TestIntRefusesFractions(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{{"42", 42, true}, {"-1", -1, true}, {"1e3", 1000, true}, {"1.5", 0, false}, {"1e30", 0, false}, {`"1"`, 0, false}} {
		v, err := NewReader(strings.NewReader(tc.in)).Int()
		if (err == nil) != tc.ok || v != tc.want {
			t.Errorf("Int(%s) = %d, %v; want %d, ok %v", tc.in, v, err, tc.want, tc.ok)
		}
	}
}
