package htmlreport_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agentretrieval/agentretrieval/expectations"
	"github.com/agentretrieval/agentretrieval/report/htmlreport"
	"github.com/agentretrieval/agentretrieval/trace"
)

// viewWithConversation is the session-expiry view with a conversation:
// the prompt before step 1, reasoning and a note between steps 2 and 3, a
// subagent's message between steps 8 and 9, and an answer after step 18.
func viewWithConversation(t *testing.T) func(*bytes.Buffer) error {
	measured, err := htmlreport.Load([]string{"testdata/session-expiry.toolcalls.json"}, htmlreport.LoadOptions{GroundTruth: "testdata/session-expiry.groundtruth.json"})
	if err != nil {
		t.Fatal(err)
	}
	s := measured[0].Session
	s.Messages = []trace.Message{
		{Role: trace.RoleUser, Kind: trace.KindText, Text: "Sessions expire too early. Find out why.", Before: 0},
		{Role: trace.RoleAssistant, Kind: trace.KindReasoning, Text: "The middleware reads the expiry;\nthe tortoise of a clock is in session.go.", Before: 2, Cut: 1200},
		{Role: trace.RoleAssistant, Kind: trace.KindText, Text: "Let me look at the session store.", Before: 2},
		{Role: trace.RoleUser, Kind: trace.KindText, Text: "Look for the callers of Expire.", Before: 8, Subagent: true},
		{Role: trace.RoleAssistant, Kind: trace.KindText, Text: "The expiry is compared with <= instead of <.", Before: 18},
	}
	return func(b *bytes.Buffer) error { return htmlreport.WriteTraces(b, measured) }
}

// items is what the list of trace id shows, in order: "c N" for the call
// of step N, "m WHO: first line" for a message.
func (p *browserPage) items(id string) []string {
	p.t.Helper()
	p.listed(id)
	return evalIn[[]string](p, fmt.Sprintf(`Array.from(document.querySelectorAll("#%s-list > li")).map(li => {
		const d = li.querySelector("details.call");
		if (d) return "c " + d.dataset.step;
		if (li.classList.contains("msg")) return "m " + li.querySelector("summary strong").textContent + ":" + li.querySelector("summary .gist").textContent;
		return li.className + " " + li.textContent;
	})`, id))
}

