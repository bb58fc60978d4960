// Package gzfile opens an input file for reading as its content,
// decompressing it on the way when it is gzip-compressed. Rumen's
// TraceBuilder compresses what it writes when the name it is given ends
// in .gz, and operators keep large traces and topologies so; telling the
// compression by the file's first bytes, not its name, reads a renamed
// file too.
package gzfile

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
)

// gzipMagic starts every gzip member (RFC 1952, section 2.3.1).
var gzipMagic = []byte{0x1f, 0x8b}

// File is an open input: its content, decompressed, and the file under it.
type File struct {
	*bufio.Reader
	f  *os.File
	gz *gzip.Reader
}

// Close closes the file.
func (f *File) Close() error {
	if f.gz != nil {
		f.gz.Close()
	}
	return f.f.Close()
}

// Compressed reports whether the file is gzip-compressed.
func (f *File) Compressed() bool { return f.gz != nil }

// Open opens path for reading. A gzip-compressed file reads as its
// content, every member in turn, as gunzip writes it; an error in the
// compressed stream is an error of the read that meets it, naming the
// file.
func Open(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(f, 64<<10)
	head, _ := br.Peek(len(gzipMagic))
	if string(head) != string(gzipMagic) {
		return &File{Reader: br, f: f}, nil
	}
	gz, err := gzip.NewReader(br)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: gzip: %w", path, err)
	}
	return &File{Reader: bufio.NewReaderSize(&named{gz, path}, 64<<10), f: f, gz: gz}, nil
}

// named puts the file's name in errors of the compressed stream, which
// a parser would otherwise report without saying it was the compression.
type named struct {
	r    io.Reader
	path string
}

func (n *named) Read(p []byte) (int, error) {
	k, err := n.r.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("%s: gzip: %w", n.path, err)
	}
	return k, err
}
