// Package avro decodes data in Avro's binary encoding by the schema it
// was written with, as the Avro 1.x specification lays them out: the
// schema's JSON text is parsed into types, and each datum is read into
// plain Go values. It exists for MapReduce's binary JobHistory files
// (Hadoop 3's default), which carry their writer's schema on their second
// line and the events, binary-encoded one after another, after it.
//
// Values decode as: null as nil, boolean as bool, int and long as int64,
// float and double as float64, string as string, bytes and fixed as
// []byte, an enum as its symbol's string, an array as []any, a map as
// map[string]any, a record as *Record, and a union as its branch's value.
//
// The decoder reads untrusted files: a length or count beyond what the
// input can hold is an error, never an allocation of that size or a loop
// that reads nothing.
package avro

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// Kind is a schema type's kind, its Avro type name.
type Kind string

// The kinds of the specification's types.
const (
	Null    Kind = "null"
	Boolean Kind = "boolean"
	Int     Kind = "int"
	Long    Kind = "long"
	Float   Kind = "float"
	Double  Kind = "double"
	Bytes   Kind = "bytes"
	String  Kind = "string"
	RecordK Kind = "record"
	Enum    Kind = "enum"
	Array   Kind = "array"
	Map     Kind = "map"
	Union   Kind = "union"
	Fixed   Kind = "fixed"
)

// Type is one type of a schema.
type Type struct {
	Kind Kind
	// Name is a named type's full name (record, enum, fixed).
	Name string
	// Fields are a record's, in the order they are written.
	Fields []Field
	// Symbols are an enum's.
	Symbols []string
	// Items is an array's element type, Values a map's value type.
	Items, Values *Type
	// Branches are a union's types.
	Branches []*Type
	// Size is a fixed's length in bytes.
	Size int
}

// Field is one field of a record type.
type Field struct {
	Name string
	Type *Type
}

// Record is a decoded record: its type's full name and its fields' values
// by name.
type Record struct {
	Name   string
	Fields map[string]any
}

// MaxBytes bounds one string, bytes or fixed value, and MaxItems the
// items of one array or map: larger ones are not in a JobHistory file and
// would take unbounded memory.
const (
	MaxBytes = 64 << 20
	MaxItems = 1 << 20
)

// MaxDepth bounds how deeply types nest, in a schema and so in a datum.
const MaxDepth = 256

// Parse reads a schema from its JSON text (the specification's "Schema
// Declaration"): a primitive type's name, a named type defined earlier,
// an object defining a type, or an array, a union.
func Parse(text []byte) (*Type, error) {
	var v any
	if err := json.Unmarshal(text, &v); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	p := parser{named: map[string]*Type{}}
	return p.parse(v, "", 0)
}

type parser struct {
	named map[string]*Type
}

// fullName qualifies name by namespace ns, as the specification's names
// are: a name holding a dot is already full.
func fullName(name, ns string) string {
	if strings.Contains(name, ".") || ns == "" {
		return name
	}
	return ns + "." + name
}

func (p *parser) parse(v any, ns string, depth int) (*Type, error) {
	if depth > MaxDepth {
		return nil, fmt.Errorf("schema: types nested more than %d deep", MaxDepth)
	}
	switch s := v.(type) {
	case string:
		return p.byName(s, ns)
	case []any:
		u := &Type{Kind: Union}
		for _, b := range s {
			t, err := p.parse(b, ns, depth+1)
			if err != nil {
				return nil, err
			}
			if t.Kind == Union {
				return nil, errors.New("schema: a union directly inside a union")
			}
			u.Branches = append(u.Branches, t)
		}
		if len(u.Branches) == 0 {
			return nil, errors.New("schema: a union without branches")
		}
		return u, nil
	case map[string]any:
		return p.parseObject(s, ns, depth)
	}
	return nil, fmt.Errorf("schema: %v is not a type", v)
}

func (p *parser) byName(name, ns string) (*Type, error) {
	switch k := Kind(name); k {
	case Null, Boolean, Int, Long, Float, Double, Bytes, String:
		return &Type{Kind: k}, nil
	}
	if t, ok := p.named[fullName(name, ns)]; ok {
		return t, nil
	}
	if t, ok := p.named[name]; ok {
		return t, nil
	}
	return nil, fmt.Errorf("schema: type %q is neither a primitive nor a named type defined before it", name)
}

