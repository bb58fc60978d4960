package report

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mrsched/mrsched/internal/testfile"
)

// chromium finds a Chromium or Chrome binary. The test that needs it
// skips without one, unless MRSCHED_REQUIRE_CHROMIUM=1 (CI sets it where
// it installed Chromium), when it fails.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome", "headless_shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("MRSCHED_REQUIRE_CHROMIUM") == "1" {
		t.Fatal("no Chromium found on PATH and MRSCHED_REQUIRE_CHROMIUM=1")
	}
	t.Skip("no Chromium on PATH (apt-get install chromium)")
	return ""
}

// recorder is an HTTP proxy that answers nothing and records every request
// made through it: plain requests by URL, HTTPS by CONNECT host.
type recorder struct {
	mu    sync.Mutex
	hosts []string
}

func (rc *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	host := r.Host
	if r.URL.Host != "" {
		host = r.URL.Host
	}
	rc.mu.Lock()
	rc.hosts = append(rc.hosts, host)
	rc.mu.Unlock()
	http.Error(w, "offline", http.StatusBadGateway)
}

// pageHosts are the hosts requested but for Chromium's own services
// (clock, component updates, sign-in), which it asks for whatever page it
// shows and some of which no flag turns off.
func (rc *recorder) pageHosts() []string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []string
	for _, h := range rc.hosts {
		name, _, err := net.SplitHostPort(h)
		if err != nil {
			name = h
		}
		own := false
		for _, d := range []string{"google.com", "googleapis.com", "gstatic.com", "gvt1.com", "googleusercontent.com"} {
			own = own || name == d || strings.HasSuffix(name, "."+d)
		}
		if !own {
			out = append(out, h)
		}
	}
	return out
}

// screenshot renders the page at path in headless Chromium, every request
// sent through a recording proxy, and returns the screenshot and the
// hosts the page asked for.
func screenshot(t *testing.T, bin, path string) (image.Image, []string) {
	t.Helper()
	rc := &recorder{}
	proxy := httptest.NewServer(rc)
	defer proxy.Close()
	dir := t.TempDir()
	shot := filepath.Join(dir, "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
		"--user-data-dir="+filepath.Join(dir, "profile"),
		"--proxy-server="+proxy.URL, "--proxy-bypass-list=<-loopback>",
		"--screenshot="+shot, "--window-size=1280,1800", "file://"+path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("chromium wrote no screenshot: %v\n%s", err, stderr.String())
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	return img, rc.pageHosts()
}

// variety is the number of distinct colours (4 bits a channel) and the
// fraction of pixels that are not near white.
func variety(img image.Image) (colours int, inked float64) {
	seen := map[uint16]bool{}
	b := img.Bounds()
	n, ink := 0, 0
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[uint16(r>>12)<<8|uint16(g>>12)<<4|uint16(bl>>12)] = true
			n++
			if r < 0xe000 || g < 0xe000 || bl < 0xe000 {
				ink++
			}
		}
	}
	return len(seen), float64(ink) / float64(n)
}

// TestReportInBrowser renders a report of two runs in headless Chromium:
// the screenshot must show a page (many colours, a good part of it
// inked), and the page must ask the network for nothing. A control page
// with one external image checks that the proxy would have seen a request.
func TestReportInBrowser(t *testing.T) {
	bin := chromium(t)
	runs := smallRuns(t)
	SetLabels(runs)
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	if err := (&Page{Title: "browser test", Runs: runs}).WriteFile(page); err != nil {
		t.Fatal(err)
	}
	img, hosts := screenshot(t, bin, page)
	if len(hosts) > 0 {
		t.Errorf("rendering the report asked the network for %v; a report must be self-contained", hosts)
	}
	colours, inked := variety(img)
	if colours < 16 || inked < 0.05 {
		t.Errorf("the screenshot has %d colours and %.1f%% inked pixels; a page of tables and figures has dozens and well over 5%%",
			colours, 100*inked)
	}
	if out := os.Getenv("MRSCHED_SCREENSHOT"); out != "" {
		f, err := os.Create(out)
		if err == nil {
			png.Encode(f, img)
			f.Close()
		}
	}

	control := filepath.Join(dir, "control.html")
	testfile.Write(t, control, `<!DOCTYPE html><html><body><p>control</p><img src="http://mrsched-control.invalid/x.png"></body></html>`)
	_, hosts = screenshot(t, bin, control)
	if !strings.Contains(strings.Join(hosts, " "), "mrsched-control.invalid") {
		t.Errorf("a page with an external image made the proxy see %v; the check above cannot see external loads", hosts)
	}
	blank := filepath.Join(dir, "blank.html")
	testfile.Write(t, blank, `<!DOCTYPE html><html><body></body></html>`)
	img, _ = screenshot(t, bin, blank)
	if c, ink := variety(img); c >= 16 || ink >= 0.05 {
		t.Errorf("a blank page shows %d colours and %.1f%% ink; the variety check cannot tell a blank page", c, 100*ink)
	}
}
