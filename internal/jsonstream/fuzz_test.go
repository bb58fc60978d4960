package jsonstream

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzSkip checks the reader's grammar against encoding/json's: Skip
// accepts a document (one value, then only white space) exactly when
// json.Valid does, for inputs below the nesting bound and of valid UTF-8
// (the reader refuses strings of bad UTF-8, which encoding/json takes).
// `go test` runs the seeds.
func FuzzSkip(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}],"c":"x\u00e9"}`, `[]`, `{}`, `[1,]`, `{"a" 1}`, `[01]`, `"\ud800"`, `{"a":tru}`, `[1 2]`, `-0.5e-3`, `{"a":{}}x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if bytes.Count(data, []byte("["))+bytes.Count(data, []byte("{")) >= MaxDepth || !utf8.Valid(data) {
			return // the reader refuses deeper nesting and strings of bad UTF-8, which encoding/json takes
		}
		d := NewReader(bytes.NewReader(data))
		err := d.Skip()
		if err == nil {
			var more bool
			if more, err = d.More(); err == nil && more {
				err = d.Errorf("more after the value")
			}
		}
		if ok := json.Valid(data); ok != (err == nil) {
			t.Errorf("%q: reader says %v, encoding/json valid %v", data, err, ok)
		}
	})
}
