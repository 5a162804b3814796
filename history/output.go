package history

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/agentretrieval/agentretrieval/report"
)

// WriteRuns writes runs as a markdown table: run (linked to its CI page
// when recorded), time, branch, commit, scenarios and how many failed,
// were flaky or could not be checked, and the report's link. When a run
// holds an evaluated benchmark run (run-dir, merge), three columns give its
// configurations, trials and failed trials.
func WriteRuns(w io.Writer, runs []RunSummary) error {
	if len(runs) == 0 {
		_, err := io.WriteString(w, "No run recorded matches.\n")
		return err
	}
	evaluated := slices.ContainsFunc(runs, func(r RunSummary) bool { return r.Configs > 0 })
	var b strings.Builder
	if evaluated {
		b.WriteString("| Run | Time (UTC) | Branch | Commit | Scenarios | Failed | Flaky | Errors | Configurations | Trials | Failed trials | Report |\n" +
			"|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n")
	} else {
		b.WriteString("| Run | Time (UTC) | Branch | Commit | Scenarios | Failed | Flaky | Errors | Report |\n|---|---|---|---|---:|---:|---:|---:|---|\n")
	}
	for _, r := range runs {
		run := report.Escape(r.Key)
		if r.URL != "" {
			run = "[" + run + "](" + r.URL + ")"
		}
		rep := ""
		if r.ReportURL != "" {
			rep = "[report](" + r.ReportURL + ")"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d | %d | %d | %d |", run, r.Time.Format("2006-01-02 15:04"),
			report.Escape(r.Branch), shortCommit(r.Commit), r.Scenarios, r.Failed, r.Flaky, r.Errored)
		if evaluated {
			fmt.Fprintf(&b, " %d | %d | %d |", r.Configs, r.Trials, r.FailedTrials)
		}
		fmt.Fprintf(&b, " %s |\n", rep)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteFlaky writes flaky expectations as a markdown table, or a line
// saying there is none.
func WriteFlaky(w io.Writer, list []FlakyExpectation) error {
	if len(list) == 0 {
		_, err := io.WriteString(w, "No expectation changed its outcome across runs of the same traces and settings.\n")
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**%d flaky expectation(s)**: outcome changed across runs of the same traces and settings.\n\n", len(list))
	b.WriteString("| Scenario | Expectation | Pass rate | Passed | Traces |\n|---|---|---:|---:|---|\n")
	for _, f := range list {
		name := f.Type
		if f.Description != "" {
			name += ": " + f.Description
		}
		fmt.Fprintf(&b, "| %s | %s | %.0f%% | %d of %d | %s |\n", report.Escape(f.Scenario), report.Escape(name),
			100*f.PassRate(), f.Passed, f.Judged, shortDigest(f.TraceDigest))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