func (p *parser) parseObject(o map[string]any, ns string, depth int) (*Type, error) {
	kind, _ := o["type"].(string)
	if kind == "" {
		// {"type": {...}} or {"type": [...]}: the type is the value.
		if inner, ok := o["type"]; ok {
			return p.parse(inner, ns, depth+1)
		}
		return nil, errors.New(`schema: an object without "type"`)
	}
	switch Kind(kind) {
	case Array:
		items, err := p.parse(o["items"], ns, depth+1)
		if err != nil {
			return nil, err
		}
		return &Type{Kind: Array, Items: items}, nil
	case Map:
		values, err := p.parse(o["values"], ns, depth+1)
		if err != nil {
			return nil, err
		}
		return &Type{Kind: Map, Values: values}, nil
	case RecordK, "error", Enum, Fixed:
	default:
		// A primitive written as an object, {"type": "long"}, perhaps
		// with a logical type, which decodes as its primitive.
		return p.byName(kind, ns)
	}
	name, _ := o["name"].(string)
	if name == "" {
		return nil, fmt.Errorf("schema: a %s without a name", kind)
	}
	if space, ok := o["namespace"].(string); ok && !strings.Contains(name, ".") {
		ns = space
	}
	full := fullName(name, ns)
	if i := strings.LastIndexByte(full, '.'); i >= 0 {
		ns = full[:i]
	}
	if _, dup := p.named[full]; dup {
		return nil, fmt.Errorf("schema: type %q defined twice", full)
	}
	t := &Type{Name: full}
	p.named[full] = t
	if _, taken := p.named[name]; !taken {
		p.named[name] = t // a short name finds it too, as Hadoop's schemas use them
	}
	switch Kind(kind) {
	case Enum:
		t.Kind = Enum
		syms, _ := o["symbols"].([]any)
		for _, s := range syms {
			str, ok := s.(string)
			if !ok {
				return nil, fmt.Errorf("schema: enum %s: symbol %v is not a string", full, s)
			}
			t.Symbols = append(t.Symbols, str)
		}
		if len(t.Symbols) == 0 {
			return nil, fmt.Errorf("schema: enum %s has no symbols", full)
		}
	case Fixed:
		t.Kind = Fixed
		size, ok := o["size"].(float64)
		if !ok || size < 0 || size > MaxBytes || size != math.Trunc(size) {
			return nil, fmt.Errorf("schema: fixed %s: size %v", full, o["size"])
		}
		t.Size = int(size)
	default:
		t.Kind = RecordK
		fields, ok := o["fields"].([]any)
		if !ok {
			return nil, fmt.Errorf("schema: record %s without fields", full)
		}
		for _, f := range fields {
			fo, ok := f.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("schema: record %s: field %v is not an object", full, f)
			}
			fname, _ := fo["name"].(string)
			if fname == "" {
				return nil, fmt.Errorf("schema: record %s: a field without a name", full)
			}
			ft, err := p.parse(fo["type"], ns, depth+1)
			if err != nil {
				return nil, fmt.Errorf("record %s, field %s: %w", full, fname, err)
			}
			t.Fields = append(t.Fields, Field{Name: fname, Type: ft})
		}
	}
	return t, nil
}

// Decoder reads binary-encoded data from a stream.
type Decoder struct {
	r *bufio.Reader
	n int64 // bytes read
}

// NewDecoder reads from r.
func NewDecoder(r *bufio.Reader) *Decoder { return &Decoder{r: r} }

// Offset is how many bytes the decoder has read.
func (d *Decoder) Offset() int64 { return d.n }

// More reports whether input is left: false at the end of the stream,
// where a datum may end and no more follow.
func (d *Decoder) More() (bool, error) {
	_, err := d.r.Peek(1)
	if errors.Is(err, io.EOF) {
		return false, nil
	}
	return err == nil, err
}

// Decode reads one datum of type t.
func (d *Decoder) Decode(t *Type) (any, error) { return d.decode(t, 0) }

// errTruncated is input that ends inside a datum.
var errTruncated = errors.New("the input ends inside a value")

func (d *Decoder) byte() (byte, error) {
	b, err := d.r.ReadByte()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return 0, errTruncated
		}
		return 0, err
	}
	d.n++
	return b, nil
}

// long reads a zig-zag variable-length integer of at most 64 bits.
func (d *Decoder) long() (int64, error) {
	var u uint64
	for shift := uint(0); ; shift += 7 {
		if shift >= 64 {
			return 0, errors.New("a variable-length integer longer than 64 bits")
		}
		b, err := d.byte()
		if err != nil {
			return 0, err
		}
		u |= uint64(b&0x7f) << shift
		if b&0x80 == 0 {
			break
		}
	}
	return int64(u>>1) ^ -int64(u&1), nil
}

