package report

import (
	"bytes"
	"testing"
)

func TestWriteTextAligns(t *testing.T) {
	tb := &Table{Title: "T", Headers: []string{"policy", "jobs"}, Notes: []string{"note"}}
	tb.AddRow("fifo", "5")
	tb.AddRow("fair", "12")
	var b bytes.Buffer
	if err := tb.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := "T\npolicy  jobs\n------  ----\nfifo       5\nfair      12\nnote\n"
	if b.String() != want {
		t.Errorf("text table:\n%s\nwant:\n%s\n(first column left-aligned, the others right-aligned under their headers)", b.String(), want)
	}
}

func TestWriteCSVQuotes(t *testing.T) {
	tb := &Table{Headers: []string{"a", "b"}}
	tb.AddRow("x,y", "1")
	var b bytes.Buffer
	if err := tb.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	if want := "a,b\n\"x,y\",1\n"; b.String() != want {
		t.Errorf("CSV = %q, want %q: a comma inside a cell must be quoted", b.String(), want)
	}
}
