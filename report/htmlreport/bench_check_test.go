package htmlreport_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agentretrieval/agentretrieval/expectations"
	"github.com/agentretrieval/agentretrieval/report/htmlreport"
)

// checkSuite writes 60 scenarios over a real Claude Code session from
// ../../../shared/samples (167 calls, three subagents), each a copy of the
// session, of which 4 fail (their call budget is 5), and evaluates them
// as check -html does.
func checkSuite(b *testing.B) []*expectations.ScenarioResult {
	b.Helper()
	src := filepath.Join("..", "..", "..", "shared", "samples", "claude-code-jsonl", "dkimuson-fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl")
	data, err := os.ReadFile(src)
	if err != nil {
		b.Skipf("no sample session: %v (the samples are in ../../../shared/samples)", err)
	}
	dir := b.TempDir()
	var files []string
	for i := 1; i <= 60; i++ {
		trace := fmt.Sprintf("session-%02d.jsonl", i)
		if err := os.WriteFile(filepath.Join(dir, trace), data, 0o644); err != nil {
			b.Fatal(err)
		}
		budget := 1000
		if i%15 == 0 {
			budget = 5 // scenarios 15, 30, 45 and 60 fail
		}
		yaml := fmt.Sprintf(`name: scenario-%02d
description: Scenario %d of a suite of 60.
trace: %s
profile: [claude-code]
expectations:
  - type: budget
    max_total_calls: %d
  - type: tools
    must_call: [Read]
  - type: patterns
    forbid: [guessing]
`, i, i, trace, budget)
		file := filepath.Join(dir, fmt.Sprintf("scenario-%02d.yaml", i))
		if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
			b.Fatal(err)
		}
		files = append(files, file)
	}
	return checkResults(b, files...)
}

// BenchmarkCheckReportOf60Scenarios measures check -html's page for 60
// scenarios of which 4 fail (see checkSuite): "write" writes the page from
// the results (page-MB), "browser" opens it in headless Chromium until its
// script has drawn every call list (ns/op, and the page's own clock:
// parsed-ms, drawn-ms; page-px is the document's height as drawn, at a
// width of 1400 px). Skipped without the samples, "browser" without
// Chromium.
func BenchmarkCheckReportOf60Scenarios(b *testing.B) {
	results := checkSuite(b)
	failed := 0
	for _, r := range results {
		if r.Failed() {
			failed++
		}
	}
	if len(results) != 60 || failed != 4 {
		b.Fatalf("%d scenarios, %d failed; want 60 and 4", len(results), failed)
	}
	var page []byte
	b.Run("write", func(b *testing.B) {
		for b.Loop() {
			var buf bytes.Buffer
			if err := htmlreport.WriteCheck(&buf, results); err != nil {
				b.Fatal(err)
			}
			page = buf.Bytes()
		}
		b.ReportMetric(float64(len(page))/1e6, "page-MB")
	})
	b.Run("browser", func(b *testing.B) {
		if page == nil {
			b.Skip("no page written")
		}
		bin := findBrowser()
		if bin == "" {
			b.Skip("no Chromium found")
		}
		file := filepath.Join(b.TempDir(), "check.html")
		if err := os.WriteFile(file, page, 0o644); err != nil {
			b.Fatal(err)
		}
		browser := startBrowser(b, bin, b.TempDir())
		var parsed, drawn, height float64
		for b.Loop() {
			tab, cancel := chromedp.NewContext(browser)
			ctx, cancelTime := context.WithTimeout(tab, 5*time.Minute)
			err := chromedp.Do(ctx, chromedp.EmulateViewport(1400, 900), chromedp.Navigate("file://"+file))
			if err == nil {
				_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.documentElement.dataset.ready === "1"`, chromedp.WithPollingInterval(10*time.Millisecond)))
			}
			if err == nil {
				var at []float64
				at, err = chromedp.Run(ctx, chromedp.Evaluate[[]float64](`[performance.getEntriesByType("navigation")[0].domInteractive, performance.getEntriesByName("calls-drawn")[0].startTime, document.documentElement.scrollHeight]`))
				if err == nil {
					parsed += at[0]
					drawn += at[1]
					height = at[2]
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
		b.ReportMetric(height, "page-px")
	})
}
