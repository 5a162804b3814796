package history

import (
	"context"
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
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// browserNames are the commands a Chromium-based browser is installed as
// (as in report/htmlreport's browser tests).
var browserNames = []string{"chromium", "chromium-browser", "chromium-headless-shell", "chrome-headless-shell", "headless_shell", "google-chrome", "google-chrome-stable"}

// trendPageView is what the page shows a reader, measured by the browser.
type trendPageView struct {
	Scripts int `json:"scripts"`
	// Dashed is the computed dash pattern of a threshold: the page's
	// style sheet applied only if its hash matches the policy.
	Dashed string `json:"dashed"`
	// Thresholds, Bands and Intervals are the width × height on screen
	// of each one drawn.
	Thresholds [][2]float64 `json:"thresholds"`
	Bands      [][2]float64 `json:"bands"`
	Intervals  [][2]float64 `json:"intervals"`
	// RecallLine is the screen y of recall@5's threshold at run 1 and run
	// 4, and RecallPoints the screen y of each point of the chart.
	RecallLine   [2]float64 `json:"recallLine"`
	RecallPoints []float64  `json:"recallPoints"`
	Failed       int        `json:"failed"`
}

const trendPageJS = `(() => {
	const size = e => { const r = e.getBoundingClientRect(); return [r.width, r.height]; };
	const svgs = Array.from(document.querySelectorAll("svg"));
	const recall = svgs[0];
	const path = recall.querySelector("path.thr");
	const len = path.getTotalLength();
	const ctm = recall.getScreenCTM();
	const screenY = p => p.matrixTransform(ctm).y;
	const pt = recall.createSVGPoint();
	const first = path.getPointAtLength(0), last = path.getPointAtLength(len);
	pt.x = first.x; pt.y = first.y; const y0 = screenY(pt);
	pt.x = last.x; pt.y = last.y; const y1 = screenY(pt);
	return {
		scripts: document.scripts.length,
		dashed: getComputedStyle(path).strokeDasharray,
		thresholds: Array.from(document.querySelectorAll("path.thr")).map(size),
		bands: Array.from(document.querySelectorAll("rect.thr-band")).map(size),
		intervals: Array.from(document.querySelectorAll("polygon.ci")).map(size),
		recallLine: [y0, y1],
		recallPoints: Array.from(recall.querySelectorAll("circle")).map(c => c.getBoundingClientRect().y + c.getBoundingClientRect().height / 2),
		failed: document.querySelectorAll("circle.failed").length,
	};
})()`

// TestTheTrendPageInBrowser opens the trend page from a file in headless
// Chromium: no script, the style sheet applied under the page's policy,
// the thresholds, bands and intervals drawn with a size on screen, a point
// under its threshold drawn below the line, and nothing reported broken
// (no policy violation, no request out of the file).
func TestTheTrendPageInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	var bin string
	for _, name := range browserNames {
		if p, err := exec.LookPath(name); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		t.Skip("no Chromium found (looked for " + strings.Join(browserNames, ", ") + "): install one to run this test, on Debian or Ubuntu with apt-get install chromium")
	}
	dir := t.TempDir()
	var b strings.Builder
	if err := thresholdTrend().WriteHTML(&b, nil); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "trend.html")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := startBrowser(t, bin, dir)
	var mu sync.Mutex
	var problems []string
	tab, cancelTab := chromedp.NewContext(ctx, chromedp.WithListener(func(ev any) {
		var p string
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			p = "exception: " + ev.ExceptionDetails.Text
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError {
				p = fmt.Sprintf("log %s: %s", ev.Entry.Source, ev.Entry.Text)
			}
		case *network.EventRequestWillBeSent:
			if u := ev.Request.URL; !strings.HasPrefix(u, "file://") && !strings.HasPrefix(u, "data:") {
				p = "request out of the file: " + u
			}
		}
		if p != "" {
			mu.Lock()
			problems = append(problems, p)
			mu.Unlock()
		}
	}))
	defer cancelTab()
	tctx, cancel := context.WithTimeout(tab, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(tctx, chromedp.EmulateViewport(1000, 1400), chromedp.Navigate("file://"+file)); err != nil {
		t.Fatalf("loading %s: %v", file, err)
	}
	v, err := chromedp.Run(tctx, chromedp.Evaluate[trendPageView](trendPageJS))
	if err != nil {
		t.Fatal(err)
	}
	if v.Scripts != 0 {
		t.Errorf("%d scripts on the page, want none", v.Scripts)
	}
	if v.Dashed == "" || v.Dashed == "none" {
		t.Errorf("a threshold is not dashed (%q): the page's style sheet did not apply", v.Dashed)
	}
	for what, sizes := range map[string][][2]float64{"threshold": v.Thresholds, "band": v.Bands, "interval": v.Intervals} {
		if len(sizes) == 0 {
			t.Errorf("no %s drawn", what)
		}
		for i, s := range sizes {
			if s[0] <= 0 || (what != "threshold" && s[1] <= 0) {
				t.Errorf("%s %d has no size on screen: %v", what, i+1, s)
			}
		}
	}
	// recall@5 measured 0.70 in run 1 over a threshold of 0.50 and 0.40 in
	// run 4 under one of 0.55: screen y grows downwards.
	if len(v.RecallPoints) != 4 {
		t.Fatalf("recall@5 has %d points, want 4", len(v.RecallPoints))
	}
	if !(v.RecallPoints[0] < v.RecallLine[0]) {
		t.Errorf("run 1's point (y %.1f) is not above its threshold (y %.1f)", v.RecallPoints[0], v.RecallLine[0])
	}
	if !(v.RecallPoints[3] > v.RecallLine[1]) {
		t.Errorf("run 4's point (y %.1f) is not below its threshold (y %.1f)", v.RecallPoints[3], v.RecallLine[1])
	}
	if v.RecallLine[1] >= v.RecallLine[0] {
		t.Errorf("the threshold did not step up from run 1 (y %.1f) to run 4 (y %.1f)", v.RecallLine[0], v.RecallLine[1])
	}
	if v.Failed != 4 {
		t.Errorf("%d points marked failed, want 4 (run 4 in three scenario charts, run 3 of the configuration)", v.Failed)
	}
	time.Sleep(200 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Errorf("the page reported: %s", p)
	}
}

// startBrowser starts headless Chromium with its profile in dir, kept off
// the network; the test is skipped where it cannot start.
func startBrowser(t testing.TB, bin, dir string) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND"),
		chromedp.ProxyServer("http://127.0.0.1:9"),
		chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("no-pings", true),
		chromedp.UserDataDir(filepath.Join(dir, "profile")),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	browserCtx, cancelBrowser := chromedp.NewContext(allocCtx)
	t.Cleanup(cancelBrowser)
	if err := chromedp.Do(browserCtx); err != nil {
		t.Skipf("%s does not start (%v): install a working Chromium (apt-get install chromium) to run this test", bin, err)
	}
	return browserCtx
}
