package hostmap

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mrsched/mrsched/internal/jsonstream"
)

// MaxLineBytes bounds a table file's line: a longer one is not a table.
const MaxLineBytes = 1 << 20

// ReadTable reads a Hadoop table file as TableMapping does: each line is
// trimmed; empty lines and lines starting with '#' are skipped; a line
// splits on white space into a name and its rack, and a line without
// exactly two columns is skipped with a warning naming its line.
//
// A table maps names, and Hadoop's own files often give a host twice, by
// its host name and by its address. When a table names both host names
// and IP addresses, the host names are the nodes and the addresses are
// aliases, given their racks but no node (the table alone cannot say
// which address is which host's); a table of addresses only makes a node
// of each.
func ReadTable(r io.Reader, file string) (*Map, error) {
	m := &Map{Format: FormatTable, File: file}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLineBytes)
	var addrs []Node
	hosts := 0
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' {
			continue
		}
		cols := strings.Fields(text)
		if len(cols) != 2 {
			m.warnf(line, "%d columns, want 2 (name rack); line skipped, as TableMapping skips it", len(cols))
			continue
		}
		n := Node{Host: cols[0], Rack: rackName(cols[1]), Line: line}
		if isAddress(n.Host) {
			addrs = append(addrs, n)
			continue
		}
		hosts++
		m.add(n)
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{File: file, Err: err}
	}
	if hosts == 0 {
		for _, n := range addrs {
			m.add(n)
		}
		return m, nil
	}
	m.Aliases = map[string]string{}
	for _, n := range addrs {
		m.Aliases[n.Host] = n.Rack
	}
	return m, nil
}

