// Package hostmap reads the files that say which hosts a Hadoop or YARN
// cluster has and on which racks: a Rumen topology (TraceBuilder's
// cluster tree, JSON), a Hadoop table file (TableMapping's "name rack"
// lines, net.topology.table.file.name) and a YARN SLS nodes file (racks
// of nodes, each with its memory-mb and vcores). Each gives a Map, from
// which the cluster package builds a topology with racks of any size.
package hostmap

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strings"

	"github.com/mrsched/mrsched/internal/gzfile"
)

// DefaultRack is the rack of a host a map does not name, as Hadoop's
// NetworkTopology.DEFAULT_RACK.
const DefaultRack = "/default-rack"

// Format names a host map format.
type Format string

// The formats.
const (
	FormatRumen Format = "rumen-topology"
	FormatTable Format = "table"
	FormatSLS   Format = "sls-nodes"
)

// Node is one host of the cluster.
type Node struct {
	Host string
	// Rack is the host's rack, with a leading slash ("/rack01").
	Rack string
	// MemoryMB and VCores are the node's resources when the file gives
	// them (an SLS nodes file's memory-mb and vcores); 0 when not.
	MemoryMB int64
	VCores   int64
	// Line is where the node is named, for errors.
	Line int
}

// Map is a cluster's hosts and racks, as a file gives them.
type Map struct {
	Format Format
	File   string
	// Nodes in file order, each host once.
	Nodes []Node
	// Aliases are names the file maps to a rack that are not nodes of
	// their own: a table's IP addresses, when it also names hosts (see
	// ReadTable). They are counted and given their racks; a trace that
	// names a host by one of them names no node.
	Aliases map[string]string
	// Warnings name what the reader skipped or assumed, with its line.
	Warnings []string
	index    map[string]int
}

// Racks lists the racks in the order their first node appears.
func (m *Map) Racks() []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range m.Nodes {
		if !seen[n.Rack] {
			seen[n.Rack] = true
			out = append(out, n.Rack)
		}
	}
	return out
}

// RackOf is the rack of a host or alias, DefaultRack when the map does not
// name it (Hadoop's rule for an unresolved host).
func (m *Map) RackOf(host string) string {
	if i, ok := m.index[host]; ok {
		return m.Nodes[i].Rack
	}
	if r, ok := m.Aliases[host]; ok {
		return r
	}
	return DefaultRack
}

// Has reports whether the map names host as a node.
func (m *Map) Has(host string) bool {
	_, ok := m.index[host]
	return ok
}

// add appends a node. A host named again is kept once, at its first
// place, with the later entry's rack and resources, as Hadoop's
// TableMapping keeps a name's last line; a warning says so.
func (m *Map) add(n Node) {
	if m.index == nil {
		m.index = map[string]int{}
	}
	if i, ok := m.index[n.Host]; ok {
		prev := m.Nodes[i]
		m.warnf(n.Line, "host %q is named again (first at line %d, rack %s); the later entry, rack %s, is taken", n.Host, prev.Line, prev.Rack, n.Rack)
		m.Nodes[i] = n
		return
	}
	m.index[n.Host] = len(m.Nodes)
	m.Nodes = append(m.Nodes, n)
}

func (m *Map) warnf(line int, format string, args ...any) {
	m.Warnings = append(m.Warnings, fmt.Sprintf("%s:%d: %s", m.File, line, fmt.Sprintf(format, args...)))
}

// ParseError is a malformed entry: the file, its line, the field, and why.
type ParseError struct {
	File  string
	Line  int
	Field string
	Err   error
}

// Error reads `topology.json:7: field "name": want a string, got a number`.
func (e *ParseError) Error() string {
	s := e.File
	if e.Line > 0 {
		s += fmt.Sprintf(":%d", e.Line)
	}
	if e.Field != "" {
		s += fmt.Sprintf(": field %q", e.Field)
	}
	return s + ": " + e.Err.Error()
}

// Unwrap gives the cause.
func (e *ParseError) Unwrap() error { return e.Err }

// rackName writes a rack with its leading slash.
func rackName(s string) string {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "/") {
		s = "/" + s
	}
	return s
}

// isAddress reports whether name is an IP address literal.
func isAddress(name string) bool {
	_, err := netip.ParseAddr(name)
	return err == nil
}

// Sniff tells a host map's format from its first bytes: JSON with a
// "children" key is a Rumen topology, JSON with "rack" and "nodes" an SLS
// nodes file, and text a table file.
func Sniff(head []byte) (Format, error) {
	t := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(t) > 0 && t[0] == '{' {
		switch {
		case bytes.Contains(t, []byte(`"children"`)):
			return FormatRumen, nil
		case bytes.Contains(t, []byte(`"nodes"`)) || bytes.Contains(t, []byte(`"rack"`)):
			return FormatSLS, nil
		case bytes.Contains(t, []byte(`"name"`)):
			return FormatRumen, nil // a one-host topology has no children
		}
		return "", errors.New("JSON that is neither a Rumen topology (\"children\") nor an SLS nodes file (\"rack\", \"nodes\")")
	}
	if len(t) > 0 && (t[0] == '[' || t[0] == '<') {
		return "", errors.New("not a topology: want a Rumen topology, an SLS nodes file or a table of \"name rack\" lines")
	}
	return FormatTable, nil
}

// Load reads the host map at path, gzip-compressed or not, its format
// sniffed from its content.
func Load(path string) (*Map, error) {
	f, err := gzfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head, err := f.Peek(64 << 10)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, err
	}
	if len(head) == 0 {
		return nil, fmt.Errorf("%s: empty file; want a Rumen topology, an SLS nodes file or a table of \"name rack\" lines", path)
	}
	format, err := Sniff(head)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var m *Map
	switch format {
	case FormatRumen:
		m, err = ReadRumen(f, path)
	case FormatSLS:
		m, err = ReadSLS(f, path)
	default:
		m, err = ReadTable(f, path)
	}
	if err != nil {
		return nil, err
	}
	if len(m.Nodes) == 0 {
		return nil, fmt.Errorf("%s: no hosts", path)
	}
	return m, nil
}
