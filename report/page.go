package report

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"codeberg.org/go-fonts/liberation/liberationsansregular"

	"github.com/mrsched/mrsched/metrics"
)

// Page is a report: runs set side by side, each run's figures over time,
// and experiments' tables and figures. It renders as one self-contained
// HTML file: figures are inline SVG and nothing is fetched from anywhere.
type Page struct {
	Title string
	// Note is a line under the title (what made the page).
	Note        string
	Runs        []*Run
	Experiments []Experiment
}

// Experiment is an experiment's result on a page.
type Experiment struct {
	Name string
	// Table is the table for people (with the paper's numbers); CSV the
	// same rows as plain numbers. Either may be nil; CSV feeds Figure.
	Table, CSV *Table
	// Figure, when set, draws the CSV rows.
	Figure *TableFigure
}

// FigureName is the file name an experiment's figure is written under
// ("fair-delay/bm" -> "fair-delay-bm").
func FigureName(experiment string) string { return slug(experiment) }

// Figures returns every figure of the page in page order: the
// comparison figures, each run's, each experiment's.
func (p *Page) Figures() ([]*Figure, error) {
	sections, err := p.sections()
	if err != nil {
		return nil, err
	}
	var out []*Figure
	for _, s := range sections {
		out = append(out, s.figs...)
	}
	return out, nil
}

type section struct {
	id, title string
	tables    []*Table
	figs      []*Figure
	missing   []string
	scenario  []byte
	paper     string
}

func (p *Page) sections() ([]section, error) {
	var out []section
	ids := map[string]bool{}
	unique := func(s string) string {
		id := s
		for i := 2; ids[id]; i++ {
			id = fmt.Sprintf("%s-%d", s, i)
		}
		ids[id] = true
		return id
	}
	if len(p.Runs) > 0 {
		s := section{id: unique("comparison"), title: "Runs compared", tables: []*Table{ComparisonTable(p.Runs)}}
		if t := runsTimeTable(p.Runs); t != nil {
			s.tables = append(s.tables, t)
		}
		if m := PolicyMeans(p.Runs); m != nil {
			s.tables = append(s.tables, m)
		}
		s.figs = ComparisonFigures(p.Runs)
		out = append(out, s)
	}
	for _, r := range p.Runs {
		id := unique("run-" + slug(r.Label))
		figs, missing := RunFigures(r, id)
		title := "Run " + r.Label
		if r.Dir != "" {
			title += " (" + r.Dir + ")"
		}
		out = append(out, section{id: id, title: title, figs: figs, missing: missing, scenario: r.Scenario})
	}
	for _, e := range p.Experiments {
		s := section{id: unique("experiment-" + slug(e.Name)), title: "Experiment " + e.Name}
		if e.Table != nil {
			s.tables = append(s.tables, e.Table)
		} else if e.CSV != nil {
			s.tables = append(s.tables, e.CSV)
		}
		if e.Figure != nil && e.CSV != nil {
			f, err := e.Figure.Figure(FigureName(e.Name), e.CSV)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", e.Name, err)
			}
			s.figs = append(s.figs, f)
			s.paper = e.Figure.Paper
		}
		out = append(out, s)
	}
	return out, nil
}

// Render writes the page as HTML.
func (p *Page) Render(w io.Writer) error {
	sections, err := p.sections()
	if err != nil {
		return err
	}
	type fig struct {
		ID, Title, Caption string
		SVG                template.HTML
	}
	type tbl struct {
		Title   string
		Headers []string
		Rows    [][]string
		Notes   []string
	}
	type sec struct {
		ID, Title, Paper string
		Tables           []tbl
		Figures          []fig
		Missing          []string
		Scenario         string
		Open             bool
	}
	data := struct {
		Title, Note string
		Font        template.CSS
		Sections    []sec
		Definitions [][2]string
	}{Title: p.Title, Note: p.Note, Font: fontFace()}
	for i, s := range sections {
		sc := sec{ID: s.id, Title: s.title, Paper: s.paper, Missing: s.missing, Scenario: string(s.scenario), Open: i < 2}
		for _, t := range s.tables {
			sc.Tables = append(sc.Tables, tbl{t.Title, t.Headers, t.Rows, t.Notes})
		}
		for _, f := range s.figs {
			svg, err := f.SVG()
			if err != nil {
				return err
			}
			// The SVG is our own drawing, not input: it is trusted markup.
			sc.Figures = append(sc.Figures, fig{ID: f.Name, Title: f.Title, Caption: f.Caption, SVG: template.HTML(inlineSVG(svg))})
		}
		data.Sections = append(data.Sections, sc)
	}
	if len(p.Runs) > 0 {
		defs := metrics.Definitions()
		keys := make([]string, 0, len(defs))
		for k := range defs {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			data.Definitions = append(data.Definitions, [2]string{k, defs[k]})
		}
	}
	return pageTemplate.Execute(w, data)
}

