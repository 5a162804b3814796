package report

import (
	"cmp"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// Status is the outcome of an expectation as a report shows it.
type Status string

const (
	Pass    Status = "pass"
	Fail    Status = "fail"
	Skipped Status = "skipped"
	// Flaky is an expectation marked flaky that failed: it is reported and
	// never fails the run. A flaky expectation that passed is Pass.
	Flaky Status = "flaky"
	// Error is a scenario that could not be checked: its file did not
	// load, or a trace it names could not be read. It fails the run as bad
	// input.
	Error Status = "error"
)

// cell renders the status for a table: failures stand out in bold.
func (s Status) cell() string {
	switch s {
	case Fail:
		return "**FAIL**"
	case Error:
		return "**ERROR**"
	case "":
		return "—"
	}
	return Escape(string(s))
}

// An ExpectationRow is one expectation of one scenario, as the
// expectations table and the JUnit XML show it. The check command fills
// these from the results of the expectations package.
type ExpectationRow struct {
	Scenario string
	// Type is the expectation type ("index_usage", "retrieval", …).
	Type string
	// Description is the expectation's description; may be empty.
	Description string
	Status      Status
	// Measured and Threshold are formatted for people ("0.45", "≥ 0.60").
	Measured  string
	Threshold string
	// Evidence lists step indices, file names and the like.
	Evidence []string
	// Message says in one sentence what held or did not; it is the JUnit
	// failure or skip message.
	Message string
	// Pos is where the expectation is written, "file:line:col"; may be
	// empty.
	Pos string
}

// Name is how the expectation is named in a table and in JUnit: its type,
// and its description when it has one ("index_usage: Agent should use
// semantic tools").
func (r ExpectationRow) Name() string {
	if r.Description == "" {
		return r.Type
	}
	if r.Type == "" {
		return r.Description
	}
	return r.Type + ": " + r.Description
}

// sortExpectations orders rows by scenario and keeps the order of the
// expectations within one scenario, which is the order of the scenario
// file.
func sortExpectations(rows []ExpectationRow) []ExpectationRow {
	rows = slices.Clone(rows)
	slices.SortStableFunc(rows, func(a, b ExpectationRow) int { return cmp.Compare(a.Scenario, b.Scenario) })
	return rows
}

// The longest cells of the expectations table, in characters: a cell
// longer than this is cut with "…" (the JSON report keeps the full text),
// so that one expectation with a long list of evidence cannot fill a pull
// request comment.
const (
	maxNameCell     = 120
	maxMeasureCell  = 160
	maxEvidenceCell = 400
	// A scenario that could not be checked has one row for all of its
	// problems: its cell may be longer.
	maxErrorCell = 1200
)

// WriteExpectationsTable writes the expectations table:
//
//	| Scenario | Expectation | Measured | Threshold | Result | Evidence (step N = N-th tool call) |
//
// with Result one of pass, **FAIL**, **ERROR** (a scenario that could
// not be checked), skipped or flaky. Rows are sorted by scenario; within a
// scenario they keep their order. A failed expectation with no evidence
// shows its message there, which says why a figure is n/a. Cells longer
// than a few hundred characters are cut with "…".
func WriteExpectationsTable(w io.Writer, rows []ExpectationRow) error {
	return writeExpectationsTable(w, sortExpectations(rows))
}

// writeExpectationsTable writes the rows in their order.
func writeExpectationsTable(w io.Writer, rows []ExpectationRow) error {
	header := []string{"Scenario", "Expectation", "Measured", "Threshold", "Result", "Evidence (step N = N-th tool call)"}
	var cells [][]string
	for _, r := range rows {
		evidence := strings.Join(r.Evidence, "; ")
		if evidence == "" && r.Status != Pass {
			evidence = r.Message
		}
		limit := maxEvidenceCell
		if r.Status == Error {
			limit = maxErrorCell
		}
		cells = append(cells, []string{
			Escape(cutCell(r.Scenario, maxNameCell)), Escape(cutCell(r.Name(), maxNameCell)),
			Escape(cutCell(r.Measured, maxMeasureCell)), Escape(cutCell(r.Threshold, maxMeasureCell)),
			r.Status.cell(), Escape(cutCell(evidence, limit)),
		})
	}
	return writeTable(w, header, cells)
}

// cutCell cuts s to at most n characters, ending it with "…" when cut.
func cutCell(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	runes := []rune(s)
	return strings.TrimRight(string(runes[:n-1]), " ;,") + "…"
}
