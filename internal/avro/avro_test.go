package avro

import (
	"bufio"
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// decodeAll parses schema and decodes one datum of it from data,
// checking that the datum takes every byte.
func decodeAll(t *testing.T, schema string, data []byte) (any, error) {
	t.Helper()
	typ, err := Parse([]byte(schema))
	if err != nil {
		t.Fatalf("schema %s: %v", schema, err)
	}
	d := NewDecoder(bufio.NewReader(bytes.NewReader(data)))
	v, err := d.Decode(typ)
	if err == nil && d.Offset() != int64(len(data)) {
		t.Errorf("read %d of %d bytes; a datum's encoding is all of it", d.Offset(), len(data))
	}
	return v, err
}

// TestDecodeTheSpecificationsEncodings decodes the byte strings the Avro
// specification gives (Data Serialization, Binary Encoding) and others
// built by its rules, each byte written out by hand.
func TestDecodeTheSpecificationsEncodings(t *testing.T) {
	for _, tc := range []struct {
		name, schema string
		data         []byte
		want         any
	}{
		{"long 0", `"long"`, []byte{0x00}, int64(0)},
		{"long -1", `"long"`, []byte{0x01}, int64(-1)},
		{"long 1", `"long"`, []byte{0x02}, int64(1)},
		{"long -2", `"long"`, []byte{0x03}, int64(-2)},
		{"long 2", `"long"`, []byte{0x04}, int64(2)},
		{"long -64", `"long"`, []byte{0x7f}, int64(-64)},
		{"long 64", `"long"`, []byte{0x80, 0x01}, int64(64)},
		{"a JobHistory submit time, in ms", `"long"`, []byte{0xe2, 0xf9, 0xf6, 0x97, 0xb9, 0x52}, int64(1416424775281)},
		{"int as an object", `{"type": "int"}`, []byte{0x36}, int64(27)},
		{"string foo", `"string"`, []byte{0x06, 'f', 'o', 'o'}, "foo"},
		{"bytes", `"bytes"`, []byte{0x04, 0x00, 0xff}, []byte{0x00, 0xff}},
		{"boolean true", `"boolean"`, []byte{0x01}, true},
		{"float 1", `"float"`, []byte{0x00, 0x00, 0x80, 0x3f}, 1.0},
		{"double -2.5", `"double"`, []byte{0, 0, 0, 0, 0, 0, 0x04, 0xc0}, -2.5},
		{"null", `"null"`, nil, nil},
		{"the specification's record", `{"type": "record", "name": "test", "fields": [{"name": "a", "type": "long"}, {"name": "b", "type": "string"}]}`,
			[]byte{0x36, 0x06, 0x66, 0x6f, 0x6f}, &Record{Name: "test", Fields: map[string]any{"a": int64(27), "b": "foo"}}},
		{"the specification's array", `{"type": "array", "items": "long"}`, []byte{0x04, 0x06, 0x36, 0x00}, []any{int64(3), int64(27)}},
		{"an array in a block with its size", `{"type": "array", "items": "long"}`, []byte{0x03, 0x04, 0x06, 0x36, 0x00}, []any{int64(3), int64(27)}},
		{"an array in two blocks", `{"type": "array", "items": "long"}`, []byte{0x02, 0x06, 0x02, 0x36, 0x00}, []any{int64(3), int64(27)}},
		{"an empty array", `{"type": "array", "items": "long"}`, []byte{0x00}, []any{}},
		{"a map", `{"type": "map", "values": "long"}`, []byte{0x02, 0x02, 'a', 0x02, 0x00}, map[string]any{"a": int64(1)}},
		{"the specification's union, null", `["null", "string"]`, []byte{0x00}, nil},
		{"the specification's union, a", `["null", "string"]`, []byte{0x02, 0x02, 0x61}, "a"},
		{"an enum", `{"type": "enum", "name": "E", "symbols": ["A", "B", "C"]}`, []byte{0x04}, "C"},
		{"a fixed", `{"type": "fixed", "name": "F", "size": 2}`, []byte{0x01, 0x02}, []byte{0x01, 0x02}},
		{"a named type used again, by its short name", `{"type": "record", "name": "P", "namespace": "x.y", "fields": [
			{"name": "a", "type": {"type": "record", "name": "Q", "fields": [{"name": "v", "type": "int"}]}},
			{"name": "b", "type": "Q"}, {"name": "c", "type": "x.y.Q"}]}`,
			[]byte{0x02, 0x04, 0x06}, &Record{Name: "x.y.P", Fields: map[string]any{
				"a": &Record{Name: "x.y.Q", Fields: map[string]any{"v": int64(1)}},
				"b": &Record{Name: "x.y.Q", Fields: map[string]any{"v": int64(2)}},
				"c": &Record{Name: "x.y.Q", Fields: map[string]any{"v": int64(3)}}}}},
		{"a union of records", `[{"type": "record", "name": "A", "fields": []}, {"type": "record", "name": "B", "fields": [{"name": "n", "type": "long"}]}]`,
			[]byte{0x02, 0x0a}, &Record{Name: "B", Fields: map[string]any{"n": int64(5)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decodeAll(t, tc.schema, tc.data)
			if err != nil {
				t.Fatalf("% x: %v; want %v", tc.data, err, tc.want)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("% x decoded as %#v; want %#v", tc.data, got, tc.want)
			}
		})
	}
}

// TestDecodeRefusesBrokenInput: a datum the input cannot hold is an
// error naming what broke, never a large allocation or an endless loop.
func TestDecodeRefusesBrokenInput(t *testing.T) {
	for _, tc := range []struct {
		name, schema string
		data         []byte
		want         string
	}{
		{"truncated string", `"string"`, []byte{0x06, 'f'}, "ends inside a value"},
		{"truncated long", `"long"`, []byte{0x80}, "ends inside a value"},
		{"a varint past 64 bits", `"long"`, bytes.Repeat([]byte{0xff}, 11), "longer than 64 bits"},
		{"a negative length", `"string"`, []byte{0x01}, "string of length -1"},
		{"a length past the limit", `"bytes"`, []byte{0x80, 0x80, 0x80, 0x80, 0x40}, "bytes of length"},
		{"a length past the input", `"string"`, []byte{0x80, 0x80, 0x80, 0x01}, "ends inside a value"},
		{"an int past 32 bits", `"int"`, []byte{0x80, 0x80, 0x80, 0x80, 0x20}, "beyond 32 bits"},
		{"a union branch out of range", `["null", "string"]`, []byte{0x04}, "union branch 2 of 2"},
		{"an enum symbol out of range", `{"type": "enum", "name": "E", "symbols": ["A"]}`, []byte{0x02}, "symbol 1 of 1"},
		{"a boolean byte", `"boolean"`, []byte{0x02}, "want 0 or 1"},
		{"a count of nulls past the limit", `{"type": "array", "items": "null"}`, []byte{0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, "more than"},
		{"a record's field, named", `{"type": "record", "name": "a.b.R", "fields": [{"name": "x", "type": "string"}]}`, []byte{0x06}, "R.x: the input ends"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeAll(t, tc.schema, tc.data)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("% x: error %v; want one holding %q", tc.data, err, tc.want)
			}
		})
	}
}

// TestParseRefusesBrokenSchemas: a schema the decoder could not follow
// is an error at Parse.
func TestParseRefusesBrokenSchemas(t *testing.T) {
	for _, tc := range []struct{ name, schema, want string }{
		{"not JSON", `{`, "schema:"},
		{"an undefined name", `"Missing"`, `type "Missing"`},
		{"a record without a name", `{"type": "record", "fields": []}`, "without a name"},
		{"a record without fields", `{"type": "record", "name": "R"}`, "without fields"},
		{"a name defined twice", `[{"type": "enum", "name": "E", "symbols": ["A"]}, {"type": "enum", "name": "E", "symbols": ["B"]}]`, "defined twice"},
		{"a union in a union", `["null", ["string"]]`, "inside a union"},
		{"an empty union", `[]`, "without branches"},
		{"an enum without symbols", `{"type": "enum", "name": "E", "symbols": []}`, "no symbols"},
		{"a fixed of no size", `{"type": "fixed", "name": "F"}`, "size"},
		{"nesting past the bound", strings.Repeat(`{"type": "array", "items": `, MaxDepth+2) + `"long"` + strings.Repeat("}", MaxDepth+2), "nested more than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.schema))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse(%.60s): %v; want an error holding %q", tc.schema, err, tc.want)
			}
		})
	}
}

// FuzzDecode: any bytes, under a schema of every kind, decode or fail
// with an error; none panics or hangs.
func FuzzDecode(f *testing.F) {
	schema := `{"type": "record", "name": "R", "fields": [
		{"name": "u", "type": ["null", "string", "long", {"type": "array", "items": ["null", "double", "R"]}]},
		{"name": "m", "type": {"type": "map", "values": {"type": "enum", "name": "E", "symbols": ["A", "B"]}}},
		{"name": "f", "type": {"type": "fixed", "name": "F", "size": 3}},
		{"name": "b", "type": "boolean"}, {"name": "x", "type": "float"}, {"name": "y", "type": "bytes"}]}`
	typ, err := Parse([]byte(schema))
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte{0x00, 0x00, 1, 2, 3, 0x01, 0, 0, 0x80, 0x3f, 0x00})
	f.Add([]byte{0x06, 0x03, 0x10, 0x02, 0x04, 0x00})
	f.Fuzz(func(t *testing.T, data []byte) {
		d := NewDecoder(bufio.NewReader(bytes.NewReader(data)))
		for {
			more, err := d.More()
			if err != nil || !more {
				return
			}
			if _, err := d.Decode(typ); err != nil {
				return
			}
		}
	})
}
