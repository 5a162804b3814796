package history

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"

	"github.com/agentretrieval/agentretrieval/expectations"
	"github.com/agentretrieval/agentretrieval/report"
)

// Scenarios turns a check report into the scenarios of a run: each
// evaluated scenario with its figures (the report's, which a baseline
// file records), its expectations and the digest of its traces, and each
// scenario that could not be checked with status "error".
//
// The traces are read again for their digest; a trace that cannot be read
// now is an error.
func Scenarios(c *report.Check) ([]Scenario, error) {
	var out []Scenario
	for _, res := range c.Results {
		sc := Scenario{Name: res.Name, File: res.File, Status: scenarioStatus(res), Figures: c.Figures.Entries[res.Name]}
		// The traces judged: a scenario's files, or those its run: command
		// recorded. A file holding several sessions counts once.
		var traces []string
		for _, r := range res.Runs {
			if !slices.Contains(traces, r.Trace) {
				traces = append(traces, r.Trace)
			}
		}
		if len(traces) == 0 && res.Scenario != nil {
			traces = res.Scenario.Traces
		}
		digest, err := TraceDigest(traces)
		if err != nil {
			return nil, fmt.Errorf("scenario %s: %w", res.Name, err)
		}
		sc.TraceDigest = digest
		for i, r := range res.Results {
			e := Expectation{
				Type: r.Type, Description: r.Description, Status: Status(report.StatusOf(r)), FlakyMarked: r.Flaky,
				Measured: r.Measured, Threshold: r.Threshold,
			}
			for _, o := range r.Runs {
				switch o.Status {
				case expectations.Pass:
					e.RunsPassed++
					e.RunsJudged++
				case expectations.Fail:
					e.RunsJudged++
				}
			}
			var exp *expectations.Expectation
			if res.Scenario != nil && i < len(res.Scenario.Expectations) {
				exp = res.Scenario.Expectations[i]
			}
			if e.SettingsDigest, err = settingsDigest(res.Scenario, exp, r); err != nil {
				return nil, fmt.Errorf("scenario %s: %w", res.Name, err)
			}
			sc.Expectations = append(sc.Expectations, e)
		}
		out = append(out, sc)
	}
	for _, b := range c.Bad {
		out = append(out, Scenario{Name: cmp.Or(b.Name, b.File), File: b.File, Status: Error})
	}
	return out, nil
}

// scenarioStatus is a scenario's outcome as the check report's index table
// shows it: fail, flaky, skipped (every expectation skipped) or pass.
func scenarioStatus(res *expectations.ScenarioResult) Status {
	out, skipped := Pass, 0
	for _, r := range res.Results {
		switch report.StatusOf(r) {
		case report.Fail:
			return Fail
		case report.Flaky:
			out = Flaky
		case report.Skipped:
			skipped++
		}
	}
	if skipped > 0 && skipped == len(res.Results) {
		return Skipped
	}
	return out
}

// TraceDigest is the SHA-256, as "sha256:" and hex, of the trace files in
// order: each file's size in decimal, a newline and its bytes. It is ""
// for no file.
func TraceDigest(files []string) (string, error) {
	if len(files) == 0 {
		return "", nil
	}
	h := sha256.New()
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return "", fmt.Errorf("trace digest: %w", err)
		}
		info, err := f.Stat()
		if err == nil {
			_, err = io.WriteString(h, strconv.FormatInt(info.Size(), 10)+"\n")
		}
		if err == nil {
			_, err = io.Copy(h, f)
		}
		f.Close()
		if err != nil {
			return "", fmt.Errorf("trace digest: %s: %w", name, err)
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// settingsDigest is the SHA-256 of what decides an expectation's outcome
// besides the traces, as JSON: its type, description, flaky mark and
// parameters, and the scenario's runs rule, ground truth (without the name
// of its file, which another machine may place elsewhere) and reading
// options.
func settingsDigest(s *expectations.Scenario, e *expectations.Expectation, r *expectations.Result) (string, error) {
	doc := struct {
		Type, Description string
		Flaky             bool
		Params            any
		Runs              *expectations.RunsRule
		Truth             any
		Profiles          []string
		Format, TraceID   string
	}{Type: r.Type, Description: r.Description, Flaky: r.Flaky}
	if e != nil {
		doc.Params = e.Params
	}
	if s != nil {
		doc.Runs, doc.Profiles, doc.Format, doc.TraceID = &s.Runs, s.Profiles, s.Format, s.TraceID
		if t := s.GroundTruth; t != nil {
			doc.Truth = struct{ Files, Symbols, EditFiles, Chunks any }{t.Files, t.Symbols, t.EditFiles, t.Chunks}
		}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return "", fmt.Errorf("the settings of expectation %s cannot be recorded: %w", r.Type, err)
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}
