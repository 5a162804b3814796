package report

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
)

// WriteMarkdown writes the report, failures first: a verdict (how many
// scenarios passed, could not be checked or failed, and with a baseline
// which figures regressed past the allowed change), the failed
// expectations and the scenarios that could not be checked, the
// index-effectiveness and retrieval tables, the other expectations
// collapsed under <details>, and with a baseline the regressions.
//
// With opts.OnlyFailures, passing scenarios are left out of every table,
// but for their flaky failures.
// Long cells are cut (see WriteExpectationsTable); the JSON report keeps
// the full texts.
func (c *Check) WriteMarkdown(w io.Writer, opts CheckOptions) error {
	if opts.Target == 0 {
		opts.Target = DefaultSemanticTarget
	}
	regs := c.Regressions(opts)
	failing := map[string]bool{}
	for _, name := range c.Failed() {
		failing[name] = true
	}
	for _, row := range c.Expectations {
		if row.Status == Error {
			failing[row.Scenario] = true
		}
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Retrieval check\n\n%s\n", c.verdict(regs, opts.Baseline != nil))

	var failures, others []ExpectationRow
	for _, row := range c.Expectations {
		switch {
		case row.Status == Fail || row.Status == Error:
			failures = append(failures, row)
		case !opts.OnlyFailures || failing[row.Scenario] || row.Status == Flaky:
			others = append(others, row)
		}
	}
	if len(failures) > 0 {
		// The scenarios that could not be checked come first: nothing
		// else says what they would have shown.
		failures = sortExpectations(failures)
		slices.SortStableFunc(failures, func(a, b ExpectationRow) int { return cmp.Compare(statusRank(a.Status), statusRank(b.Status)) })
		b.WriteString("\n## Failures\n\n")
		if err := writeExpectationsTable(&b, failures); err != nil {
			return err
		}
	}

	index, retrieval := c.Index, c.Retrieval
	if opts.OnlyFailures {
		index, retrieval = nil, nil
		for i, row := range c.Index {
			if failing[row.Scenario] {
				index = append(index, row)
				retrieval = append(retrieval, c.Retrieval[i])
			}
		}
	}
	tol := opts.tolerances()
	if len(index) > 0 {
		b.WriteString("\n## Index effectiveness\n\n")
		if err := WriteIndexTable(&b, index, IndexOptions{Target: opts.Target, Baseline: opts.Baseline, Tolerances: tol}); err != nil {
			return err
		}
		b.WriteString("\n## Retrieval\n\n")
		if err := WriteRetrievalTable(&b, retrieval, RetrievalOptions{Metrics: opts.Metrics, Baseline: opts.Baseline, Tolerances: tol}); err != nil {
			return err
		}
	}

	passed := len(c.Results) - len(c.Failed())
	if len(others) > 0 {
		// The blank line after the summary lets GitHub render the table
		// inside the collapsed block.
		fmt.Fprintf(&b, "\n## Expectations\n\n<details><summary>%d other expectation(s): %s</summary>\n\n", len(others), statusCounts(others))
		if err := WriteExpectationsTable(&b, others); err != nil {
			return err
		}
		b.WriteString("\n</details>\n")
	}
	if opts.OnlyFailures && passed > 0 {
		fmt.Fprintf(&b, "\n%d passing scenario(s) left out (-only-failures).\n", passed)
	}
	if opts.Baseline != nil {
		b.WriteString("\n## Regressions\n\n")
		if err := WriteRegressions(&b, regs, tol); err != nil {
			return err
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// verdict is the report's first sentence: "**FAIL:** 1 of 3 scenarios
// passed; 1 could not be checked (bad input); 1 failed." or "**PASS:** 1
// of 1 scenarios passed, but 3 figures regressed …".
func (c *Check) verdict(regs []Regression, baseline bool) string {
	failed := len(c.Failed())
	total := len(c.Results) + len(c.Bad)
	s := fmt.Sprintf("%d of %d scenarios passed", len(c.Results)-failed, total)
	if len(c.Bad) > 0 {
		s += fmt.Sprintf("; %d could not be checked (bad input)", len(c.Bad))
	}
	if failed > 0 {
		s += fmt.Sprintf("; %d failed", failed)
	}
	switch {
	case len(regs) > 0 && (failed > 0 || len(c.Bad) > 0):
		s += "; " + regressionSummary(regs)
	case len(regs) > 0:
		s += ", but " + regressionSummary(regs)
	case baseline:
		s += "; no figure regressed past the allowed change"
	}
	if len(c.Bad) > 0 || failed > 0 || len(regs) > 0 {
		return "**FAIL:** " + strings.TrimSuffix(s, ".") + "."
	}
	return "**PASS:** " + s + "."
}

func statusRank(s Status) int {
	if s == Error {
		return 0
	}
	return 1
}

// statusCounts says how many rows have each status: "12 pass, 2 skipped".
func statusCounts(rows []ExpectationRow) string {
	var parts []string
	for _, st := range []Status{Pass, Fail, Flaky, Skipped, Error} {
		n := 0
		for _, r := range rows {
			if r.Status == st {
				n++
			}
		}
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, st))
		}
	}
	return strings.Join(parts, ", ")
}

// StepSummaryLimit is the most characters a report puts in a GitHub step
// summary: GitHub's limit for a comment, where a summary is often pasted,
// and well under its 1 MiB limit for one step's summary.
const StepSummaryLimit = 65536

// FitStepSummary returns the markdown report cut to at most limit bytes
// (and so at most limit characters), with a note saying where the full
// report is. The cut falls at the end of a line, so that no table row is
// cut in two, and a <details> block the cut leaves open is closed. Since
// the report puts failures first, they are the last to go.
func FitStepSummary(md []byte, limit int, fullReport string) []byte {
	if len(md) <= limit {
		return md
	}
	if fullReport == "" {
		fullReport = "in the job log"
	}
	note := fmt.Sprintf("\n**The report was cut to fit the step summary** (%d of its %d bytes); the full report is %s.\n", 0, len(md), fullReport)
	budget := limit - len(note) - len("\n</details>\n") - 16 // room for the count's digits
	cut := md[:max(budget, 0)]
	if i := bytes.LastIndexByte(cut, '\n'); i >= 0 {
		cut = cut[:i+1]
	}
	out := bytes.Clone(cut)
	if bytes.Count(out, []byte("<details>")) > bytes.Count(out, []byte("</details>")) {
		out = append(out, "\n</details>\n"...)
	}
	note = fmt.Sprintf("\n**The report was cut to fit the step summary** (%d of its %d bytes); the full report is %s.\n", len(cut), len(md), fullReport)
	return append(out, note...)
}
