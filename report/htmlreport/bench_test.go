package htmlreport_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/expectations"
	"github.com/agentretrieval/agentretrieval/metrics"
	"github.com/agentretrieval/agentretrieval/report/htmlreport"
	"github.com/agentretrieval/agentretrieval/trace"
)

// syntheticRun is a measured trace of n calls cycling through a grep, a
// read and an edit, each with a result of a few dozen lines.
func syntheticRun(b testing.TB, n int) *expectations.Run {
	b.Helper()
	sess := &trace.Session{Format: "tool-calls", Source: "synthetic"}
	result := ""
	for l := 1; l <= 40; l++ {
		result += fmt.Sprintf("%6d\tline %d of a file\n", l, l)
	}
	for i := range n {
		var name string
		var args map[string]any
		switch i % 3 {
		case 0:
			name, args = "Grep", map[string]any{"pattern": fmt.Sprintf("Func%d", i)}
		case 1:
			name, args = "Read", map[string]any{"file_path": fmt.Sprintf("pkg/f%d.go", i%50)}
		default:
			name, args = "Edit", map[string]any{"file_path": fmt.Sprintf("pkg/f%d.go", i%50), "old_string": "a", "new_string": "b"}
		}
		raw, _ := json.Marshal(args)
		sess.Calls = append(sess.Calls, trace.ToolCall{Index: i, Name: name, Arguments: raw, Result: result, HasResult: true})
	}
	tax, err := events.LoadTaxonomy(nil)
	if err != nil {
		b.Fatal(err)
	}
	doc := events.Normalize(sess, events.Options{Taxonomy: tax, GroundTruth: &events.GroundTruth{Files: []string{"pkg/f1.go"}}})
	return &expectations.Run{Trace: "synthetic", Session: sess, Document: doc, Metrics: metrics.Compute(doc, metrics.Options{})}
}

func BenchmarkWriteTraces(b *testing.B) {
	for _, n := range []int{100, 2000} {
		b.Run(fmt.Sprintf("%d calls", n), func(b *testing.B) {
			run := syntheticRun(b, n)
			var size countingWriter
			for b.Loop() {
				size = 0
				if err := htmlreport.WriteTraces(&size, []*expectations.Run{run}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(size)/float64(n), "page-bytes/call")
		})
	}
}

type countingWriter int

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}

var bigReps = flag.Int("bigview.reps", 130, "how many times BenchmarkViewOfALargeSession repeats its real session (130: 21,710 calls, 101 MB)")

// bigDir is the temporary folder of bigSession's file, removed by TestMain.
var bigDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if bigDir != "" {
		os.RemoveAll(bigDir)
	}
	os.Exit(code)
}

// bigSession writes, once, a large real-shaped session: a real Claude Code
// session from ../../../shared/samples repeated *bigReps times as one
// session, each repetition's message and tool-call ids made unique.
var bigSession = sync.OnceValues(func() (string, error) {
	src := filepath.Join("..", "..", "..", "shared", "samples", "claude-code-jsonl", "dkimuson-fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl")
	data, err := os.ReadFile(src)
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "htmlreport-bigview")
	if err != nil {
		return "", err
	}
	bigDir = dir
	path := filepath.Join(dir, "big.jsonl")
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	w := bufio.NewWriter(f)
	uuid := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|toolu_[0-9A-Za-z]+`)
	session := string(regexp.MustCompile(`"sessionId":"([^"]+)"`).FindSubmatch(data)[1])
	for r := range *bigReps {
		for line := range bytes.Lines(data) {
			if r > 0 && bytes.Contains(line, []byte(`"type":"summary"`)) {
				continue
			}
			if r > 0 {
				line = uuid.ReplaceAllFunc(line, func(id []byte) []byte {
					if string(id) == session {
						return id
					}
					return fmt.Appendf(nil, "%s-r%d", id, r)
				})
			}
			w.Write(line)
		}
	}
	if err := w.Flush(); err != nil {
		return "", err
	}
	return path, f.Close()
})

// BenchmarkViewOfALargeSession measures the view command's page of a large
// real-shaped session (see bigSession): "write" loads, measures and writes
// it (page-MB, the page's size), "browser" opens the page in headless
// Chromium until its script has drawn the call list (ns/op: the time to an
// interactive page, as the test sees it; parsed-ms and drawn-ms: the
// page's own clock from navigation to the document parsed and to the calls
// drawn). Both skip without the samples, "browser" without
// Chromium.
func BenchmarkViewOfALargeSession(b *testing.B) {
	path, err := bigSession()
	if err != nil {
		b.Skipf("no large session: %v (the samples are in ../../../shared/samples)", err)
	}
	var page []byte
	b.Run("write", func(b *testing.B) {
		var calls int
		for b.Loop() {
			measured, err := htmlreport.Load([]string{path}, htmlreport.LoadOptions{})
			if err != nil {
				b.Fatal(err)
			}
			calls = len(measured[0].Session.Calls)
			var buf bytes.Buffer
			if err := htmlreport.WriteTraces(&buf, measured); err != nil {
				b.Fatal(err)
			}
			page = buf.Bytes()
		}
		b.ReportMetric(float64(len(page))/1e6, "page-MB")
		b.ReportMetric(float64(calls), "calls")
	})
	b.Run("browser", func(b *testing.B) {
		if page == nil {
			b.Skip("no page written")
		}
		bin := findBrowser()
		if bin == "" {
			b.Skip("no Chromium found")
		}
		file := filepath.Join(b.TempDir(), "big.html")
		if err := os.WriteFile(file, page, 0o644); err != nil {
			b.Fatal(err)
		}
		browser := startBrowser(b, bin, b.TempDir())
		var parsed, drawn float64
		for b.Loop() {
			tab, cancel := chromedp.NewContext(browser)
			ctx, cancelTime := context.WithTimeout(tab, 5*time.Minute)
			err := chromedp.Do(ctx, chromedp.Navigate("file://"+file))
			if err == nil {
				_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.documentElement.dataset.ready === "1"`, chromedp.WithPollingInterval(10*time.Millisecond)))
			}
			if err == nil {
				// The page's own clock: the document parsed, the calls drawn.
				var at []float64
				at, err = chromedp.Run(ctx, chromedp.Evaluate[[]float64](`[performance.getEntriesByType("navigation")[0].domInteractive, performance.getEntriesByName("calls-drawn")[0].startTime]`))
				if err == nil {
					parsed += at[0]
					drawn += at[1]
				}
			}
			cancelTime()
			cancel()
			if err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(parsed/float64(b.N), "parsed-ms")
		b.ReportMetric(drawn/float64(b.N), "drawn-ms")
	})
}
