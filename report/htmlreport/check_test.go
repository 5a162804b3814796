package htmlreport_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/agentretrieval/agentretrieval/report/htmlreport"
)

// checkScenarios writes scenarios on the session-expiry trace, each with
// the expectations given, and evaluates them in order.
func checkScenarios(t *testing.T, expectations ...string) *html.Node {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(checkPage(t, expectations...)))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// checkPage is the check report of scenarios on the session-expiry trace,
// each with the expectations given.
func checkPage(t *testing.T, expectations ...string) []byte {
	t.Helper()
	dir := t.TempDir()
	abs, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for i, e := range expectations {
		s := "name: scenario-" + string(rune('a'+i)) + "\ntrace: " + filepath.Join(abs, "session-expiry.toolcalls.json") +
			"\nground_truth: {from: " + filepath.Join(abs, "session-expiry.groundtruth.json") + "}\nprofile: [claude-code, sourcegraph-mcp]\nexpectations:\n" + e
		f := filepath.Join(dir, string(rune('a'+i))+".yaml")
		if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return render(t, func(b *bytes.Buffer) error { return htmlreport.WriteCheck(b, checkResults(t, files...)) })
}

const (
	passes       = "  - type: budget\n    max_total_calls: 25\n"
	fails        = "  - type: budget\n    max_total_calls: 5\n"
	failsFlaky   = "  - type: budget\n    max_total_calls: 5\n    flaky: true\n"
	failsFishing = "  - type: patterns\n    forbid: [fishing]\n"
)

func find(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	if n.Type == html.ElementNode && match(n) {
		out = append(out, n)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		out = append(out, find(c, match)...)
	}
	return out
}

func hasClass(n *html.Node, class string) bool {
	for _, a := range n.Attr {
		if a.Key == "class" && strings.Contains(" "+a.Val+" ", " "+class+" ") {
			return true
		}
	}
	return false
}

func textOf(n *html.Node) string {
	if n.Type == html.TextNode {
		return n.Data
	}
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		b.WriteString(textOf(c))
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

func TestTheCheckReportPutsFailuresFirst(t *testing.T) {
	doc := checkScenarios(t, passes, fails+failsFishing, passes, failsFlaky)
	main := find(doc, func(n *html.Node) bool { return n.Data == "main" })[0]
	var first *html.Node
	for c := main.FirstChild; c != nil && first == nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			first = c
		}
	}
	if first == nil || attr(first, "id") != "failures" {
		t.Fatalf("the first thing in the page is not the failures panel")
	}
	rows := find(first, func(n *html.Node) bool { return n.Data == "tr" && n.Parent.Data == "tbody" })
	var got []string
	for _, r := range rows {
		cells := find(r, func(n *html.Node) bool { return n.Data == "td" })
		link := find(cells[1], func(n *html.Node) bool { return n.Data == "a" })[0]
		got = append(got, textOf(cells[0])+" "+textOf(link)+" "+attr(link, "href")+" "+textOf(find(cells[2], func(n *html.Node) bool { return n.Data == "strong" })[0])+" "+textOf(cells[3])+" "+textOf(cells[4]))
	}
	want := []string{
		"FAIL scenario-b #s2 budget total tool calls = 18 ≤ 5",
		"FAIL scenario-b #s2 patterns",
		"FLAKY scenario-d #s4 budget total tool calls = 18 ≤ 5",
	}
	if len(got) != len(want) {
		t.Fatalf("failures panel rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("failures row %d: %q, want it to start with %q", i+1, got[i], want[i])
		}
	}

	// The summary table has a row per scenario with its result and figures.
	summary := find(doc, func(n *html.Node) bool { return attr(n, "id") == "summary" })
	if len(summary) != 1 {
		t.Fatal("no summary table")
	}
	var rowsText []string
	for _, r := range find(summary[0], func(n *html.Node) bool { return n.Data == "tr" && n.Parent.Data == "tbody" }) {
		cells := find(r, func(n *html.Node) bool { return n.Data == "td" })
		rowsText = append(rowsText, attr(find(cells[0], func(n *html.Node) bool { return n.Data == "a" })[0], "href")+" "+textOf(cells[1])+" "+textOf(cells[2])+" "+textOf(cells[3]))
	}
	if got, want := strings.Join(rowsText, "|"), "#s1 PASS 0.25 3|#s2 FAIL 0.25 3|#s3 PASS 0.25 3|#s4 FLAKY 0.25 3"; got != want {
		t.Errorf("summary rows %q, want %q", got, want)
	}

	// Passing scenarios are folded, the others open.
	for _, s := range find(doc, func(n *html.Node) bool { return n.Data == "details" && hasClass(n, "scenario") }) {
		name := textOf(find(s, func(n *html.Node) bool { return n.Data == "h2" })[0])
		_, open := attrOK(s, "open")
		if wantOpen := !strings.HasPrefix(name, "PASS"); open != wantOpen {
			t.Errorf("scenario %q: open %v, want %v", name, open, wantOpen)
		}
	}
}

func TestAFlakyFailureIsInTheHeadline(t *testing.T) {
	tests := []struct {
		name, verdict string
		expectations  []string
	}{
		{"every scenario passes", "PASS All 2 scenarios passed.", []string{passes, passes}},
		{"a flaky expectation fails", "FLAKY No scenario failed, but 1 of 2 had a flaky expectation fail", []string{passes, failsFlaky}},
		{"a scenario fails and another is flaky", "FAIL 1 of 3 scenarios failed. 1 flaky.", []string{passes, fails, failsFlaky}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := checkScenarios(t, tt.expectations...)
			v := find(doc, func(n *html.Node) bool { return attr(n, "id") == "verdict" })
			if len(v) != 1 || !strings.HasPrefix(textOf(v[0]), tt.verdict) {
				t.Errorf("headline %q, want %q", textOf(v[0]), tt.verdict)
			}
			if len(find(doc, func(n *html.Node) bool { return attr(n, "id") == "failures" })) != map[bool]int{true: 0, false: 1}[tt.name == "every scenario passes"] {
				t.Error("a failures panel where nothing failed, or none where something did")
			}
		})
	}
}

func attrOK(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}
