package scenario

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Setting is one field of a scenario set from outside its file: a sweep
// axis's value, or `simulate -set`. Path names the field as the file does
// ("cluster.racks", "policy.params.t1_s"); Value is a YAML value.
type Setting struct {
	Path  string
	Value *yaml.Node
}

// ParseSetting reads "path=value", as `simulate -set` takes it. The value
// is YAML: "4", "FB-2010", "true", "[1, 2]" or "{grep: 10}".
func ParseSetting(s string) (Setting, error) {
	path, value, ok := strings.Cut(s, "=")
	path = strings.TrimSpace(path)
	if !ok || path == "" {
		return Setting{}, fmt.Errorf("%q: want path=value, as in cluster.racks=4", s)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(value), &doc); err != nil {
		return Setting{}, fmt.Errorf("%s=%s: the value is not YAML: %s", path, value, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(doc.Content) != 1 {
		return Setting{}, fmt.Errorf("%s=%s: want a value after the =", path, value)
	}
	return Setting{Path: path, Value: doc.Content[0]}, nil
}

// String renders the setting as "path=value", with the value in YAML's
// flow style.
func (s Setting) String() string { return s.Path + "=" + FormatValue(s.Value) }

// FormatValue renders a YAML value on one line: a scalar as written, a
// list or mapping in flow style ("[1, 2]", "{grep: 10}").
func FormatValue(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return n.Value
	}
	c := *n
	setFlow(&c)
	b, err := yaml.Marshal(&c)
	if err != nil {
		return fmt.Sprint(n.Value)
	}
	return strings.TrimSpace(string(b))
}

func setFlow(n *yaml.Node) {
	n.Style |= yaml.FlowStyle
	for i, c := range n.Content {
		cc := *c
		setFlow(&cc)
		n.Content[i] = &cc
	}
}

// Override returns the scenario document src with each setting applied in
// order: the field is replaced, or added with the sections above it. The
// result is the document encoded again, comments kept. A path the
// scenario has no field for, or a value of the wrong kind for its field,
// is an error naming the setting; everything else is checked when the
// result is parsed, as a scenario file is.
//
// Below policy.params any path is taken: a policy's parameters are its
// own, and it refuses unknown ones when it is built.
func Override(src []byte, settings ...Setting) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, fmt.Errorf("the scenario is not YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if doc.Kind == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("the scenario is not a YAML mapping of sections")
	}
	for _, s := range settings {
		if err := checkSetting(s); err != nil {
			return nil, err
		}
		if err := setPath(root, strings.Split(s.Path, "."), s.Value); err != nil {
			return nil, fmt.Errorf("%s: %w", s, err)
		}
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// settingFreeType is a field a setting may reach below with any path: a
// section another package decodes (policy.params).
var settingFreeType = reflect.TypeOf(yaml.Node{})

// checkSetting finds the field s.Path names in Config and checks that
// s.Value decodes into it.
func checkSetting(s Setting) error {
	t := reflect.TypeOf(Config{})
	where := "the scenario"
	segs := strings.Split(s.Path, ".")
	for i, seg := range segs {
		if seg == "" || strings.ContainsAny(seg, "[] ") {
			return fmt.Errorf("%s: %q is not a field name (a path is field names joined by dots; a list is set whole, as in pools=[...])", s, seg)
		}
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t == settingFreeType {
			return nil // free-form below: a policy's parameters
		}
		switch t.Kind() {
		case reflect.Struct:
			f, names := yamlField(t, seg)
			if f == nil {
				return fmt.Errorf("%s: %s has no field %s (its fields: %s)", s, where, seg, strings.Join(names, ", "))
			}
			t = f.Type
		case reflect.Map:
			t = t.Elem()
		default:
			return fmt.Errorf("%s: %s is a single value; it has no field %s", s, strings.Join(segs[:i], "."), seg)
		}
		where = strings.Join(segs[:i+1], ".")
	}
	if t == settingFreeType {
		return nil
	}
	v := reflect.New(t)
	if err := s.Value.Decode(v.Interface()); err != nil || isInt(t) && !whole(s.Value) {
		return fmt.Errorf("%s: %s", s, want(t, s.Value))
	}
	return nil
}

// yamlField returns the field of struct type t that YAML calls name, and
// the names of all its fields for an error.
func yamlField(t reflect.Type, name string) (*reflect.StructField, []string) {
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if tag == "-" {
			continue
		}
		if strings.Contains(opts, "inline") {
			if g, more := yamlField(f.Type, name); g != nil {
				return g, nil
			} else {
				names = append(names, more...)
			}
			continue
		}
		if tag == "" {
			tag = strings.ToLower(f.Name)
		}
		if tag == name {
			return &f, nil
		}
		names = append(names, tag)
	}
	return nil, names
}

// whole reports whether n is a whole number: an integer, or a float with
// no fraction (1e3), as a scenario file reads one. yaml.v3 truncates 2.5
// into an int field; a setting must not.
func whole(n *yaml.Node) bool {
	switch n.ShortTag() {
	case "!!int":
		return true
	case "!!float":
		f, err := strconv.ParseFloat(n.Value, 64)
		return err == nil && f == math.Trunc(f) && !math.IsInf(f, 0)
	}
	return false
}

func isInt(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

// want says what a field of type t takes, and what it was given.
func want(t reflect.Type, got *yaml.Node) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem() // an optional field takes what its value takes
	}
	var w string
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		w = "a whole number"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		w = "a whole number >= 0"
	case reflect.Float32, reflect.Float64:
		w = "a number"
	case reflect.Bool:
		w = "true or false"
	case reflect.String:
		w = "a string"
	case reflect.Struct:
		w = "a mapping of its fields"
	case reflect.Map:
		w = "a mapping"
	case reflect.Slice:
		w = "a list"
	default:
		w = "a " + t.Kind().String()
	}
	return fmt.Sprintf("want %s, got %s", w, FormatValue(got))
}

// setPath sets the value at path below mapping n, adding mappings for
// sections the document does not have.
func setPath(n *yaml.Node, path []string, v *yaml.Node) error {
	for i, key := range path {
		last := i == len(path)-1
		var child *yaml.Node
		for k := 0; k+1 < len(n.Content); k += 2 {
			if n.Content[k].Value == key {
				if last {
					n.Content[k+1] = keepComments(v, n.Content[k+1])
					return nil
				}
				child = n.Content[k+1]
				break
			}
		}
		switch {
		case child == nil && last:
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
			return nil
		case child == nil:
			child = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, child)
		case child.Kind == yaml.MappingNode:
		case child.Kind == yaml.ScalarNode && child.Tag == "!!null":
			*child = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: child.Line, Column: child.Column}
		default:
			return fmt.Errorf("%s is not a section in the scenario", strings.Join(path[:i+1], "."))
		}
		n = child
	}
	return nil
}

// keepComments returns a copy of v with old's comments, so that a value
// set in place keeps the note the file wrote beside it.
func keepComments(v, old *yaml.Node) *yaml.Node {
	c := *v
	if c.HeadComment == "" {
		c.HeadComment = old.HeadComment
	}
	if c.LineComment == "" {
		c.LineComment = old.LineComment
	}
	if c.FootComment == "" {
		c.FootComment = old.FootComment
	}
	return &c
}

// LoadBytes is Load for a scenario already read: name labels its errors,
// and a relative trace path in it is taken from dir. Source returns b.
func LoadBytes(b []byte, name, dir string) (*Config, error) {
	c, err := Parse(bytes.NewReader(b), name)
	if err != nil {
		return nil, err
	}
	c.dir = dir
	c.src = b
	return c, nil
}