func (d *Decoder) fixed(n int) ([]byte, error) {
	if n > MaxBytes {
		return nil, fmt.Errorf("a value of %d bytes, more than %d", n, MaxBytes)
	}
	// Grow as bytes arrive, so that a corrupt length costs only the
	// bytes the input really holds.
	buf := make([]byte, 0, min(n, 64<<10))
	for len(buf) < n {
		chunk := min(n-len(buf), 64<<10)
		start := len(buf)
		buf = append(buf, make([]byte, chunk)...)
		got, err := io.ReadFull(d.r, buf[start:])
		d.n += int64(got)
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, errTruncated
			}
			return nil, err
		}
	}
	return buf, nil
}

func (d *Decoder) length(what string) (int, error) {
	n, err := d.long()
	if err != nil {
		return 0, err
	}
	if n < 0 || n > MaxBytes {
		return 0, fmt.Errorf("%s of length %d", what, n)
	}
	return int(n), nil
}

// blocks reads an array's or map's blocks, calling item for each item:
// a count, negative when a byte size follows it, then the items; a
// count of 0 ends them.
func (d *Decoder) blocks(item func() error) error {
	total := int64(0)
	for {
		count, err := d.long()
		if err != nil {
			return err
		}
		if count == 0 {
			return nil
		}
		if count < 0 {
			if count == math.MinInt64 {
				return errors.New("a block count out of range")
			}
			count = -count
			if _, err := d.long(); err != nil { // the block's size in bytes
				return err
			}
		}
		total += count
		if total > MaxItems {
			return fmt.Errorf("more than %d items in one array or map", MaxItems)
		}
		for range count {
			if err := item(); err != nil {
				return err
			}
		}
	}
}

func (d *Decoder) decode(t *Type, depth int) (any, error) {
	if depth > MaxDepth {
		return nil, fmt.Errorf("values nested more than %d deep", MaxDepth)
	}
	switch t.Kind {
	case Null:
		return nil, nil
	case Boolean:
		b, err := d.byte()
		if err != nil {
			return nil, err
		}
		if b > 1 {
			return nil, fmt.Errorf("a boolean byte %d, want 0 or 1", b)
		}
		return b == 1, nil
	case Int:
		v, err := d.long()
		if err != nil {
			return nil, err
		}
		if v < math.MinInt32 || v > math.MaxInt32 {
			return nil, fmt.Errorf("an int %d beyond 32 bits", v)
		}
		return v, nil
	case Long:
		return d.long()
	case Float:
		b, err := d.fixed(4)
		if err != nil {
			return nil, err
		}
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b))), nil
	case Double:
		b, err := d.fixed(8)
		if err != nil {
			return nil, err
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
	case Bytes, String:
		n, err := d.length(string(t.Kind))
		if err != nil {
			return nil, err
		}
		b, err := d.fixed(n)
		if err != nil || t.Kind == Bytes {
			return b, err
		}
		return string(b), nil
	case Fixed:
		return d.fixed(t.Size)
	case Enum:
		i, err := d.long()
		if err != nil {
			return nil, err
		}
		if i < 0 || i >= int64(len(t.Symbols)) {
			return nil, fmt.Errorf("enum %s: symbol %d of %d", shortName(t.Name), i, len(t.Symbols))
		}
		return t.Symbols[i], nil
	case Union:
		i, err := d.long()
		if err != nil {
			return nil, err
		}
		if i < 0 || i >= int64(len(t.Branches)) {
			return nil, fmt.Errorf("union branch %d of %d", i, len(t.Branches))
		}
		return d.decode(t.Branches[i], depth+1)
	case Array:
		out := []any{}
		err := d.blocks(func() error {
			v, err := d.decode(t.Items, depth+1)
			out = append(out, v)
			return err
		})
		return out, err
	case Map:
		out := map[string]any{}
		err := d.blocks(func() error {
			n, err := d.length("map key")
			if err != nil {
				return err
			}
			k, err := d.fixed(n)
			if err != nil {
				return err
			}
			v, err := d.decode(t.Values, depth+1)
			out[string(k)] = v
			return err
		})
		return out, err
	case RecordK:
		r := &Record{Name: t.Name, Fields: make(map[string]any, len(t.Fields))}
		for _, f := range t.Fields {
			v, err := d.decode(f.Type, depth+1)
			if err != nil {
				return nil, fmt.Errorf("%s.%s: %w", shortName(t.Name), f.Name, err)
			}
			r.Fields[f.Name] = v
		}
		return r, nil
	}
	return nil, fmt.Errorf("a type of kind %q", t.Kind)
}

// shortName is a full name's last part, for messages: Hadoop's names
// carry a long namespace.
func shortName(full string) string {
	return full[strings.LastIndexByte(full, '.')+1:]
}
