package expectations

import "github.com/agentretrieval/agentretrieval/metrics"

// Status is the outcome of an expectation.
type Status string

// The statuses. Skipped is for what cannot be judged from a trace (a
// live-run check); it neither passes nor fails a scenario.
const (
	Pass    Status = "pass"
	Fail    Status = "fail"
	Skipped Status = "skipped"
)

// An Outcome is what a validator returns for one run.
type Outcome struct {
	Status Status `json:"status"`
	// Measured is the measured value, formatted for people ("0.62", "4
	// steps", "fishing at steps 1–5").
	Measured string `json:"measured"`
	// Threshold is what was required, formatted ("≥ 0.60").
	Threshold string `json:"threshold"`
	// Evidence lists step indices, file names and the like that support
	// the outcome.
	Evidence []string `json:"evidence,omitempty"`
	// Message says in one sentence what held or did not.
	Message string `json:"message"`
}

// A Result is the outcome of one expectation over a scenario's runs.
type Result struct {
	Scenario    string `json:"scenario"`
	Type        string `json:"type"`
	Description string `json:"description,omitempty"`
	// Status is the combined outcome under the scenario's runs rule. A
	// flaky expectation that failed has Status Fail and Flaky true; it does
	// not fail the scenario.
	Status    Status   `json:"status"`
	Flaky     bool     `json:"flaky,omitempty"`
	Measured  string   `json:"measured"`
	Threshold string   `json:"threshold"`
	Evidence  []string `json:"evidence,omitempty"`
	Message   string   `json:"message"`
	// Runs are the per-run outcomes, in trace order.
	Runs []RunOutcome `json:"runs"`
	// PassRate is the pass rate of the judged runs with its 95% Wilson
	// interval, pass@k and pass^k at every k; nil when no run was judged.
	PassRate *metrics.PassRate `json:"pass_rate,omitempty"`
	Pos      Pos               `json:"pos"`
}

// RunOutcome is one run's outcome of an expectation.
type RunOutcome struct {
	Trace string `json:"trace"`
	Outcome
}

// Failed reports whether the result fails its scenario: it failed and is
// not flaky.
func (r *Result) Failed() bool { return r.Status == Fail && !r.Flaky }

// A ScenarioResult is the outcome of a whole scenario.
type ScenarioResult struct {
	Scenario *Scenario `json:"-"`
	Name     string    `json:"name"`
	File     string    `json:"file"`
	// Runs are the measured runs, in trace order.
	Runs    []*Run    `json:"-"`
	Results []*Result `json:"results"`
}

// Failed reports whether any expectation failed the scenario.
func (s *ScenarioResult) Failed() bool {
	for _, r := range s.Results {
		if r.Failed() {
			return true
		}
	}
	return false
}
