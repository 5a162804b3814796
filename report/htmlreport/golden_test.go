package htmlreport_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/agentretrieval/agentretrieval/expectations"
	"github.com/agentretrieval/agentretrieval/report/htmlreport"
	"github.com/agentretrieval/agentretrieval/retrievaltest"
	"github.com/agentretrieval/agentretrieval/runs"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// checkResults evaluates the scenario files named.
func checkResults(t testing.TB, files ...string) []*expectations.ScenarioResult {
	t.Helper()
	scenarios, errs := retrievaltest.LoadAll(files, retrievaltest.Options{})
	if len(errs) > 0 {
		t.Fatalf("loading %v: %v", files, errs)
	}
	results, errs := retrievaltest.EvaluateAll(context.Background(), scenarios, retrievaltest.Options{Jobs: 1, KeepResults: htmlreport.ShownResult})
	if len(errs) > 0 {
		t.Fatalf("evaluating %v: %v", files, errs)
	}
	return results
}

// miniRun evaluates the miniature run folder of the repository's testdata
// into a temporary folder and returns its summary and that folder.
func miniRun(t testing.TB) (*runs.Summary, string) {
	t.Helper()
	out := t.TempDir()
	s, err := runs.Evaluate(context.Background(), "../../testdata/runs/mini", runs.Options{GroundTruthRoot: "../../testdata/runs/gt", Out: out, Jobs: 1})
	if s == nil {
		t.Fatalf("evaluating the mini run: %v", err)
	}
	return s, out
}

func render(t testing.TB, write func(*bytes.Buffer) error) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestGoldenStructure(t *testing.T) {
	tests := []struct {
		name, golden string
		page         func(t *testing.T) []byte
	}{
		{"a check report has the verdict, the expectations and the timeline of each run", "check.golden", func(t *testing.T) []byte {
			results := checkResults(t, "testdata/session-expiry.yaml")
			return render(t, func(b *bytes.Buffer) error { return htmlreport.WriteCheck(b, results) })
		}},
		{"a trace view has the figures, the timeline and every call", "view.golden", func(t *testing.T) []byte {
			measured, err := htmlreport.Load([]string{"testdata/session-expiry.toolcalls.json"}, htmlreport.LoadOptions{GroundTruth: "testdata/session-expiry.groundtruth.json"})
			if err != nil {
				t.Fatal(err)
			}
			return render(t, func(b *bytes.Buffer) error { return htmlreport.WriteTraces(b, measured) })
		}},
		{"a run report has the metric tables, the comparison and the coverage curves", "run.golden", func(t *testing.T) []byte {
			s, dir := miniRun(t)
			return render(t, func(b *bytes.Buffer) error { return htmlreport.WriteRun(b, s, htmlreport.RunOptions{Dir: dir}) })
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := outline(t, tt.page(t))
			path := filepath.Join("testdata", tt.golden)
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("the structure of the page differs from %s (go test -update rewrites it); first difference:\n%s", path, firstDiff(string(want), got))
			}
		})
	}
}

// outline writes the element tree of a page, one element a line: its
// name, id, classes and the attributes that carry meaning (links, step
// numbers, call counts), and its text. Coordinates, the style sheet and
// the script are left out: the golden files pin what the page says and
// how it is built, not how it is drawn.
func outline(t testing.TB, page []byte) string {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	var walk func(n *html.Node, depth int)
	walk = func(n *html.Node, depth int) {
		indent := strings.Repeat("  ", depth)
		switch n.Type {
		case html.ElementNode:
			b.WriteString(indent + n.Data)
			for _, a := range n.Attr {
				switch a.Key {
				case "id":
					b.WriteString("#" + a.Val)
				case "class":
					for c := range strings.FieldsSeq(a.Val) {
						b.WriteString("." + c)
					}
				case "href", "data-step", "data-calls", "name", "lang", "aria-label", "aria-labelledby", "role":
					fmt.Fprintf(&b, " %s=%q", a.Key, a.Val)
				}
			}
			b.WriteString("\n")
			if n.Data == "style" || n.Data == "script" {
				return
			}
		case html.TextNode:
			if text := strings.Join(strings.Fields(n.Data), " "); text != "" {
				fmt.Fprintf(&b, "%s%q\n", indent, text)
			}
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			d := depth
			if n.Type == html.ElementNode {
				d++
			}
			walk(c, d)
		}
	}
	walk(doc, 0)
	return b.String()
}

func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(wl), len(gl)) {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\n  want %s\n  got  %s", i+1, w, g)
		}
	}
	return "(none)"
}
