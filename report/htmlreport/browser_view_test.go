package htmlreport_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/agentretrieval/agentretrieval/expectations"
	"github.com/agentretrieval/agentretrieval/report/htmlreport"
)

// browserFor starts Chromium for a test, or skips it where none is
// installed.
func browserFor(t *testing.T) context.Context {
	t.Helper()
	bin := findBrowser()
	if bin == "" {
		t.Skip("no Chromium found (looked for " + strings.Join(browserNames, ", ") + "): install one to run this test, on Debian or Ubuntu with apt-get install chromium")
	}
	return startBrowser(t, bin, t.TempDir())
}

// browserPage is a report open in a tab of the test's browser.
type browserPage struct {
	t    *testing.T
	ctx  context.Context
	log  *pageLog
	path string
}

// openPage writes a page to a file and opens it at the given viewport
// width, waiting for its script to draw the call lists.
func openPage(t *testing.T, browser context.Context, name string, width int64, write func(*bytes.Buffer) error) *browserPage {
	t.Helper()
	var b bytes.Buffer
	if err := write(&b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	pl := &pageLog{}
	tab, cancelTab := chromedp.NewContext(browser, chromedp.WithListener(pl.listen))
	t.Cleanup(cancelTab)
	ctx, cancel := context.WithTimeout(tab, 90*time.Second)
	t.Cleanup(cancel)
	p := &browserPage{t: t, ctx: ctx, log: pl, path: path}
	p.do(chromedp.EmulateViewport(width, 900), chromedp.Navigate("file://"+path))
	waitReady(t, ctx)
	return p
}

func (p *browserPage) do(actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, actions...); err != nil {
		p.t.Fatal(err)
	}
}

func evalIn[T any](p *browserPage, js string) T {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		p.t.Fatalf("%s: %v", js, err)
	}
	return v
}

// noProblems fails the test for any console error, exception, policy
// violation, dialog or request out of the file the page reported.
func (p *browserPage) noProblems() {
	p.t.Helper()
	time.Sleep(200 * time.Millisecond)
	for _, problem := range p.log.list() {
		p.t.Errorf("the page reported: %s", problem)
	}
}

// listed is what the call list of trace id shows: the steps of its
// entries, and the filter's status line.
type listed struct {
	Steps  []int  `json:"steps"`
	Status string `json:"status"`
	Hash   string `json:"hash"`
}

