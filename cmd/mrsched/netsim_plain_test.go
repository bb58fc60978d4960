package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// agreesWithGeneralReader checks that an input parsePlainNetsim took
// decodes to the same values through encoding/json, and that the walk of
// its keys refuses nothing: the one-pass reader may only take inputs the
// general reader takes without a word.
func agreesWithGeneralReader(t *testing.T, data []byte, plain netsimInput) {
	t.Helper()
	var want netsimInput
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&want); err != nil {
		t.Fatalf("the one-pass reader took %q, which encoding/json refuses: %v", data, err)
	}
	if !reflect.DeepEqual(plain, want) {
		t.Fatalf("the one-pass reader read %q as %s; encoding/json as %s", data, dumpNetsim(plain), dumpNetsim(want))
	}
	if _, err := scanKeys(data); err != nil {
		t.Fatalf("the one-pass reader took %q, whose keys the walk refuses: %v", data, err)
	}
}

// dumpNetsim shows an input's values rather than its pointers.
func dumpNetsim(in netsimInput) string {
	b, _ := json.Marshal(in)
	return string(b)
}

func TestPlainNetsimReadsWhatEncodingJSONReads(t *testing.T) {
	ex, err := os.ReadFile(filepath.Join("..", "..", "examples", "netsim-two-racks.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, json string }{
		{"the shipped example", string(ex)},
		{"no whitespace", `{"racks":2,"nodes_per_rack":2,"nic_gbps":1,"rack_uplink_gbps":1,"flows":[{"id":"a","src":0,"dst":3,"bytes":1e9,"start_s":0.5}]}`},
		{"every kind of whitespace", "\r\n\t { \"racks\" \t: 2 ,\n\"flows\" : [ { \"id\" : \"a\" } , { } ] } \n\t"},
		{"no flows", `{"racks": 2, "nodes_per_rack": 2, "nic_gbps": 1, "rack_uplink_gbps": 1, "flows": []}`},
		{"no fields", `{}`},
		{"numbers in every form", `{"racks": -0, "nodes_per_rack": 1.5e3, "nic_gbps": 2E-2, "rack_uplink_gbps": 0.000001, "flows": [{"bytes": 1e-400, "src": -12.75e+1}]}`},
		{"fields in any order", `{"flows": [{"start_s": 1, "bytes": 2, "dst": 3, "src": 4, "id": "x y!"}], "rack_uplink_gbps": 1, "racks": 3}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			in, ok := parsePlainNetsim([]byte(c.json))
			if !ok {
				t.Fatalf("%q: the one-pass reader left a plain input to the general reader", c.json)
			}
			agreesWithGeneralReader(t, []byte(c.json), in)
		})
	}
}

func TestPlainNetsimLeavesTheRestToTheGeneralReader(t *testing.T) {
	for _, c := range []struct{ name, json string }{
		{"empty", ""},
		{"not an object", `[1, 2]`},
		{"an unknown field", `{"racks": 1, "flowz": []}`},
		{"a field in other case", `{"Racks": 1}`},
		{"a field twice", `{"racks": 1, "racks": 2}`},
		{"a flow field twice", `{"flows": [{"id": "a", "id": "b"}]}`},
		{"an unknown flow field", `{"flows": [{"srcc": 1}]}`},
		{"null", `{"racks": null}`},
		{"a string for a number", `{"racks": "two"}`},
		{"a number for an id", `{"flows": [{"id": 1}]}`},
		{"an escape in an id", `{"flows": [{"id": "a\"b"}]}`},
		{"non-ASCII in an id", `{"flows": [{"id": "é"}]}`},
		{"a number out of range", `{"racks": 1e400}`},
		{"a leading zero", `{"racks": 01}`},
		{"a bare point", `{"racks": 1.}`},
		{"a plus sign", `{"racks": +1}`},
		{"a missing exponent", `{"racks": 1e}`},
		{"data after the object", `{"racks": 1} {}`},
		{"a trailing comma", `{"racks": 1,}`},
		{"flows not a list", `{"flows": {}}`},
		{"a flow not an object", `{"flows": [1]}`},
		{"an unclosed object", `{"racks": 1`},
		{"a byte-order mark", "\ufeff{}"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if in, ok := parsePlainNetsim([]byte(c.json)); ok {
				t.Errorf("%q: read as %s; want it left to the general reader, whose messages it has", c.json, dumpNetsim(in))
			}
		})
	}
}

// FuzzPlainNetsim checks, on arbitrary input, that whatever the one-pass
// reader takes, encoding/json reads alike and the key walk accepts.
func FuzzPlainNetsim(f *testing.F) {
	f.Add([]byte(`{"racks": 2, "nodes_per_rack": 2, "nic_gbps": 1, "rack_uplink_gbps": 1, "flows": [{"id": "a", "src": 0, "dst": 3, "bytes": 1e9}]}`))
	f.Add([]byte(`{"flows": [{"id": "a"}, {}], "racks": -0.5e-3}`))
	f.Add([]byte(`{"racks": 1, "racks": 2}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if in, ok := parsePlainNetsim(data); ok {
			agreesWithGeneralReader(t, data, in)
		}
	})
}

// encodedNetsim is the output as encoding/json writes it.
func encodedNetsim(t *testing.T, out *netsimOutput) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// netsimOut builds an output of flows with the given ids and times.
func netsimOut(makespan float64, ids []string, times []float64) *netsimOutput {
	out := &netsimOutput{MakespanS: makespan}
	for i, id := range ids {
		out.Flows = append(out.Flows, struct {
			ID      string  `json:"id"`
			FinishS float64 `json:"finish_s"`
		}{id, times[i]})
	}
	return out
}

func TestPlainOutputWritesWhatEncodingJSONWrites(t *testing.T) {
	for _, c := range []struct {
		name  string
		out   *netsimOutput
		plain bool
	}{
		{"no flows", &netsimOutput{Flows: []struct {
			ID      string  `json:"id"`
			FinishS float64 `json:"finish_s"`
		}{}}, true},
		{"a nil list of flows", netsimOut(0, nil, nil), false},
		{"times of every size", netsimOut(2, []string{"a", "b", "c", "d", "e", "f", "g", "h"},
			[]float64{0, math.Copysign(0, -1), 1e-7, 1e-6, 123.456, 1e20, 1e21, 5e-324}), true},
		{"the largest time", netsimOut(math.MaxFloat64, []string{"x y!~"}, []float64{1.5e-300}), true},
		{"an id encoding/json escapes", netsimOut(1, []string{"a<b"}, []float64{1}), false},
		{"a quote in an id", netsimOut(1, []string{`a"b`}, []float64{1}), false},
		{"non-ASCII in an id", netsimOut(1, []string{"é"}, []float64{1}), false},
		{"an infinite makespan", netsimOut(math.Inf(1), []string{"a"}, []float64{1}), false},
		{"a NaN time", netsimOut(1, []string{"a"}, []float64{math.NaN()}), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := appendPlainOutput(nil, c.out)
			if ok != c.plain {
				t.Fatalf("plain = %v; want %v (encoding/json %s this output)", ok, c.plain, map[bool]string{true: "writes", false: "escapes or refuses"}[c.plain])
			}
			if ok {
				if want := encodedNetsim(t, c.out); !bytes.Equal(got, want) {
					t.Errorf("wrote\n%s\nencoding/json writes\n%s", got, want)
				}
			}
		})
	}
}

// FuzzPlainOutput checks, on arbitrary ids and times, that an output
// written without encoding/json is byte for byte what it writes.
func FuzzPlainOutput(f *testing.F) {
	f.Add("f0", 1.25, 3e-9)
	f.Add("a&b", 1e21, 0.0)
	f.Fuzz(func(t *testing.T, id string, finish, makespan float64) {
		out := netsimOut(makespan, []string{id, id + "2"}, []float64{finish, -finish})
		if got, ok := appendPlainOutput(nil, out); ok {
			if want := encodedNetsim(t, out); !bytes.Equal(got, want) {
				t.Errorf("wrote\n%s\nencoding/json writes\n%s", got, want)
			}
		}
	})
}