// unescapeRumen undoes the regular-expression escaping Rumen writes into
// topology names ("cluster1\.example\.com"): a backslash is dropped and
// the character after it kept.
func unescapeRumen(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ReadRumen reads a Rumen topology (LoggedNetworkTopology: {"name",
// "children"}): the root is the cluster, leaves are hosts, and a host's
// rack is the path of the nodes between the root and it ("/rack" at
// depth 2, "/dc/rack" deeper). Names are unescaped (unescapeRumen). A
// leaf directly under the root has no rack and goes to DefaultRack.
func ReadRumen(r io.Reader, file string) (*Map, error) {
	m := &Map{Format: FormatRumen, File: file}
	d := jsonstream.NewReader(r)
	var walk func(path []string) error
	walk = func(path []string) error {
		var name string
		var kids bool
		nodeLine := d.Line()
		// Children may come before the name: their racks are written with
		// a placeholder at this node's depth, replaced once the name is
		// known.
		start := len(m.Nodes)
		err := d.Object(func(key []byte) error {
			var err error
			switch string(key) {
			case "name":
				name, err = d.String()
				name = unescapeRumen(name)
			case "children":
				err = d.Array(func(int) error {
					kids = true
					return walk(append(path, "\x00"))
				})
			default:
				err = d.Skip()
			}
			if err != nil {
				var se *jsonstream.SyntaxError
				if errors.As(err, &se) {
					return &ParseError{File: file, Line: se.Line, Field: string(key), Err: errors.New(se.Msg)}
				}
			}
			return err
		})
		if err != nil {
			return err
		}
		if name == "" {
			return &ParseError{File: file, Line: nodeLine, Field: "name", Err: errors.New("a topology node without a name")}
		}
		if !kids {
			rack := DefaultRack
			if len(path) > 1 {
				rack = "/" + strings.Join(path[1:], "/")
			}
			m.Nodes = append(m.Nodes, Node{Host: name, Rack: rack, Line: nodeLine})
			return nil
		}
		// Put this node's name into the racks of the hosts below it, at its
		// depth (the placeholder "\x00" written there).
		depth := len(path)
		for i := start; i < len(m.Nodes); i++ {
			parts := strings.Split(m.Nodes[i].Rack, "/")
			// parts[0] is "", parts[k] is the path element at depth k.
			if depth >= 1 && depth < len(parts) && parts[depth] == "\x00" {
				parts[depth] = name
				m.Nodes[i].Rack = strings.Join(parts, "/")
			}
		}
		return nil
	}
	if err := walk(nil); err != nil {
		var se *jsonstream.SyntaxError
		if errors.As(err, &se) {
			return nil, &ParseError{File: file, Line: se.Line, Err: errors.New(se.Msg)}
		}
		return nil, err
	}
	if more, err := d.More(); err != nil || more {
		return nil, &ParseError{File: file, Line: d.Line(), Err: errors.New("more after the topology's root object")}
	}
	// Index the hosts; a host named twice is kept once (add's rule).
	nodes := m.Nodes
	m.Nodes = nil
	for _, n := range nodes {
		m.add(n)
	}
	return m, nil
}

// SLS node resources: SLS gives a node without memory-mb or vcores the
// NodeManager defaults of yarn.sls.nm.memory.mb (10240) and
// yarn.sls.nm.vcores (10) (SLSConfiguration); the scenario's cluster
// settings take that role here, so the reader leaves them 0.

// ReadSLS reads an SLS nodes file: concatenated {"rack": R, "nodes":
// [{"node": N, "memory-mb": M, "vcores": V}, ...]} objects. A node entry
// without "node" (or with an empty one) is skipped with a warning: SLS
// itself would make a host literally named "null" of it
// (SLSUtils.parseNodesFromNodeFile joins the rack and the missing name),
// which no trace can name.
func ReadSLS(r io.Reader, file string) (*Map, error) {
	m := &Map{Format: FormatSLS, File: file}
	d := jsonstream.NewReader(r)
	for {
		more, err := d.More()
		if err != nil {
			return nil, slsErr(err, file, "")
		}
		if !more {
			return m, nil
		}
		rackLine := d.Line()
		var rack string
		var nodes []Node
		err = d.Object(func(key []byte) error {
			var err error
			switch string(key) {
			case "rack":
				rack, err = d.String()
			case "nodes":
				err = d.Array(func(i int) error {
					n := Node{Line: d.Line()}
					named := false
					err := d.Object(func(key []byte) error {
						var err error
						switch string(key) {
						case "node":
							n.Host, err = d.String()
							named = true
						case "memory-mb":
							n.MemoryMB, err = positive(d)
						case "vcores":
							n.VCores, err = positive(d)
						default:
							err = d.Skip()
						}
						if err != nil {
							return slsErr(err, file, fmt.Sprintf("nodes[%d].%s", i, key))
						}
						return nil
					})
					if err != nil {
						return err
					}
					if !named || strings.TrimSpace(n.Host) == "" {
						m.warnf(n.Line, "nodes[%d] has no \"node\" name; skipped (SLS would name it \"null\")", i)
						return nil
					}
					nodes = append(nodes, n)
					return nil
				})
			default:
				err = d.Skip()
			}
			if err != nil {
				return slsErr(err, file, string(key))
			}
			return nil
		})
		if err != nil {
			return nil, slsErr(err, file, "")
		}
		if strings.TrimSpace(rack) == "" {
			return nil, &ParseError{File: file, Line: rackLine, Field: "rack", Err: errors.New("missing or empty: every entry names its rack")}
		}
		for _, n := range nodes {
			n.Rack = rackName(rack)
			m.add(n)
		}
	}
}

func positive(d *jsonstream.Reader) (int64, error) {
	v, err := d.Int()
	if err == nil && v <= 0 {
		err = d.Errorf("%d; want a positive whole number", v)
	}
	return v, err
}

func slsErr(err error, file, field string) error {
	var pe *ParseError
	if errors.As(err, &pe) {
		return err
	}
	var se *jsonstream.SyntaxError
	if errors.As(err, &se) {
		return &ParseError{File: file, Line: se.Line, Field: field, Err: errors.New(se.Msg)}
	}
	return &ParseError{File: file, Field: field, Err: err}
}
