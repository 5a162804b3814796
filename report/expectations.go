package report

import (
	"cmp"
	"io"
	"slices"
	"strings"
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
)

// cell renders the status for a table: failures stand out in bold.
func (s Status) cell() string {
	switch s {
	case Fail:
		return "**FAIL**"
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

// WriteExpectationsTable writes the expectations table:
//
//	| Scenario | Expectation | Measured | Threshold | Result | Evidence (step N = N-th tool call) |
//
// with Result one of pass, **FAIL**, skipped or flaky. Rows are sorted by
// scenario; within a scenario they keep their order.
func WriteExpectationsTable(w io.Writer, rows []ExpectationRow) error {
	header := []string{"Scenario", "Expectation", "Measured", "Threshold", "Result", "Evidence (step N = N-th tool call)"}
	var cells [][]string
	for _, r := range sortExpectations(rows) {
		ev := make([]string, len(r.Evidence))
		for i, e := range r.Evidence {
			ev[i] = Escape(e)
		}
		cells = append(cells, []string{
			Escape(r.Scenario), Escape(r.Name()), Escape(r.Measured), Escape(r.Threshold),
			r.Status.cell(), strings.Join(ev, "; "),
		})
	}
	return writeTable(w, header, cells)
}
