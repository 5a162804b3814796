package htmlreport_test

import (
	"bytes"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/agentretrieval/agentretrieval/report/htmlreport"
)

// headings lists the heading levels of a page in document order.
func headings(t *testing.T, page []byte) (levels []int, texts []string) {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var walk func(*html.Node)
	var text func(*html.Node) string
	text = func(n *html.Node) string {
		if n.Type == html.TextNode {
			return n.Data
		}
		var b strings.Builder
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			b.WriteString(text(c))
		}
		return b.String()
	}
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && len(n.Data) == 2 && n.Data[0] == 'h' && n.Data[1] >= '1' && n.Data[1] <= '6' {
			levels = append(levels, int(n.Data[1]-'0'))
			texts = append(texts, strings.Join(strings.Fields(text(n)), " "))
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return levels, texts
}

// A screen reader's reader moves by headings: each page has one h1 and no
// heading deeper than one level below the one before it.
func TestHeadingsGoInOrder(t *testing.T) {
	t.Parallel()
	results := checkResults(t, "testdata/session-expiry.yaml")
	measured, err := htmlreport.Load([]string{"testdata/session-expiry.toolcalls.json"}, htmlreport.LoadOptions{GroundTruth: "testdata/session-expiry.groundtruth.json"})
	if err != nil {
		t.Fatal(err)
	}
	summary, dir := miniRun(t)
	pages := map[string][]byte{
		"check report": render(t, func(b *bytes.Buffer) error { return htmlreport.WriteCheck(b, results) }),
		"trace view":   render(t, func(b *bytes.Buffer) error { return htmlreport.WriteTraces(b, measured) }),
		"run report":   render(t, func(b *bytes.Buffer) error { return htmlreport.WriteRun(b, summary, htmlreport.RunOptions{Dir: dir}) }),
	}
	for name, page := range pages {
		levels, texts := headings(t, page)
		if len(levels) == 0 || levels[0] != 1 {
			t.Errorf("%s: the first heading is not an h1: %v", name, levels)
			continue
		}
		for i := 1; i < len(levels); i++ {
			if levels[i] == 1 {
				t.Errorf("%s: a second h1, %q", name, texts[i])
			}
			if levels[i] > levels[i-1]+1 {
				t.Errorf("%s: h%d %q follows h%d %q", name, levels[i], texts[i], levels[i-1], texts[i-1])
			}
		}
	}
}
