package htmlreport_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/agentretrieval/agentretrieval/report/htmlreport"
)

var screenshot = flag.String("screenshot", "", "also write a screenshot of the check report to this PNG `FILE` (the README's docs/report.png)")

// browserNames are the commands a Chromium-based browser is installed as,
// by Debian's chromium and chromium-headless-shell packages among others.
var browserNames = []string{"chromium", "chromium-browser", "chromium-headless-shell", "chrome-headless-shell", "headless_shell", "google-chrome", "google-chrome-stable"}

func findBrowser() string {
	for _, name := range browserNames {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// pageLog collects what a page reports that a reader would call broken:
// console errors, uncaught exceptions, error log entries (a blocked
// resource, a Content-Security-Policy violation), and any request that
// leaves the file.
type pageLog struct {
	mu       sync.Mutex
	problems []string
}

func (l *pageLog) listen(ev any) {
	var p string
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			var args []string
			for _, a := range ev.Args {
				args = append(args, string(a.Value))
			}
			p = fmt.Sprintf("console.%s(%s)", ev.Type, strings.Join(args, ", "))
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		p = fmt.Sprintf("exception at %d:%d: %s", d.LineNumber+1, d.ColumnNumber+1, d.Text)
		if d.Exception != nil {
			p += " " + d.Exception.Description
		}
	case *log.EventEntryAdded:
		if ev.Entry.Level == log.EntryLevelError {
			p = fmt.Sprintf("log %s: %s (%s)", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL)
		}
	case *page.EventJavascriptDialogOpening:
		p = "a dialog opened: " + ev.Message
	case *network.EventRequestWillBeSent:
		if u := ev.Request.URL; !strings.HasPrefix(u, "file://") && !strings.HasPrefix(u, "data:") {
			p = "request out of the file: " + u
		}
	}
	if p != "" {
		l.mu.Lock()
		l.problems = append(l.problems, p)
		l.mu.Unlock()
	}
}

func (l *pageLog) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.problems...)
}

// timelineCheck is what the page says of each of its timelines.
type timelineCheck struct {
	Want    int   `json:"want"`
	Marks   int   `json:"marks"`
	Steps   []int `json:"steps"`
	Visible int   `json:"visible"`
}

const timelinesJS = `Array.from(document.querySelectorAll("svg.timeline")).map(svg => {
	const marks = Array.from(svg.querySelectorAll("rect.call"));
	return {
		want: Number(svg.dataset.calls),
		marks: marks.length,
		steps: marks.map(m => Number(m.dataset.step)),
		visible: marks.filter(m => { const r = m.getBoundingClientRect(); return r.width > 0 && r.height > 0; }).length,
	};
})`

