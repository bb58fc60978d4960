package main

import (
	"math"
	"slices"
	"strconv"
)

// A netsim input of tens of thousands of flows spends longer in
// encoding/json's reflection and in the walk of its keys (scanKeys) than
// the network model takes over many of its changes. Nearly every input is
// plain: netsim's own keys, spelt exactly and each once, numbers where
// numbers are wanted, ids without escapes. parsePlainNetsim reads such an
// input in one pass and takes nothing else; anything it does not know
// goes to the general reader, whose messages stay as they were.

// parsePlainNetsim decodes b if it is a plain netsim input: one JSON
// object with only netsim's keys, each at most once and spelt as netsim
// spells them, numbers (in JSON's grammar, within float64's range) for
// the numeric fields, a list of objects for flows, ids of printable ASCII
// other than '"' and '\', and nothing but whitespace after the object.
// ok is false for anything else. For a plain input, encoding/json decodes
// the same values and scanKeys finds nothing to refuse.
func parsePlainNetsim(b []byte) (in netsimInput, ok bool) {
	p := plainReader{s: string(b)}
	ok = p.members(netsimKeys, func(key string) bool {
		var ok bool
		switch key {
		case "racks":
			in.Racks, ok = p.number()
		case "nodes_per_rack":
			in.NodesPerRack, ok = p.number()
		case "nic_gbps":
			in.NICGbps, ok = p.number()
		case "rack_uplink_gbps":
			in.RackUplinkGbps, ok = p.number()
		case "flows":
			in.Flows, ok = p.flows()
		}
		return ok
	})
	p.space()
	if !ok || p.i != len(p.s) {
		return netsimInput{}, false
	}
	return in, true
}

// netsimKeys and flowKeys are the keys of netsim's input and of a flow in
// it, as netsimInput and netsimFlow spell them.
var (
	netsimKeys = []string{"racks", "nodes_per_rack", "nic_gbps", "rack_uplink_gbps", "flows"}
	flowKeys   = []string{"id", "src", "dst", "bytes", "start_s"}
)

// plainReader reads a plain netsim input from s at i. Ids are slices of s,
// and numbers are handed out of blocks, so that a flow costs no allocation
// of its own.
type plainReader struct {
	s    string
	i    int
	nums []float64
	ids  []string
}

