package scenario

import (
	"fmt"
	"math"
	"reflect"
	"strconv"

	"gopkg.in/yaml.v3"
)

// checkParams checks a policy's parameters against the struct they
// decode into, before the policy's strict decode: whole numbers for
// integer fields, numbers for numeric ones, and no written 0 in a field
// whose 0 stands for its default (tag zero, see sched.Decode). Unknown
// fields are left to the decode. Errors start with the parameter's path
// under policy.params ("pools[1].weight: ..."), as the policies' own do,
// so that policyErr places them at the parameter's line. A whole number
// written as a float (1e3) is rewritten as an integer.
func checkParams(n *yaml.Node, t reflect.Type, path string) error {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	join := func(key string) string {
		if path == "" {
			return key
		}
		return path + "." + key
	}
	if isNull(n) {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return perr(n, path, "want a mapping of parameters, got %s", kindName(n))
		}
		fields := yamlFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, val := n.Content[i], n.Content[i+1]
			if key.Kind != yaml.ScalarNode {
				return perr(key, path, "a parameter's name must be a word, got %s", kindName(key))
			}
			for _, f := range fields {
				if f.name != key.Value {
					continue
				}
				if f.zero != "" && isZero(val) {
					return perr(val, join(key.Value), "0 is not a value here; leave the field out for the default, %s", f.zero)
				}
				if err := checkParams(val, f.typ, join(key.Value)); err != nil {
					return err
				}
			}
		}
		return nil
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return perr(n, path, "want a list, got %s", kindName(n))
		}
		for i, v := range n.Content {
			if err := checkParams(v, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return perr(n, path, "want a mapping, got %s", kindName(n))
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Kind != yaml.ScalarNode {
				return perr(n.Content[i], path, "a name must be a word, got %s", kindName(n.Content[i]))
			}
			if err := checkParams(n.Content[i+1], t.Elem(), join(n.Content[i].Value)); err != nil {
				return err
			}
		}
		return nil
	}
	if n.Kind != yaml.ScalarNode {
		return perr(n, path, "want a single value, got %s", kindName(n))
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int64, reflect.Int32:
		switch n.Tag {
		case "!!int":
			var i int64
			if n.Decode(&i) != nil {
				return perr(n, path, "%s; want a whole number", n.Value)
			}
		case "!!float":
			var v float64
			if n.Decode(&v) != nil || v != math.Trunc(v) || math.Abs(v) >= 1<<62 {
				return perr(n, path, "%s is not a whole number; want a whole number", n.Value)
			}
			n.Tag, n.Value = "!!int", strconv.FormatInt(int64(v), 10)
		default:
			return perr(n, path, "%s is not a number; want a whole number", kindName(n))
		}
	case reflect.Float64:
		if n.Tag != "!!int" && n.Tag != "!!float" {
			return perr(n, path, "%s is not a number", kindName(n))
		}
	case reflect.Bool:
		if n.Tag != "!!bool" {
			return perr(n, path, "%s; want true or false", kindName(n))
		}
	}
	return nil
}

// paramError is a parameter checkParams refuses: its path under the
// section, the line of its value, and why.
type paramError struct {
	path string
	line int
	msg  string
}

func (e *paramError) Error() string { return e.path + ": " + e.msg }

func perr(n *yaml.Node, path, format string, args ...any) error {
	return &paramError{path: path, line: n.Line, msg: fmt.Sprintf(format, args...)}
}

// isZero reports whether n is a written number 0.
func isZero(n *yaml.Node) bool {
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") {
		return false
	}
	var v float64
	return n.Decode(&v) == nil && v == 0
}
