// Package report turns retrieval measurements into what people and CI
// systems read: GitHub-flavoured markdown tables, JSON, JUnit XML, GitHub
// Actions annotations, baseline files, and the rendering of benchmark run summaries and comparisons
// (computed by package runs).
//
// Its tables take plain rows, not the types of the stages before it, so
// that a caller that measures retrieval its own way can still report it.
// NewCheck fills the rows from scenario results (the check command's
// report); WriteRun from a run summary (the report command's).
//
// # Markdown
//
// Every table is written in GFM form (writeTable), left-aligned, never
// wrapped and not padded (padding does not render, and only lengthens a
// pull-request comment), with rows sorted so that the same input gives the
// same bytes.
// Text cells go through Escape ("|" becomes "\|", line breaks "<br>", and
// markdown syntax characters are escaped, so a path or tool name cannot end
// a cell or start a code span); identifiers can be shown as code with Code.
// Figures are formatted by FormatValue: ratios with two decimals, counts as
// integers.
//
//   - WriteIndexTable: the index-effectiveness table,
//     | Scenario | Semantic ratio | Steps to target | Patterns | Scenario result |,
//     the last column being the scenario's overall result, then
//     "**Aggregate:** 58.5% semantic tool usage (target: 60%)", the mean of
//     the scenarios' semantic ratios, and the scenarios without one. An
//     agent whose tool list has no semantic tool shows "no semantic tool
//     offered" instead of a ratio, its fishing and guessing as information,
//     and is left out of the mean.
//   - WriteRetrievalTable: one column per metric, headed by the metric's
//     label that names its definition ("Recall@5 (TREC)"); a figure without
//     a value is "n/a" with a footnote giving the reason.
//   - WriteExpectationsTable:
//     | Scenario | Expectation | Measured | Threshold | Result | Evidence (step N = N-th tool call) |,
//     Result one of pass, **FAIL**, **ERROR** (a scenario that could not
//     be checked), skipped, flaky; a failure without evidence shows its
//     message there, and long cells are cut with "…".
//   - WriteSummaryTable: one line per configuration of a run summary
//     (runs.Summary).
//   - WriteComparison: a matched comparison (runs.Compare), with the
//     association note.
//   - WriteFormats: the trace formats a registry reads (trace.FormatInfo).
//
// # Baselines
//
// A Baseline is a JSON file of figures per scenario or task (version 1),
// written atomically by WriteBaseline and checked for its version by
// ReadBaseline. Given a baseline, the tables show each figure's change,
// "0.62 (+0.08) ▲", with ▲ for better and ▼ for worse by the metric's
// direction (DirectionOf: higher is better for recall and the semantic
// ratio, lower for steps, seconds, tokens and error counts). Regressions
// lists the figures worse than the baseline by more than one allowed delta,
// RegressionsWithin by a tolerance per figure kind (ratio, steps, seconds,
// tokens, count; KindOf) and per figure name (Tolerances, read from the
// CLI's -max-regression by ParseTolerances, with DefaultTolerances), and
// figures that lost their value. A change reads in one unit everywhere
// (DeltaText): percentage points for the semantic ratio, the figure's own
// units otherwise.
//
// # Check reports
//
// NewCheck turns evaluated scenarios, and the scenarios that could not be
// checked (expectations.ScenarioError, each an **ERROR** row with every
// problem at its file:line:col), into a Check: an index-effectiveness
// row per scenario (the mean semantic ratio of its runs, their lower-median
// steps to target, every pattern seen, the outcome of its index_usage
// expectations), a retrieval row (each metric's mean over the runs), a row
// per expectation, and the figures a baseline file records. Check.Write
// renders it as markdown, JSON, JUnit or GitHub annotations (CheckFormats).
// The markdown puts the verdict and the failures first and collapses the
// other expectations under <details> (CheckOptions.OnlyFailures leaves
// passing scenarios out). Check.Publish writes the report, the annotations
// and the GitHub Actions step summary, cut by FitStepSummary to
// StepSummaryLimit characters with a note saying where the full report is.
//
// # Run reports
//
// WriteRun writes, for each configuration of a run summary, the
// index-effectiveness table and the retrieval table of its task runs, and
// with a baseline keyed "<config>/<task>" (RunBaseline) the regressions
// against it. Every file this package writes (baselines) is replaced
// atomically: a temporary file in the same folder, synced, then renamed.
//
// # JUnit
//
// WriteJUnit writes one <testsuite> per scenario and one <testcase> per
// expectation; a failure carries the message, measured value, threshold
// and evidence, a skipped expectation is <skipped>, and a flaky failure
// passes with a note in <system-out>; a scenario that could not be checked
// has an <error>.
//
// # GitHub annotations
//
// WriteGitHubAnnotations writes one "::error file=…,line=…,col=…,title=…::"
// workflow command per failure, escaped as the runner expects, so that it
// shows on the expectation's line of the scenario file.
//
// # Comparisons
//
// WriteComparison renders runs.Compare's result: the matched and unmatched
// tasks, the paired differences of each metric with their bootstrap CI,
// Wilcoxon and sign tests, the Spearman correlations with the reward, and
// the note that these are associations, not causes.
package report