func TestMessagesSitBetweenTheirCallsInBrowser(t *testing.T) {
	browser := browserFor(t)
	p := openPage(t, browser, "view.html", 1100, viewWithConversation(t))

	got := p.items("t1")
	want := []string{
		"m User: Sessions expire too early. Find out why.",
		"c 1", "c 2",
		"m Reasoning: The middleware reads the expiry;",
		"m Assistant: Let me look at the session store.",
		"c 3", "c 4", "c 5", "c 6", "c 7", "c 8",
		"m User: Look for the callers of Expire.",
		"c 9", "c 10", "c 11", "c 12", "c 13", "c 14", "c 15", "c 16", "c 17", "c 18",
		"m Assistant: The expiry is compared with <= instead of <.",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the list reads\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if st := p.listed("t1").Status; st != "Showing all 18 calls and all 5 of 5 messages" {
		t.Errorf("status %q", st)
	}

	// Folded, a message is one line; opened, it shows the whole text and
	// what the trace left out of it.
	folded := evalIn[[]float64](p, `(() => { const li = document.getElementById("t1-m2"); const s = li.querySelector("summary"); return [li.querySelector("details").open ? 1 : 0, s.getBoundingClientRect().height, parseFloat(getComputedStyle(s).lineHeight) || 20, li.querySelector("pre.msg-text").checkVisibility() ? 1 : 0]; })()`)
	if folded[0] != 0 || folded[1] > 2*folded[2] || folded[3] != 0 {
		t.Errorf("a message before it is opened: open %v, summary %vpx high (line %vpx), text visible %v", folded[0], folded[1], folded[2], folded[3])
	}
	p.do(chromedp.Click(`#t1-m2 summary`))
	opened := evalIn[[]string](p, `(() => { const li = document.getElementById("t1-m2"); const pre = li.querySelector("pre.msg-text"); return [String(li.querySelector("details").open), String(pre.checkVisibility()), pre.textContent, li.querySelector(".cut").textContent]; })()`)
	if opened[0] != "true" || opened[1] != "true" || opened[2] != "The middleware reads the expiry;\nthe tortoise of a clock is in session.go." ||
		opened[3] != "… 1200 more bytes not kept (a trace keeps a message's first 4096 bytes)" {
		t.Errorf("the opened message: %q", opened)
	}

	// The search finds a word of a message's second line, marked; no call
	// has it.
	p.do(chromedp.SendKeys(`#t1-filters input[name=q]`, "tortoise"))
	if got := p.items("t1"); strings.Join(got, "|") != "m Reasoning: The middleware reads the expiry;" {
		t.Errorf("searching a message's text lists %q", got)
	}
	l := p.listed("t1")
	if l.Status != "Showing 0 of 18 calls and 1 of 5 messages" || !strings.Contains(l.Hash, "q=tortoise") {
		t.Errorf("searching a message's text: %+v", l)
	}
	if hit := evalIn[string](p, `document.querySelector("#t1-m2 .hit").textContent + "|" + document.querySelector("#t1-m2 .hit mark").textContent`); hit != "text: the tortoise of a clock is in session.go.|tortoise" {
		t.Errorf("the hit reads %q", hit)
	}

	// A filter about calls lists calls alone; the subagent box keeps the
	// subagent's message.
	p.choose("t1", "q", "")
	p.choose("t1", "class", "F")
	for _, it := range p.items("t1") {
		if strings.HasPrefix(it, "m ") {
			t.Errorf("with class file-level the list shows %q", it)
		}
	}
	p.choose("t1", "class", "")
	p.choose("t1", "sub", "on")
	if got := p.items("t1"); strings.Join(got, "|") != "c 8|m User: Look for the callers of Expire.|c 9|c 10" {
		t.Errorf("subagent: %q", got)
	}
	p.choose("t1", "sub", "")

	// The box hides them, and the address keeps it.
	p.choose("t1", "msgs", "off")
	l = p.listed("t1")
	if !strings.Contains(l.Hash, "msgs=0") || len(l.Steps) != 18 || !strings.Contains(l.Status, "and 0 of 5 messages") {
		t.Errorf("messages hidden: %+v", l)
	}
	if n := evalIn[int](p, `document.querySelectorAll("#t1-list li.msg").length`); n != 0 {
		t.Errorf("%d messages listed with the box cleared", n)
	}
	p.do(chromedp.Reload())
	waitReady(t, p.ctx)
	if n := evalIn[int](p, `document.querySelectorAll("#t1-list li.msg").length`); n != 0 || evalIn[bool](p, `document.querySelector("#t1-filters").elements.msgs.checked`) {
		t.Errorf("reopened with msgs=0: %d messages listed", n)
	}
	p.noProblems()
}

// A message's hostile text is shown as text: no element, attribute or
// script of its own appears in the document.
func TestHostileMessagesAreShownAsTextInBrowser(t *testing.T) {
	browser := browserFor(t)
	dir := writeHostileRun(t)
	measured, err := htmlreport.Load([]string{filepath.Join(dir, "hostile.toolcalls.json")}, htmlreport.LoadOptions{GroundTruth: filepath.Join(dir, "hostile.groundtruth.json")})
	if err != nil {
		t.Fatal(err)
	}
	s := measured[0].Session
	for i, h := range hostile {
		s.Messages = append(s.Messages, trace.Message{Role: trace.RoleAssistant, Kind: trace.KindText, Text: "said " + h, Before: i % (len(s.Calls) + 1)})
	}
	p := openPage(t, browser, "hostile.html", 1100, func(b *bytes.Buffer) error { return htmlreport.WriteTraces(b, []*expectations.Run(measured)) })
	p.choose("t1", "q", "said ")
	p.listed("t1")
	if n := evalIn[int](p, `document.querySelectorAll("#t1-list li.msg .hit mark").length`); n != len(hostile) {
		t.Errorf("searching 'said ' marks %d messages, want %d", n, len(hostile))
	}
	p.choose("t1", "q", "")
	p.listed("t1")
	evalIn[chromedp.Void](p, `document.querySelectorAll("#t1-list details").forEach(d => d.open = true)`)
	p.do(chromedp.Sleep(300 * time.Millisecond))
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
	shown := evalIn[[]string](p, `Array.from(document.querySelectorAll("#t1-list li.msg pre.msg-text")).map(p => p.textContent)`)
	if len(shown) != len(hostile) {
		t.Fatalf("%d messages shown, want %d", len(shown), len(hostile))
	}
	for i, want := range []string{hostile[0], hostile[1], hostile[5]} {
		if !strings.Contains(strings.Join(shown, "\n"), "said "+want) {
			t.Errorf("message %d: the page does not show %q", i, want)
		}
	}
	p.noProblems()
}

// A check report draws the calls of a folded (passing) scenario only once
// it is opened, and a link to one of its calls opens it.
func TestAFoldedScenarioIsDrawnWhenOpenedInBrowser(t *testing.T) {
	browser := browserFor(t)
	page := checkPage(t, passes, fails)
	p := openPage(t, browser, "check.html", 1100, func(b *bytes.Buffer) error { _, err := b.Write(page); return err })
	id := evalIn[string](p, `document.querySelector("#s1 section.trace").id`)
	if n := evalIn[int](p, `document.querySelectorAll("#s1 ol.calls > li").length`); n != 0 {
		t.Errorf("the folded scenario lists %d entries before it is opened", n)
	}
	if n := evalIn[int](p, `document.querySelectorAll("#s2 ol.calls details.call").length`); n != 18 {
		t.Errorf("the failed scenario lists %d calls, want 18", n)
	}
	evalIn[chromedp.Void](p, `document.querySelector("#s1 > details").open = true`)
	if _, err := chromedp.Run(p.ctx, chromedp.Poll[bool](`document.querySelectorAll("#s1 ol.calls details.call").length === 18`, chromedp.WithPollingTimeout(5*time.Second))); err != nil {
		t.Errorf("opening the folded scenario did not list its 18 calls: %v", err)
	}
	// Reopened at a call of the folded scenario, and at a filter of it.
	for _, hash := range []string{"#" + id + "-c3", "#" + id + "?class=E"} {
		p.do(chromedp.Navigate("file://"+p.path+hash), chromedp.Reload())
		waitReady(t, p.ctx)
		want := `document.getElementById("` + id + `-c3")?.open === true`
		if strings.Contains(hash, "class") {
			want = `document.querySelectorAll("#s1 ol.calls details.call").length === 3`
		}
		if _, err := chromedp.Run(p.ctx, chromedp.Poll[bool](`document.querySelector("#s1 > details").open && `+want, chromedp.WithPollingTimeout(5*time.Second))); err != nil {
			t.Errorf("opened at %s: the scenario and what the address names are not shown: %v", hash, err)
		}
	}
	p.noProblems()
}