// space skips JSON whitespace.
func (p *plainReader) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// take consumes c if it comes next.
func (p *plainReader) take(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// object reads an object, whitespace around it included, handing each
// member's key to member, which reads the value.
func (p *plainReader) object(member func(key string) bool) bool {
	p.space()
	if !p.take('{') {
		return false
	}
	p.space()
	if p.take('}') {
		return true
	}
	for {
		p.space()
		k, ok := p.str()
		if !ok {
			return false
		}
		p.space()
		if !p.take(':') {
			return false
		}
		p.space()
		if !member(k) {
			return false
		}
		p.space()
		if p.take('}') {
			return true
		}
		if !p.take(',') {
			return false
		}
	}
}

// members reads an object whose keys are among keys, each at most once,
// handing each key to value, which reads its value.
func (p *plainReader) members(keys []string, value func(key string) bool) bool {
	var seen uint32
	return p.object(func(key string) bool {
		k := slices.Index(keys, key)
		if k < 0 || seen&(1<<k) != 0 {
			return false
		}
		seen |= 1 << k
		return value(key)
	})
}

// str reads a string of printable ASCII without escapes.
func (p *plainReader) str() (string, bool) {
	if !p.take('"') {
		return "", false
	}
	start := p.i
	for ; p.i < len(p.s); p.i++ {
		switch c := p.s[p.i]; {
		case c == '"':
			p.i++
			return p.s[start : p.i-1], true
		case c < 0x20 || c > 0x7e || c == '\\':
			return "", false
		}
	}
	return "", false
}

// number reads a JSON number that float64 holds, as encoding/json would
// decode it, and returns a pointer to it.
func (p *plainReader) number() (*float64, bool) {
	s, start := p.s, p.i
	i := start
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		i = digits(s, i)
	default:
		return nil, false
	}
	if i < len(s) && s[i] == '.' {
		if j := digits(s, i+1); j > i+1 {
			i = j
		} else {
			return nil, false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if j := digits(s, i); j > i {
			i = j
		} else {
			return nil, false
		}
	}
	v, err := strconv.ParseFloat(s[start:i], 64)
	if err != nil {
		return nil, false // out of range: encoding/json refuses it
	}
	p.i = i
	if len(p.nums) == cap(p.nums) {
		p.nums = make([]float64, 0, 4096)
	}
	p.nums = append(p.nums, v)
	return &p.nums[len(p.nums)-1], true
}

// id reads a flow's id, a string str takes, and returns a pointer to it.
func (p *plainReader) id() (*string, bool) {
	id, ok := p.str()
	if !ok {
		return nil, false
	}
	if len(p.ids) == cap(p.ids) {
		p.ids = make([]string, 0, 4096)
	}
	p.ids = append(p.ids, id)
	return &p.ids[len(p.ids)-1], true
}

// digits returns the index after the run of decimal digits at i.
func digits(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// flows reads the list of flows: objects with netsim's flow keys, each at
// most once.
func (p *plainReader) flows() ([]netsimFlow, bool) {
	if !p.take('[') {
		return nil, false
	}
	flows := []netsimFlow{}
	p.space()
	if p.take(']') {
		return flows, true
	}
	for {
		var f netsimFlow
		ok := p.members(flowKeys, func(key string) bool {
			var ok bool
			switch key {
			case "id":
				f.ID, ok = p.id()
			case "src":
				f.Src, ok = p.number()
			case "dst":
				f.Dst, ok = p.number()
			case "bytes":
				f.Bytes, ok = p.number()
			case "start_s":
				f.StartS, ok = p.number()
			}
			return ok
		})
		if !ok {
			return nil, false
		}
		flows = append(flows, f)
		p.space()
		if p.take(']') {
			return flows, true
		}
		if !p.take(',') {
			return nil, false
		}
	}
}

// appendPlainOutput appends out as encoding/json's Encoder, indenting by
// two spaces, writes it, without its reflection: a netsim run prints a
// line per flow. ok is false when a value is not plain (an id that
// encoding/json would escape, a time it would refuse), for that encoder
// to take.
func appendPlainOutput(b []byte, out *netsimOutput) ([]byte, bool) {
	if out.Flows == nil {
		return b, false // encoding/json writes null
	}
	b = append(b, "{\n  \"flows\": ["...)
	for i, f := range out.Flows {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n    {\n      \"id\": \""...)
		for j := 0; j < len(f.ID); j++ {
			// encoding/json escapes control characters, '"', '\', and
			// '<', '>' and '&' for HTML; other printable ASCII is as is.
			switch c := f.ID[j]; {
			case c < 0x20 || c > 0x7e, c == '"', c == '\\', c == '<', c == '>', c == '&':
				return b, false
			}
		}
		b = append(b, f.ID...)
		b = append(b, "\",\n      \"finish_s\": "...)
		var ok bool
		if b, ok = appendJSONFloat(b, f.FinishS); !ok {
			return b, false
		}
		b = append(b, "\n    }"...)
	}
	if len(out.Flows) > 0 {
		b = append(b, "\n  "...)
	}
	b = append(b, "],\n  \"makespan_s\": "...)
	b, ok := appendJSONFloat(b, out.MakespanS)
	return append(b, "\n}\n"...), ok
}

// appendJSONFloat appends v as encoding/json writes a float64: the
// shortest decimal that reads back as v, in exponent form below 1e-6 and
// from 1e21 up, with a one-digit negative exponent unpadded. ok is false
// for NaN and infinities, which JSON cannot hold.
func appendJSONFloat(b []byte, v float64) ([]byte, bool) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return b, false
	}
	format := byte('f')
	if a := math.Abs(v); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, v, format, -1, 64)
	if format == 'e' {
		// e-07 as e-7
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}