func (p *browserPage) listed(id string) listed {
	p.t.Helper()
	// A first search waits for the arguments and results to be read.
	if _, err := chromedp.Run(p.ctx, chromedp.Poll[bool](fmt.Sprintf(`!document.querySelector("#%s-filters .status").textContent.includes("reading")`, id), chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		p.t.Fatal(err)
	}
	return evalIn[listed](p, fmt.Sprintf(`({
		steps: Array.from(document.querySelectorAll("#%[1]s-list details.call")).map(d => Number(d.dataset.step)),
		status: document.querySelector("#%[1]s-filters .status").textContent,
		hash: decodeURIComponent(location.hash),
	})`, id))
}

// choose sets a control of the filter bar of trace id as a reader does,
// firing the input event a change fires.
func (p *browserPage) choose(id, name, value string) {
	p.t.Helper()
	evalIn[chromedp.Void](p, fmt.Sprintf(`(() => {
		const c = document.querySelector("#%s-filters").elements[%q];
		if (c.type === "checkbox") c.checked = %q === "on"; else c.value = %q;
		c.dispatchEvent(new Event("input", {bubbles: true}));
	})()`, id, name, value, value))
}

func (p *browserPage) optionTexts(id, name string) []string {
	return evalIn[[]string](p, fmt.Sprintf(`Array.from(document.querySelector("#%s-filters").elements[%q].options).map(o => o.textContent)`, id, name))
}

func viewOfSessionExpiry(t *testing.T) func(*bytes.Buffer) error {
	measured, err := htmlreport.Load([]string{"testdata/session-expiry.toolcalls.json"}, htmlreport.LoadOptions{GroundTruth: "testdata/session-expiry.groundtruth.json"})
	if err != nil {
		t.Fatal(err)
	}
	return func(b *bytes.Buffer) error { return htmlreport.WriteTraces(b, measured) }
}

func steps(from, to int) []int {
	var s []int
	for i := from; i <= to; i++ {
		s = append(s, i)
	}
	return s
}

func equalInts(a, b []int) bool {
	return fmt.Sprint(a) == fmt.Sprint(b)
}

// The session-expiry trace: 18 calls, 9 of them file-level (steps 1–6, 9,
// 11 and 16), one failed (15, a Bash call), 3 by a subagent (8–10).
func TestFilteringInBrowser(t *testing.T) {
	browser := browserFor(t)
	p := openPage(t, browser, "view.html", 1100, viewOfSessionExpiry(t))

	got := p.listed("t1")
	if !equalInts(got.Steps, steps(1, 18)) || got.Status != "Showing all 18 calls" {
		t.Fatalf("before filtering: %+v", got)
	}

	p.choose("t1", "class", "F")
	got = p.listed("t1")
	if want := []int{1, 2, 3, 4, 5, 6, 9, 11, 16}; !equalInts(got.Steps, want) {
		t.Errorf("class file-level lists steps %v, want %v", got.Steps, want)
	}
	if got.Status != "Showing 9 of 18 calls" || !strings.Contains(got.Hash, "class=F") {
		t.Errorf("class file-level: status %q, fragment %q", got.Status, got.Hash)
	}
	// Each choice counts the calls it would leave with the other filters
	// kept: the class counts stay those of the whole trace, the tools'
	// are of the file-level calls.
	if o := p.optionTexts("t1", "class"); o[1] != "semantic (3)" || o[2] != "file-level (9)" {
		t.Errorf("class choices read %q", o)
	}
	tools := strings.Join(p.optionTexts("t1", "tool"), "|")
	for _, want := range []string{"any (9)", "Read (5)", "Grep (2)", "Bash (0)", "Edit (0)"} {
		if !strings.Contains(tools, want) {
			t.Errorf("tool choices %q, want one reading %q", tools, want)
		}
	}
	if n := evalIn[string](p, `document.querySelector("#t1-filters [name=failed]").parentNode.querySelector(".n").textContent`); n != "(0)" {
		t.Errorf("with class file-level the failed box counts %s, want (0)", n)
	}
	if dim := evalIn[int](p, `document.querySelectorAll("#t1-tl rect.call.dim").length`); dim != 9 {
		t.Errorf("%d marks dimmed on the timeline, want the 9 calls the filter leaves out", dim)
	}

	p.choose("t1", "class", "")
	p.choose("t1", "failed", "on")
	if got = p.listed("t1"); !equalInts(got.Steps, []int{15}) || !strings.Contains(got.Hash, "failed=1") {
		t.Errorf("failed calls: %+v, want step 15", got)
	}
	p.choose("t1", "failed", "")
	p.choose("t1", "sub", "on")
	if got = p.listed("t1"); !equalInts(got.Steps, []int{8, 9, 10}) {
		t.Errorf("subagent calls: %v, want 8–10", got.Steps)
	}
	p.choose("t1", "sub", "")
	p.choose("t1", "pattern", "direct")
	if got = p.listed("t1"); !equalInts(got.Steps, []int{12, 13}) {
		t.Errorf("calls of the direct pattern: %v, want 12 and 13", got.Steps)
	}
	p.choose("t1", "pattern", "")
	p.choose("t1", "gt", "on")
	if got = p.listed("t1"); len(got.Steps) == 0 || len(got.Steps) == 18 {
		t.Errorf("ground-truth hits: %v", got.Steps)
	}

	// A link with the fragment shows the same view.
	p.do(chromedp.Navigate("file://" + p.path + "#t1?class=E&tool=Edit"))
	p.do(chromedp.Reload())
	waitReady(t, p.ctx)
	if got = p.listed("t1"); !equalInts(got.Steps, []int{13, 14, 17}) || got.Status != "Showing 3 of 18 calls" {
		t.Errorf("opened at #t1?class=E&tool=Edit: %+v, want steps 13, 14, 17", got)
	}
	if v := evalIn[string](p, `document.querySelector("#t1-filters").elements.class.value`); v != "E" {
		t.Errorf("the filter bar shows class %q, want E", v)
	}
	// A search with & and = in it comes back whole from the fragment.
	p.choose("t1", "q", "a&b=c")
	hash := evalIn[string](p, `location.hash`)
	p.do(chromedp.Reload())
	waitReady(t, p.ctx)
	if v := evalIn[string](p, `document.querySelector("#t1-filters").elements.q.value`); v != "a&b=c" {
		t.Errorf("reopened at %s, the search box reads %q, want a&b=c", hash, v)
	}
	p.noProblems()
}

func TestSearchFindsAStringInAResultInBrowser(t *testing.T) {
	browser := browserFor(t)
	p := openPage(t, browser, "view.html", 1100, viewOfSessionExpiry(t))
	// Typed, key by key, into the search box.
	p.do(chromedp.SendKeys(`#t1-filters input[name=q]`, "ErrSessionExpired ="))
	got := p.listed("t1")
	if len(got.Steps) == 0 || len(got.Steps) > 3 || !strings.Contains(got.Hash, "q=ErrSessionExpired") {
		t.Fatalf("searching a result's text: %+v", got)
	}
	// Each entry says where the text was found, the match marked.
	hits := evalIn[[]string](p, `Array.from(document.querySelectorAll("#t1-list .hit")).map(p => p.querySelector(".where").textContent + "|" + p.querySelector("mark").textContent + "|" + p.textContent)`)
	if len(hits) != len(got.Steps) {
		t.Errorf("%d entries say where the search found them, want %d", len(hits), len(got.Steps))
	}
	for _, h := range hits {
		if !strings.HasPrefix(h, "result: |ErrSessionExpired =|result: ") || !strings.Contains(h, "var ErrSessionExpired = errors.New") {
			t.Errorf("a search hit reads %q", h)
		}
	}
	// Opening the entry shows the whole result with the text.
	evalIn[chromedp.Void](p, `document.querySelector("#t1-list details.call").open = true`)
	result, err := chromedp.Run(p.ctx, chromedp.Poll[string](`document.querySelector("#t1-list details.call pre.result")?.textContent`, chromedp.WithPollingTimeout(5*time.Second)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(result, "ErrSessionExpired =") {
		t.Errorf("the result shown is %q", result)
	}
	p.do(chromedp.SendKeys(`#t1-filters input[name=q]`, "no such text anywhere"))
	if got = p.listed("t1"); len(got.Steps) != 0 || got.Status != "Showing 0 of 18 calls" {
		t.Errorf("a search that matches nothing: %+v", got)
	}
	p.noProblems()
}

// The timeline is one Tab stop: Tab goes from the skip link to the
// timeline, and from the timeline to the search box; arrow keys move
// between its calls and Enter opens one.
func TestTheTimelineIsOneTabStopInBrowser(t *testing.T) {
	browser := browserFor(t)
	p := openPage(t, browser, "view.html", 1100, viewOfSessionExpiry(t))
	var focused []string
	for range 3 {
		p.do(chromedp.KeyEvent("\t"))
		focused = append(focused, evalIn[string](p, `(() => { const a = document.activeElement; return a.id || a.className || a.name || a.tagName; })()`))
	}
	if want := []string{"skip", "t1-tl", "q"}; strings.Join(focused, " ") != strings.Join(want, " ") {
		t.Errorf("Tab goes to %q, want %q", focused, want)
	}
	if n := evalIn[int](p, `document.querySelectorAll("svg.timeline a, svg.timeline [tabindex]").length`); n != 0 {
		t.Errorf("%d focusable elements inside the timeline", n)
	}
	p.do(chromedp.Focus("#t1-tl"), chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight))
	now := func() (string, string) {
		return evalIn[string](p, `document.getElementById("t1-tl").getAttribute("aria-valuenow")`),
			evalIn[string](p, `document.getElementById("t1-tl-status").textContent`)
	}
	if v, status := now(); v != "3" || !strings.HasPrefix(status, "step 3 of 18, Glob, file-level") {
		t.Errorf("after two right arrows: at %s, %q", v, status)
	}
	p.do(chromedp.KeyEvent(kb.End))
	if v, status := now(); v != "18" || !strings.HasPrefix(status, "step 18 of 18, Bash") {
		t.Errorf("after End: at %s, %q", v, status)
	}
	// With a filter, the arrows move between the calls it shows.
	p.choose("t1", "class", "S")
	p.do(chromedp.Focus("#t1-tl"), chromedp.KeyEvent(kb.Home), chromedp.KeyEvent(kb.ArrowRight))
	if v, _ := now(); v != "10" {
		t.Errorf("with class semantic, Home then right arrow is at step %s, want 10 (the semantic calls are 8, 10, 12)", v)
	}
	p.do(chromedp.KeyEvent(kb.Enter))
	if at := evalIn[string](p, `(() => { const d = document.getElementById("t1-c10"); return (d && d.open) + " " + document.activeElement.tagName + " " + document.activeElement.parentNode.id; })()`); at != "true SUMMARY t1-c10" {
		t.Errorf("Enter on the timeline's cursor at step 10: the call is open, and the focus on: %s; want true SUMMARY t1-c10", at)
	}
	p.noProblems()
}

// Dragging across the timeline lists the calls of the range.
func TestDraggingAcrossTheTimelineSelectsARangeInBrowser(t *testing.T) {
	browser := browserFor(t)
	p := openPage(t, browser, "view.html", 1100, viewOfSessionExpiry(t))
	center := func(step int) []float64 {
		return evalIn[[]float64](p, fmt.Sprintf(`(() => { const r = document.querySelector('#t1-tl rect.call[data-step="%d"]').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()`, step))
	}
	from, to := center(2), center(5)
	p.do(
		chromedp.MouseEvent("mousePressed", from[0], from[1], chromedp.ButtonLeft, chromedp.ClickCount(1)),
		chromedp.MouseEvent("mouseMoved", (from[0]+to[0])/2, from[1], chromedp.ButtonLeft),
		chromedp.MouseEvent("mouseMoved", to[0], to[1], chromedp.ButtonLeft),
		chromedp.MouseEvent("mouseReleased", to[0], to[1], chromedp.ButtonLeft, chromedp.ClickCount(1)),
	)
	got := p.listed("t1")
	if !equalInts(got.Steps, steps(2, 5)) || got.Status != "Showing 4 of 18 calls" || !strings.Contains(got.Hash, "from=2") || !strings.Contains(got.Hash, "to=5") {
		t.Errorf("after dragging from step 2 to step 5: %+v", got)
	}
	if vis := evalIn[string](p, `document.querySelector("#t1-tl rect.window").getAttribute("visibility")`); vis != "visible" {
		t.Errorf("the range's window is %s", vis)
	}
	// The strip under the timeline draws the range's calls enlarged.
	zoomed := func() []int {
		return evalIn[[]int](p, `Array.from(document.querySelectorAll("#t1-zoom rect")).map(r => Number(r.dataset.step))`)
	}
	if z := zoomed(); !equalInts(z, steps(2, 5)) {
		t.Errorf("the enlarged strip draws steps %v, want 2–5", z)
	}
	// A drag that starts inside the window moves it.
	grab, drop := center(3), center(6)
	p.do(
		chromedp.MouseEvent("mousePressed", grab[0], grab[1], chromedp.ButtonLeft, chromedp.ClickCount(1)),
		chromedp.MouseEvent("mouseMoved", (grab[0]+drop[0])/2, drop[1], chromedp.ButtonLeft),
		chromedp.MouseEvent("mouseMoved", drop[0], drop[1], chromedp.ButtonLeft),
		chromedp.MouseEvent("mouseReleased", drop[0], drop[1], chromedp.ButtonLeft, chromedp.ClickCount(1)),
	)
	if got = p.listed("t1"); !equalInts(got.Steps, steps(5, 8)) || !equalInts(zoomed(), steps(5, 8)) {
		t.Errorf("after moving the window by three steps: list %v, strip %v, want 5–8", got.Steps, zoomed())
	}
	// A click on an enlarged call opens it.
	if err := clickMark(p.ctx, `#t1-zoom rect[data-step="7"]`); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(p.ctx, chromedp.Poll[bool](`document.getElementById("t1-c7")?.open === true`, chromedp.WithPollingTimeout(5*time.Second))); err != nil {
		t.Errorf("clicking step 7 in the enlarged strip did not open it: %v", err)
	}
	// From the keyboard, - widens the window around the cursor and +
	// narrows it.
	p.do(chromedp.Focus("#t1-tl"), chromedp.KeyEvent("-"))
	if got = p.listed("t1"); len(got.Steps) != 8 {
		t.Errorf("after -: %d calls in the range, want 8", len(got.Steps))
	}
	p.do(chromedp.KeyEvent("+"), chromedp.KeyEvent("+"))
	if got = p.listed("t1"); len(got.Steps) != 2 || !slices.Contains(got.Steps, 7) {
		t.Errorf("after + +: steps %v, want the 2 around step 7", got.Steps)
	}
	p.noProblems()
}

// At a phone's width (390 CSS pixels) no page is wider than the screen:
// tables scroll inside their box, the timeline shrinks.
func TestNothingOverflowsAPhoneInBrowser(t *testing.T) {
	browser := browserFor(t)
	results := checkResults(t, "testdata/session-expiry.yaml")
	summary, runDir := miniRun(t)
	pages := map[string]func(*bytes.Buffer) error{
		"view.html":  viewOfSessionExpiry(t),
		"check.html": func(b *bytes.Buffer) error { return htmlreport.WriteCheck(b, results) },
		"run.html": func(b *bytes.Buffer) error {
			return htmlreport.WriteRun(b, summary, htmlreport.RunOptions{Dir: runDir})
		},
	}
	for name, write := range pages {
		t.Run(name, func(t *testing.T) {
			p := openPage(t, browser, name, 390, write)
			if name == "view.html" {
				// With a range, whose calls a strip draws enlarged.
				p.do(chromedp.Navigate("file://"+p.path+"#t1?from=2&to=9"), chromedp.Reload())
				waitReady(t, p.ctx)
				if n := evalIn[int](p, `document.querySelectorAll("#t1-zoom rect").length`); n != 8 {
					t.Errorf("the enlarged strip has %d marks, want 8", n)
				}
			}
			// Everything open: every call, every folded table.
			evalIn[chromedp.Void](p, `document.querySelectorAll("details").forEach(d => d.open = true)`)
			wide := evalIn[[]string](p, `(() => {
				const out = [];
				if (document.documentElement.scrollWidth > innerWidth) out.push("the page is " + document.documentElement.scrollWidth + " px wide");
				document.querySelectorAll("body *").forEach(e => {
					const r = e.getBoundingClientRect();
					if (r.right > innerWidth + 0.5 && !e.closest(".scroll")) out.push(e.tagName + "." + e.className + " ends at " + r.right);
				});
				return out.slice(0, 10);
			})()`)
			for _, w := range wide {
				t.Errorf("at 390 px: %s", w)
			}
			p.noProblems()
		})
	}
}

// The page's script puts the text of hostile calls in the page as text:
// no element, attribute or script of theirs appears in the document.
func TestHostileCallsAreShownAsTextInBrowser(t *testing.T) {
	browser := browserFor(t)
	dir := writeHostileRun(t)
	measured, err := htmlreport.Load([]string{filepath.Join(dir, "hostile.toolcalls.json")}, htmlreport.LoadOptions{GroundTruth: filepath.Join(dir, "hostile.groundtruth.json")})
	if err != nil {
		t.Fatal(err)
	}
	p := openPage(t, browser, "hostile.html", 1100, func(b *bytes.Buffer) error { return htmlreport.WriteTraces(b, []*expectations.Run(measured)) })
	// A search puts the hostile text of the matches, around a mark, in the
	// list as well.
	p.choose("t1", "q", "<script>")
	p.listed("t1")
	if n := evalIn[int](p, `document.querySelectorAll("#t1-list .hit mark").length`); n == 0 {
		t.Error("searching <script> marks no hit")
	}
	evalIn[chromedp.Void](p, `document.querySelectorAll("details").forEach(d => d.open = true)`)
	if _, err := chromedp.Run(p.ctx, chromedp.Poll[bool](`Array.from(document.querySelectorAll("details.call")).every(d => d.querySelector(".call-body"))`, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("the opened calls were not filled: %v", err)
	}
	var allowed []string
	for e := range allowedElements {
		allowed = append(allowed, e)
	}
	bad := evalIn[[]string](p, `(() => {
		const allowed = new Set(`+fmt.Sprintf("%q", strings.Join(allowed, " "))+`.split(" "));
		const out = [];
		document.querySelectorAll("*").forEach(e => {
			if (!allowed.has(e.localName)) out.push("element " + e.localName);
			for (const a of e.attributes) if (a.name.startsWith("on") || a.name === "src" || a.name === "style") out.push("attribute " + a.name + " on " + e.localName);
		});
		if (document.scripts.length !== 3) out.push(document.scripts.length + " scripts");
		return out;
	})()`)
	for _, b := range bad {
		t.Errorf("in the document: %s", b)
	}
	text := evalIn[string](p, `document.body.innerText`)
	for _, want := range []string{hostile[0], hostile[1], hostile[5], `\u001b[2J`} {
		if !strings.Contains(text, want) {
			t.Errorf("the page does not show %q", want)
		}
	}
	p.noProblems()
}

var viewerShots = flag.String("viewer-screenshots", "", "write the screenshots of docs/viewer.md to this `DIR` (go test ./report/htmlreport -run TestViewerScreenshots -viewer-screenshots \"$PWD/docs\")")

// TestViewerScreenshots writes the pictures of docs/viewer.md: the trace
// view filtered with a call open, a range selected on the timeline, the
// check report on a phone, and a conversation between the calls. It runs only with -viewer-screenshots.
func TestViewerScreenshots(t *testing.T) {
	if *viewerShots == "" {
		t.Skip("writes docs/viewer.md's pictures with -viewer-screenshots DIR")
	}
	browser := browserFor(t)
	shot := func(p *browserPage, name string, width, height int64) {
		t.Helper()
		p.do(chromedp.EmulateViewport(width, height), chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
		png, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(*viewerShots, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", name)
	}
	p := openPage(t, browser, "view.html", 1100, viewOfSessionExpiry(t))
	p.do(chromedp.SendKeys(`#t1-filters input[name=q]`, "session"))
	p.choose("t1", "class", "F")
	evalIn[chromedp.Void](p, `document.getElementById("t1-c3").open = true`)
	p.do(chromedp.Sleep(300 * time.Millisecond))
	shot(p, "viewer.png", 1100, 1250)

	p = openPage(t, browser, "view.html", 1100, viewOfSessionExpiry(t))
	p.do(chromedp.Navigate("file://"+p.path+"#t1?from=7&to=14"), chromedp.Reload())
	waitReady(t, p.ctx)
	p.do(chromedp.Focus("#t1-tl"), chromedp.KeyEvent(kb.ArrowRight))
	shot(p, "viewer-range.png", 1100, 1100)

	results := checkResults(t, "testdata/session-expiry.yaml")
	p = openPage(t, browser, "check.html", 390, func(b *bytes.Buffer) error { return htmlreport.WriteCheck(b, results) })
	shot(p, "viewer-phone.png", 390, 844)

	p = openPage(t, browser, "view.html", 1100, viewWithConversation(t))
	p.do(chromedp.Click(`#t1-m2 summary`), chromedp.Sleep(200*time.Millisecond))
	p.do(chromedp.EmulateViewport(1100, 900), chromedp.Evaluate[chromedp.Void](`document.getElementById("t1-calls").scrollIntoView()`))
	png, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*viewerShots, "viewer-conversation.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A trace of 2,000 calls: density columns instead of marks, the list drawn
// 200 entries at a time, the prompt and the answer around the calls.
func TestALongTraceInBrowser(t *testing.T) {
	browser := browserFor(t)
	run := syntheticRun(t, 2000)
	run.Session.Prompt = "Rename Func7 everywhere"
	run.Session.Answer = "Renamed in 50 files."
	p := openPage(t, browser, "long.html", 1100, func(b *bytes.Buffer) error { return htmlreport.WriteTraces(b, []*expectations.Run{run}) })

	drawn := evalIn[[]int](p, `[document.querySelectorAll("#t1-tl rect.call").length, document.querySelectorAll("#t1-tl g.bucket").length]`)
	if drawn[0] != 0 || drawn[1] == 0 || drawn[1] > 420 {
		t.Errorf("the timeline of 2,000 calls has %d marks and %d columns, want columns only, at most 420", drawn[0], drawn[1])
	}
	entries := func() []string {
		return evalIn[[]string](p, `Array.from(document.querySelectorAll("#t1-list > li")).map(li => li.className + ":" + (li.querySelector("details") ? li.querySelector("details").dataset.step || li.querySelector("summary").textContent : li.textContent))`)
	}
	e := entries()
	if len(e) != 202 || !strings.HasPrefix(e[0], "msg prompt:User prompt Rename Func7") || e[1] != ":1" || e[200] != ":200" || !strings.HasPrefix(e[201], "more:Show 200 more (1800 not shown)") {
		t.Fatalf("the list of 2,000 calls starts %q … ends %q (%d entries)", e[:min(3, len(e))], e[max(0, len(e)-2):], len(e))
	}
	p.do(chromedp.Click(`#t1-list li.more button`))
	if e = entries(); len(e) != 402 || e[400] != ":400" {
		t.Errorf("after Show more: %d entries, the 400th %q", len(e), e[min(400, len(e)-1)])
	}
	for range 8 {
		evalIn[chromedp.Void](p, `document.querySelector("#t1-list li.more button").click()`)
	}
	if e = entries(); len(e) != 2002 || !strings.HasPrefix(e[2001], "msg answer:Final answer Renamed in 50 files.") {
		t.Errorf("every call shown: %d entries, the last %q", len(e), e[len(e)-1])
	}

	// The search runs over every call, drawn or not; the prompt and the
	// answer are not calls and leave a filtered list.
	p.choose("t1", "q", "Func1998\"")
	p.listed("t1")
	if e = entries(); strings.Join(e, "|") != ":1999" {
		t.Errorf("searching Func1998\" lists %q, want step 1999 alone", e)
	}

	// A click on a column opens a call it stands for.
	at := evalIn[[]float64](p, `(() => {
		const tl = document.getElementById("t1-tl"), svg = tl.querySelector("svg");
		const pt = svg.createSVGPoint();
		pt.x = Number(tl.dataset.x0) + 999.5 * Number(tl.dataset.pitch);
		pt.y = svg.querySelector("g.bucket rect").y.baseVal.value + 4;
		const s = pt.matrixTransform(svg.getScreenCTM());
		return [s.x, s.y];
	})()`)
	p.do(chromedp.MouseClickXY(at[0], at[1]))
	opened, err := chromedp.Run(p.ctx, chromedp.Poll[int](`(() => { const d = document.querySelector("#t1-list details.call[open]"); return d ? Number(d.dataset.step) : 0; })()`, chromedp.WithPollingTimeout(5*time.Second)))
	if err != nil || opened < 995 || opened > 1005 {
		t.Errorf("clicking the column of step 1000 opened step %d (err %v)", opened, err)
	}
	p.do(chromedp.Focus("#t1-tl"), chromedp.KeyEvent(kb.End))
	if v := evalIn[string](p, `document.getElementById("t1-tl").getAttribute("aria-valuenow")`); v != "2000" {
		t.Errorf("End on the timeline: at step %s, want 2000", v)
	}
	p.noProblems()
}

// On a check report the skip link leads to the failures, and a link to a
// folded scenario opens it.
func TestCheckReportLinksInBrowser(t *testing.T) {
	browser := browserFor(t)
	page := checkPage(t, passes, fails)
	p := openPage(t, browser, "check.html", 1100, func(b *bytes.Buffer) error { _, err := b.Write(page); return err })
	p.do(chromedp.KeyEvent("\t"))
	if skip := evalIn[string](p, `document.activeElement.className + " " + document.activeElement.getAttribute("href")`); skip != "skip #failures" {
		t.Errorf("the first Tab goes to %q, want the skip link to #failures", skip)
	}
	if open := evalIn[bool](p, `document.querySelector("#s1 > details").open`); open {
		t.Fatal("the passing scenario is not folded")
	}
	if err := clickMark(p.ctx, `#summary a[href="#s1"]`); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(p.ctx, chromedp.Poll[bool](`document.querySelector("#s1 > details").open`, chromedp.WithPollingTimeout(5*time.Second))); err != nil {
		t.Errorf("following the link to the folded scenario did not open it: %v", err)
	}
	p.noProblems()
}

// A browser without DecompressionStream says it cannot read the calls,
// and the rest of the page stands.
func TestABrowserThatCannotDecompressSaysSoInBrowser(t *testing.T) {
	browser := browserFor(t)
	var b bytes.Buffer
	if err := viewOfSessionExpiry(t)(&b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "view.html")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	tab, cancel := chromedp.NewContext(browser)
	defer cancel()
	ctx, cancelTime := context.WithTimeout(tab, time.Minute)
	defer cancelTime()
	err := chromedp.Do(ctx,
		chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: `delete window.DecompressionStream`})
			return err
		}),
		chromedp.Navigate("file://"+path),
	)
	if err != nil {
		t.Fatal(err)
	}
	waitReady(t, ctx)
	said, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("t1-list").textContent`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(said, "The calls could not be read: this browser cannot decompress them") {
		t.Errorf("the list says %q", said)
	}
	if marks, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#t1-tl rect.call").length`)); marks != 18 {
		t.Errorf("%d marks on the timeline, want 18", marks)
	}
}
