package expectations

import (
	"fmt"

	"github.com/agentretrieval/agentretrieval/groundtruth"
)

// A Scenario is one scenario file: the runs of one task, what the right
// answer is, and the expectations its retrieval must meet.
type Scenario struct {
	Name        string
	Description string
	// File is the scenario file's path as given to Load.
	File string
	// Traces are the trace files of the scenario's runs, resolved against
	// the scenario file's folder, globs expanded and sorted.
	Traces []string
	// TracePos is where each of Traces is named in the file (a glob's
	// matches share its position), for errors about reading a trace.
	TracePos []Pos
	// TraceID picks one session of a trace file that holds several (an
	// OpenTelemetry trace id, an OpenHands instance_id); "" means each
	// trace file must hold one session.
	TraceID string
	// CWD is the agent's working directory: absolute paths below it are
	// made relative to it, in the traces and in the ground truth alike. ""
	// means the one each trace records, if any.
	CWD string
	// Format forces a trace reader ("" detects).
	Format string
	// Profiles are the taxonomy profiles (nil means all built-in ones).
	Profiles []string
	// Taxonomy is a user taxonomy file, resolved against the scenario's
	// folder ("" for none).
	Taxonomy string
	// GroundTruth is the scenario's ground truth, loaded (inline or from a
	// file, task folder or diff); nil when the scenario has none.
	GroundTruth *groundtruth.Truth
	// Symbols is an index symbol file ("" for none).
	Symbols string
	// Expectations are checked against every run.
	Expectations []*Expectation
	// Runs decides how per-run outcomes combine.
	Runs RunsRule
	// Tags are the scenario's labels, for selecting scenarios.
	Tags []string
	// Harness holds the keys of the index-effectiveness harness's scenario
	// format (story, repository, executor, timeoutSeconds, language, …),
	// accepted as written and not interpreted.
	Harness map[string]any
	// Run is the command (program and arguments) whose run Evaluate
	// records before judging it (the run key); nil means the traces are
	// given and nothing is executed.
	Run []string
}

// An Expectation is one entry of a scenario's expectations list.
type Expectation struct {
	// Type names the registered type ("index_usage", "retrieval", …).
	Type        string
	Description string
	// Flaky expectations are reported but never fail the scenario.
	Flaky bool
	// Params holds the decoded type-specific keys: a pointer to the
	// registered type's parameter struct. Nil for a live-run type.
	Params any
	// Pos is where the expectation starts in its file.
	Pos Pos
}

// Pos is a position in a scenario file.
type Pos struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
}

// String returns "file:line:col", the form editors and CI logs link.
func (p Pos) String() string { return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col) }

// RunsRule decides whether an expectation holds over several runs of the
// same task. The zero value requires every run to pass. At most one of the
// thresholds is set; K goes with MinPassAtK or MinPassHatK.
type RunsRule struct {
	// MinPassRate is the lowest fraction of runs that must pass, in [0,1].
	MinPassRate *float64 `yaml:"min_pass_rate" json:"min_pass_rate,omitempty"`
	// AtLeast is the lowest number of runs that must pass.
	AtLeast *int `yaml:"at_least" json:"at_least,omitempty"`
	// K is the number of runs drawn for pass@k and pass^k.
	K *int `yaml:"k" json:"k,omitempty"`
	// MinPassAtK is the lowest unbiased pass@k (metrics.PassAtK): the
	// chance that at least one of k runs drawn from these passes.
	MinPassAtK *float64 `yaml:"min_pass_at_k" json:"min_pass_at_k,omitempty"`
	// MinPassHatK is the lowest unbiased pass^k (metrics.PassHatK): the
	// chance that all k runs drawn pass.
	MinPassHatK *float64 `yaml:"min_pass_hat_k" json:"min_pass_hat_k,omitempty"`
	// MinWilsonLow is the lowest lower bound of the 95% Wilson score
	// interval of the pass rate: the pass rate must be high with
	// confidence, not only on the runs at hand.
	MinWilsonLow *float64 `yaml:"min_wilson_low" json:"min_wilson_low,omitempty"`
}