// TestReportsInBrowser loads each kind of report from file:// in headless
// Chromium and checks what a reader sees: one mark per call on every
// timeline, each drawn; the report's own style sheet and script applied
// (a badge has its colour; a timeline link opens its call); and no console
// error, exception, policy violation or request out of the file.
func TestReportsInBrowser(t *testing.T) {
	bin := findBrowser()
	if bin == "" {
		t.Skip("no Chromium found (looked for " + strings.Join(browserNames, ", ") + "): install one to run this test, on Debian or Ubuntu with apt-get install chromium")
	}
	dir := t.TempDir()
	measured, err := htmlreport.Load([]string{"testdata/session-expiry.toolcalls.json"}, htmlreport.LoadOptions{GroundTruth: "testdata/session-expiry.groundtruth.json"})
	if err != nil {
		t.Fatal(err)
	}
	results := checkResults(t, "testdata/session-expiry.yaml")
	summary, runDir := miniRun(t)
	pages := []struct {
		name, file string
		calls      []int // the calls of each timeline, in page order
		open       string
		write      func(*bytes.Buffer) error
	}{
		{"check report", "check.html", []int{len(results[0].Runs[0].Session.Calls)}, "s1-r1-c12",
			func(b *bytes.Buffer) error { return htmlreport.WriteCheck(b, results) }},
		{"trace view", "view.html", []int{len(measured[0].Session.Calls)}, "t1-c3",
			func(b *bytes.Buffer) error { return htmlreport.WriteTraces(b, measured) }},
		{"run report", "run.html", nil, "",
			func(b *bytes.Buffer) error {
				return htmlreport.WriteRun(b, summary, htmlreport.RunOptions{Dir: runDir})
			}},
	}

	browserCtx := startBrowser(t, bin, dir)

	for _, p := range pages {
		t.Run(p.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := p.write(&b); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, p.file)
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			var pl pageLog
			tab, cancelTab := chromedp.NewContext(browserCtx, chromedp.WithListener(pl.listen))
			defer cancelTab()
			ctx, cancel := context.WithTimeout(tab, 60*time.Second)
			defer cancel()
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(1100, 1400), chromedp.Navigate("file://"+path)); err != nil {
				t.Fatalf("loading %s: %v", path, err)
			}
			waitReady(t, ctx)

			timelines, err := chromedp.Run(ctx, chromedp.Evaluate[[]timelineCheck](timelinesJS))
			if err != nil {
				t.Fatal(err)
			}
			if len(timelines) != len(p.calls) {
				t.Fatalf("%d timelines on the page, want %d", len(timelines), len(p.calls))
			}
			for i, tl := range timelines {
				if tl.Marks != p.calls[i] || tl.Want != p.calls[i] {
					t.Errorf("timeline %d: %d marks (data-calls %d), want one per call: %d", i+1, tl.Marks, tl.Want, p.calls[i])
				}
				for j, s := range tl.Steps {
					if s != j+1 {
						t.Errorf("timeline %d: mark %d is step %d, want %d", i+1, j+1, s, j+1)
						break
					}
				}
				if tl.Visible != tl.Marks {
					t.Errorf("timeline %d: %d of %d marks have a size on screen", i+1, tl.Visible, tl.Marks)
				}
			}

			// The style sheet applies only if its hash matches the page's
			// Content-Security-Policy.
			styled, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`getComputedStyle(document.body).maxWidth === "1100px"`))
			if err != nil || !styled {
				t.Errorf("the report's style sheet did not apply (err %v)", err)
			}
			if p.open != "" {
				// Clicking a mark opens its call: the script runs.
				step := p.open[strings.LastIndex(p.open, "-c")+2:]
				if err := clickMark(ctx, "svg.timeline rect.call[data-step=\""+step+"\"]"); err != nil {
					t.Fatal(err)
				}
				opened, err := chromedp.Run(ctx, chromedp.Poll[bool](`(() => { const d = document.getElementById("`+p.open+`"); return !!d && d.open && d.querySelector(".call-body") !== null; })()`, chromedp.WithPollingTimeout(5*time.Second)))
				if err != nil || !opened {
					t.Errorf("clicking the mark of %s did not open the call (err %v)", p.open, err)
				}
			}

			png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
			if err != nil {
				t.Fatal(err)
			}
			shot := filepath.Join(dir, strings.TrimSuffix(p.file, ".html")+".png")
			if err := os.WriteFile(shot, png, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("screenshot: %s", shot)
			if *screenshot != "" && p.name == "check report" {
				// The README's picture: the top of the page, verdict,
				// failures, summary, expectations and timeline, at a width
				// a README shows.
				err := chromedp.Do(ctx,
					chromedp.EmulateViewport(1100, 2700),
					chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`),
				)
				if err != nil {
					t.Fatal(err)
				}
				png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(*screenshot, png, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("wrote %s", *screenshot)
			}

			// Give late events (an error logged after load) a moment.
			time.Sleep(200 * time.Millisecond)
			for _, problem := range pl.list() {
				t.Errorf("the page reported: %s", problem)
			}
		})
	}
}

// waitReady waits for the page's script to have drawn every call list.
func waitReady(t *testing.T, ctx context.Context) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.documentElement.dataset.ready === "1"`, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("the page's script did not finish drawing: %v", err)
	}
}

// clickMark clicks the middle of the element sel (of its first line, for
// text that wraps) with the mouse, as a reader does.
func clickMark(ctx context.Context, sel string) error {
	at, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`(() => { const e = document.querySelector(`+"`"+sel+"`"+`); e.scrollIntoView({block: "center"}); const r = e.getClientRects()[0]; return [r.x + r.width / 2, r.y + r.height / 2]; })()`))
	if err != nil {
		return fmt.Errorf("finding %s: %w", sel, err)
	}
	return chromedp.Do(ctx, chromedp.MouseClickXY(at[0], at[1]))
}

// startBrowser starts headless Chromium for the test, with its profile in
// dir, kept off the network; the test is skipped where it cannot start.
func startBrowser(t testing.TB, bin, dir string) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		// The pages are files and need no network; the browser's own
		// lookups and connections (updates, metrics, safe browsing,
		// reachability checks) are kept off the network: no name
		// resolves, and any connection goes to a loopback port where
		// nothing listens.
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND"),
		chromedp.ProxyServer("http://127.0.0.1:9"),
		chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("disable-client-side-phishing-detection", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("no-pings", true),
		chromedp.Flag("webrtc-ip-handling-policy", "disable_non_proxied_udp"),
		chromedp.Flag("disable-features", "MediaRouter,OptimizationHints,Translate,NetworkTimeServiceQuerying"),
		chromedp.UserDataDir(filepath.Join(dir, "profile")),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	browserCtx, cancelBrowser := chromedp.NewContext(allocCtx)
	t.Cleanup(cancelBrowser)
	// The first Run starts the browser; it lives as long as browserCtx.
	if err := chromedp.Do(browserCtx); err != nil {
		// A browser that cannot start here (a snap wrapper without snapd, a
		// missing library) is the machine's problem, not the report's.
		t.Skipf("%s does not start (%v): install a working Chromium (apt-get install chromium) to run this test", bin, err)
	}

	return browserCtx
}
