package report

import (
	"encoding/xml"
	"io"
	"strings"

	"github.com/agentretrieval/agentretrieval/internal/printable"
)

// JUnit XML, in the shape CI systems (GitHub Actions reporters, GitLab,
// Jenkins) read: <testsuites> holding one <testsuite> per scenario and one
// <testcase> per expectation. A failed expectation has a <failure> whose
// message is the row's Message and whose text gives the measured value,
// threshold and evidence; a skipped one has <skipped>; a scenario that
// could not be checked (bad input) has an <error> whose text lists every
// problem at its file:line:col. A flaky failure is a
// passing test case whose <system-out> says it failed, so that CI shows it
// without failing.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Error     *junitFailure `xml:"error,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr,omitempty"`
}

// JUnitOptions configure WriteJUnit.
type JUnitOptions struct {
	// Name names the <testsuites> element; default "retrievaltest".
	Name string
}

// WriteJUnit writes rows as JUnit XML: one test suite per scenario (sorted
// by name), one test case per expectation (in row order), named as in the
// expectations table (ExpectationRow.Name) with the scenario as class name.
// Control characters, which XML 1.0 cannot hold or a terminal showing the
// file would obey, are written escaped (printable.Text: "\u001b").
func WriteJUnit(w io.Writer, rows []ExpectationRow, opts JUnitOptions) error {
	esc := printable.Text
	doc := junitSuites{Name: esc(opts.Name)}
	if doc.Name == "" {
		doc.Name = "retrievaltest"
	}
	for _, r := range sortExpectations(rows) {
		scenario := esc(r.Scenario)
		if n := len(doc.Suites); n == 0 || doc.Suites[n-1].Name != scenario {
			doc.Suites = append(doc.Suites, junitSuite{Name: scenario})
		}
		s := &doc.Suites[len(doc.Suites)-1]
		c := junitCase{Name: esc(r.Name()), Classname: scenario, File: esc(r.Pos)}
		switch r.Status {
		case Fail:
			c.Failure = &junitFailure{Message: esc(r.Message), Type: esc(r.Type), Text: esc(details(r))}
			s.Failures++
		case Error:
			c.Error = &junitFailure{Message: esc(r.Description), Type: "input", Text: esc(strings.Join(r.Evidence, "\n") + "\n")}
			s.Errors++
		case Skipped:
			c.Skipped = &junitSkipped{Message: esc(r.Message)}
			s.Skipped++
		case Flaky:
			c.SystemOut = esc("flaky: failed, and marked flaky so it does not fail the run\n" + r.Message + "\n" + details(r))
		}
		s.Tests++
		s.Cases = append(s.Cases, c)
	}
	for _, s := range doc.Suites {
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
		doc.Skipped += s.Skipped
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// details is the text of a failure: measured value, threshold, evidence.
func details(r ExpectationRow) string {
	var b strings.Builder
	b.WriteString("measured: " + r.Measured + "\n")
	b.WriteString("threshold: " + r.Threshold + "\n")
	if len(r.Evidence) > 0 {
		b.WriteString("evidence:\n")
		for _, e := range r.Evidence {
			b.WriteString("  " + e + "\n")
		}
	}
	return b.String()
}