// WriteFile renders the page to path.
func (p *Page) WriteFile(path string) error {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	// Rendered whole before the file is made, so that a page that cannot
	// be drawn leaves no empty file behind.
	var b bytes.Buffer
	if err := p.Render(&b); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// WriteFigures writes every figure of the page to dir as NAME.svg, and as
// NAME.png too when png is set; it returns the paths written.
func (p *Page) WriteFigures(dir string, png bool) ([]string, error) {
	figs, err := p.Figures()
	if err != nil {
		return nil, err
	}
	return WriteFigures(dir, figs, png)
}

// WriteFigures writes figures to dir as NAME.svg (and NAME.png).
func WriteFigures(dir string, figs []*Figure, png bool) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	// write renders f in one format and writes it as NAME.ext.
	write := func(f *Figure, ext string, render func() ([]byte, error)) error {
		b, err := render()
		if err != nil {
			return err
		}
		path := filepath.Join(dir, f.Name+ext)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return err
		}
		paths = append(paths, path)
		return nil
	}
	for _, f := range figs {
		if err := write(f, ".svg", f.SVG); err != nil {
			return paths, err
		}
		if png {
			if err := write(f, ".png", f.PNG); err != nil {
				return paths, err
			}
		}
	}
	return paths, nil
}

// fontFace embeds the figures' font in the page, so that their text has
// the widths it was laid out with on any machine, offline.
var fontFace = sync.OnceValue(func() template.CSS {
	return template.CSS("@font-face { font-family: 'Liberation Sans'; src: url(data:font/ttf;base64," +
		base64.StdEncoding.EncodeToString(liberationsansregular.TTF) + ") format('truetype'); }")
})

// The page's style: a readable column, tables with aligned numbers, and
// nothing that loads from elsewhere (the security policy forbids it).
var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
{{.Font}}
body { font-family: system-ui, sans-serif; color: #222; max-width: 72rem; margin: 1.5rem auto; padding: 0 1rem; line-height: 1.4; }
h1 { font-size: 1.6rem; margin-bottom: 0.2rem; }
h2 { font-size: 1.25rem; border-bottom: 1px solid #ccc; padding-bottom: 0.2rem; margin-top: 2rem; }
h3 { font-size: 1.05rem; margin: 1.2rem 0 0.3rem; }
p.note { color: #555; margin-top: 0; }
nav ul { columns: 3; padding-left: 1.2rem; }
table { border-collapse: collapse; font-size: 0.85rem; margin: 0.6rem 0; }
caption { text-align: left; font-weight: 600; padding: 0.3rem 0; }
th, td { border-bottom: 1px solid #ddd; padding: 0.2rem 0.5rem; }
th { background: #f3f3f3; text-align: right; }
td { text-align: right; font-variant-numeric: tabular-nums; }
th:first-child, td:first-child { text-align: left; }
.notes { font-size: 0.8rem; color: #555; }
figure { margin: 1rem 0 1.6rem; }
figure svg { width: 100%; max-width: 56rem; height: auto; display: block; }
figcaption { font-size: 0.85rem; color: #444; max-width: 60rem; }
.paper { background: #f7f5ee; border-left: 3px solid #c9b26b; padding: 0.4rem 0.8rem; font-size: 0.9rem; }
.missing { color: #8a4b00; font-size: 0.85rem; }
details { margin: 0.5rem 0; }
summary { cursor: pointer; }
pre { background: #f6f6f6; padding: 0.6rem; overflow-x: auto; font-size: 0.8rem; }
dl { font-size: 0.85rem; } dt { font-family: monospace; margin-top: 0.4rem; } dd { margin-left: 1.5rem; color: #444; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{with .Note}}<p class="note">{{.}}</p>{{end}}
<nav><ul>
{{range .Sections}}<li><a href="#{{.ID}}">{{.Title}}</a></li>
{{end}}{{if .Definitions}}<li><a href="#definitions">Metric definitions</a></li>{{end}}
</ul></nav>
{{range .Sections}}<section id="{{.ID}}">
<details{{if .Open}} open{{end}}>
<summary><h2 style="display:inline">{{.Title}}</h2></summary>
{{range .Tables}}<table>
{{with .Title}}<caption>{{.}}</caption>{{end}}
<thead><tr>{{range .Headers}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
{{with .Notes}}<div class="notes">{{range .}}{{.}}<br>
{{end}}</div>{{end}}
{{end}}{{with .Paper}}<p class="paper"><strong>The paper's figure:</strong> {{.}}</p>
{{end}}{{range .Figures}}<figure id="{{.ID}}">
<h3>{{.Title}}</h3>
{{.SVG}}
<figcaption>{{.Caption}}</figcaption>
</figure>
{{end}}{{range .Missing}}<p class="missing">Not drawn: the run has no {{.}}.</p>
{{end}}{{with .Scenario}}<details><summary>Scenario</summary><pre>{{.}}</pre></details>
{{end}}</details>
</section>
{{end}}{{with .Definitions}}<section id="definitions">
<h2>Metric definitions</h2>
<p class="notes">As every summary.json states them (docs/metrics.md has the full page).</p>
<dl>
{{range .}}<dt>{{index . 0}}</dt><dd>{{index . 1}}</dd>
{{end}}</dl>
</section>
{{end}}</body>
</html>
`))
