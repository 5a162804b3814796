package htmlreport_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/agentretrieval/agentretrieval/report/htmlreport"
	"github.com/agentretrieval/agentretrieval/runs"
)

// hostile are strings that would end their context if written raw: an
// element, an attribute value, the inline SVG, a CDATA section, the SVG
// <title>, a comment; and control characters that would rewrite a
// terminal or hide text.
var hostile = []string{
	`<script>alert(1)</script>`,
	`"><img src=x onerror=alert(2)>`,
	`'><svg onload=alert(3)>`,
	`</svg><script>alert(4)</script>`,
	`]]><script>alert(5)</script>`,
	`</title><script>alert(6)</script>`,
	`<!-- </pre></details></style>`,
	"ctl\x00\x01\x07\x1b[2J\x1b]0;pwned\x07\x7f\u0085\u202eevil",
}

// writeHostileRun writes a trace whose tool names, arguments, results,
// paths and metadata carry every hostile string, its ground truth, and a
// scenario with a hostile name and description.
func writeHostileRun(t *testing.T) (dir string) {
	t.Helper()
	dir = t.TempDir()
	all := strings.Join(hostile, "\n")
	var calls []map[string]any
	for i, h := range hostile {
		path := "src/" + h + ".go"
		calls = append(calls,
			map[string]any{"tool": "Grep", "arguments": map[string]any{"pattern": h, "path": "src"}, "result": path + ":1:" + h},
			map[string]any{"tool": "Read", "arguments": map[string]any{"file_path": path}, "result": "     1\t" + all},
			map[string]any{"tool": h, "arguments": map[string]any{"query": h}, "result": all, "isError": i%2 == 0, "subagent": i%3 == 0},
		)
	}
	tr := map[string]any{"sessionId": hostile[0], "agent": hostile[1], "model": hostile[3], "toolCalls": calls}
	calls = append(calls, map[string]any{"tool": "Read", "arguments": map[string]any{"file_path": "src/hit.go"}, "result": "     1\t" + all})
	gt := map[string]any{"files": []string{"src/hit.go", "src/missed.go"}}
	for name, v := range map[string]any{"hostile.toolcalls.json": tr, "hostile.groundtruth.json": gt} {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	name, _ := json.Marshal(hostile[0] + hostile[3])
	desc, _ := json.Marshal(all)
	scenario := "name: " + string(name) + "\ndescription: " + string(desc) + "\ntrace: hostile.toolcalls.json\n" +
		"ground_truth: {from: hostile.groundtruth.json}\nexpectations:\n" +
		"  - type: retrieval\n    description: " + string(desc) + "\n    recall@5: {min: 1}\n" +
		"  - type: patterns\n    forbid: [fishing, guessing]\n" +
		"  - type: tools\n    must_not_call: [Grep]\n"
	if err := os.WriteFile(filepath.Join(dir, "hostile.yaml"), []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// hostileSummary is a run summary whose run, configuration and task names
// and reasons carry the hostile strings, with enough matched tasks for a
// comparison.
func hostileSummary() *runs.Summary {
	entries := map[string][]runs.TaskEntry{}
	for c, config := range []string{"baseline" + hostile[0], "mcp" + hostile[3]} {
		for i, h := range hostile {
			reward := float64(i % 2)
			e := runs.TaskEntry{Name: h, Task: h, Status: runs.Computable, Reward: &reward,
				Values: map[string]float64{"recall@5": float64(i+c) / 10, "steps_to_target": float64(i + 1 - c)}}
			if i == 0 {
				e.Status, e.Reason = runs.NonComputable, hostile[7]
			}
			entries[config] = append(entries[config], e)
		}
	}
	return runs.Summarize(hostile[4], entries)
}

// allowedElements are every element the report writes itself.
var allowedElements = map[string]bool{}

func init() {
	for e := range strings.FieldsSeq(`html head body meta title link style script header main nav footer section
		h1 h2 h3 h4 p span strong br ul ol li a dl dt dd div table caption thead tbody tr th td details summary pre
		figure figcaption svg text line rect circle polyline g form label input select option button output noscript mark`) {
		allowedElements[e] = true
	}
}

const base64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func TestTraceTextCannotLeaveItsContext(t *testing.T) {
	dir := writeHostileRun(t)
	measured, err := htmlreport.Load([]string{filepath.Join(dir, "hostile.toolcalls.json")}, htmlreport.LoadOptions{GroundTruth: filepath.Join(dir, "hostile.groundtruth.json")})
	if err != nil {
		t.Fatal(err)
	}
	pages := map[string][]byte{
		"run report": render(t, func(b *bytes.Buffer) error { return htmlreport.WriteRun(b, hostileSummary(), htmlreport.RunOptions{}) }),
		"trace view": render(t, func(b *bytes.Buffer) error { return htmlreport.WriteTraces(b, measured) }),
		"check report": render(t, func(b *bytes.Buffer) error {
			return htmlreport.WriteCheck(b, checkResults(t, filepath.Join(dir, "hostile.yaml")))
		}),
	}
	for name, page := range pages {
		t.Run(name, func(t *testing.T) {
			for i, c := range page {
				if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
					t.Fatalf("raw control character %#x at byte %d: %q", c, i, page[max(0, i-40):min(len(page), i+40)])
				}
			}
			doc, err := html.Parse(bytes.NewReader(page))
			if err != nil {
				t.Fatal(err)
			}
			scripts := 0
			var texts, data strings.Builder
			blocks := map[string]string{}
			var walk func(*html.Node)
			walk = func(n *html.Node) {
				switch n.Type {
				case html.ElementNode:
					if !allowedElements[n.Data] {
						t.Errorf("injected element <%s>", n.Data)
					}
					if n.Data == "script" {
						// A data block (a trace's calls) is never run, and
						// holds only base64 letters, which can neither end
						// the element nor start markup.
						if typ := attr(n, "type"); typ != "" {
							if typ != "application/gzip" || n.FirstChild == nil || strings.Trim(n.FirstChild.Data, base64URL) != "" {
								t.Errorf("a script element of type %q that is not a data block of base64 letters", typ)
							} else {
								blocks[attr(n, "id")] = n.FirstChild.Data
							}
							return
						} else {
							scripts++
							if n.FirstChild != nil && strings.Contains(n.FirstChild.Data, "alert") {
								t.Errorf("the script holds trace text: %q", n.FirstChild.Data)
							}
						}
					}
					for _, a := range n.Attr {
						switch {
						case strings.HasPrefix(a.Key, "on"), a.Key == "src", a.Key == "style", a.Key == "srcdoc":
							t.Errorf("injected attribute %s=%q on <%s>", a.Key, a.Val, n.Data)
						case a.Key == "href" && !strings.HasPrefix(a.Val, "#") && a.Val != "data:,":
							t.Errorf("link out of the page: href=%q", a.Val)
						case strings.Contains(a.Val, "alert") && a.Key != "aria-label":
							t.Errorf("trace text in attribute %s=%q of <%s>", a.Key, a.Val, n.Data)
						}
					}
				case html.TextNode:
					texts.WriteString(n.Data + "\n")
				case html.CommentNode:
					t.Errorf("comment in the page: %q", n.Data)
				}
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					walk(c)
				}
			}
			walk(doc)
			// The page's script puts the strings of its data blocks in the
			// page as text (the browser test checks it).
			for id, calls := range blocks {
				trace, ok := strings.CutSuffix(id, "-data")
				if !ok {
					continue
				}
				strs, err := htmlreport.DataStrings(calls, blocks[trace+"-details"])
				if err != nil {
					t.Errorf("data blocks of %s: %v", trace, err)
				}
				for _, s := range strs {
					data.WriteString(s + "\n")
				}
			}
			if scripts != 1 {
				t.Errorf("%d <script> elements, want only the report's own", scripts)
			}
			// The hostile strings are shown as text, not dropped: escaping,
			// not deletion, keeps them in place.
			wants := []string{hostile[0], hostile[3], hostile[4], hostile[5], `\u001b[2J`, `\u202e`}
			if name == "run report" {
				wants = []string{hostile[0], hostile[3], hostile[4], `\u001b[2J`, "Paired differences"}
			}
			for _, want := range wants {
				if !strings.Contains(texts.String()+data.String(), want) {
					t.Errorf("the page does not show %q as text", want)
				}
			}
			if name != "run report" {
				// Each call's tool, arguments and result are in the data,
				// made printable.
				for _, want := range []string{hostile[1], hostile[6], `\u001b]0;pwned\a`} {
					if !strings.Contains(data.String(), want) {
						t.Errorf("the calls' data does not hold %q", want)
					}
				}
			}
		})
	}
}
