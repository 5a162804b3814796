package expectations_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"maps"
	"slices"

	"github.com/agentretrieval/agentretrieval/expectations"
	"github.com/agentretrieval/agentretrieval/groundtruth"
)

// Evaluate measures each trace of a scenario and checks every expectation
// on it. A failed expectation says what was measured against what was
// required, with the steps that show it.
func ExampleEvaluate() {
	// Parse is Load on bytes; the file name anchors the relative paths.
	s, err := expectations.Parse("testdata/scenarios/grep-first.yaml", []byte(`
trace: ../traces/grep-then-read.toolcalls.json
profile: aura
ground_truth: [pkg/auth/token.go]
expectations:
  - type: index_usage
    min_semantic_ratio: 0.6
  - type: retrieval
    recall@1: {min: 1}
`), expectations.LoadOptions{})
	if err != nil {
		log.Fatal(err)
	}
	res, err := expectations.Evaluate(s, expectations.EvalOptions{})
	if err != nil {
		log.Fatal(err) // a trace that cannot be read
	}
	for _, r := range res.Results {
		fmt.Printf("%s %s: %s\n", r.Type, r.Status, r.Message)
		for _, ev := range r.Evidence {
			fmt.Println("  evidence:", ev)
		}
	}
	fmt.Println("scenario failed:", res.Failed())
	// Output:
	// index_usage fail: semantic ratio measured 0.00, required ≥ 0.60 (0 semantic of 3 semantic + file-level calls; guessing at step 1)
	//   evidence: guessing at step 1: grep_search searched text for "ValidateToken" before any semantic call
	// retrieval pass: recall@1 1.00, required ≥ 1.00 (relevant: pkg/auth/token.go at rank 1)
	// scenario failed: true
}

// Measure reads one trace and measures it, for a caller that checks runs
// its own way (retrievaltest's Assert functions take the Run it returns).
func ExampleMeasure() {
	truth, err := groundtruth.Parse("truth.yaml", []byte("[pkg/auth/token.go]"))
	if err != nil {
		log.Fatal(err)
	}
	run, err := expectations.Measure("testdata/traces/index-first-then-edit.toolcalls.json", expectations.MeasureOptions{
		Profiles: []string{"aura"},
		Truth:    truth,
	})
	if err != nil {
		log.Fatal(err)
	}
	ie := run.Metrics.IndexEffectiveness
	fmt.Printf("semantic ratio %.2f, steps to target %d, grade %s\n", *ie.SemanticRatio, *ie.StepsToTarget, ie.Grade)
	recall, _ := run.Metrics.Metric("recall@5")
	fmt.Printf("recall@5 %.2f\n", recall)
	// Output:
	// semantic ratio 0.67, steps to target 1, grade good
	// recall@5 1.00
}

// Register adds a type given as a Type value: its keys come from the
// Params struct's tags, and Validate rejects what no key alone can (here,
// a bound that no run could pass). A scenario that breaks either rule does
// not load.
func ExampleRegistry_Register() {
	type ReadBudget struct {
		MaxReads *int `yaml:"max_reads" doc:"most file_read calls" min:"0"`
		MinReads *int `yaml:"min_reads" doc:"fewest file_read calls" min:"0"`
	}
	reg := expectations.DefaultRegistry()
	err := reg.Register(expectations.Type{
		Name:        "read_budget",
		Description: "the number of file reads stays within bounds",
		Params:      ReadBudget{},
		Validate: func(params any) error {
			p := params.(*ReadBudget)
			if p.MaxReads != nil && p.MinReads != nil && *p.MinReads > *p.MaxReads {
				return errors.New("min_reads is above max_reads: no run can pass")
			}
			return nil
		},
		Check: func(params any, run *expectations.Run) expectations.Outcome {
			p := params.(*ReadBudget)
			reads := 0
			for _, ev := range run.Document.Events {
				if ev.ToolCategory == "file_read" {
					reads++
				}
			}
			o := expectations.Outcome{Status: expectations.Pass, Measured: fmt.Sprint(reads)}
			if p.MaxReads != nil && reads > *p.MaxReads || p.MinReads != nil && reads < *p.MinReads {
				o.Status = expectations.Fail
			}
			o.Message = fmt.Sprintf("%d file reads", reads)
			return o
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, keys := range []string{"max_reads: 1", "max_raeds: 1", "min_reads: 3\n    max_reads: 1"} {
		src := "trace: ../traces/grep-then-read.toolcalls.json\nexpectations:\n  - type: read_budget\n    " + keys + "\n"
		s, err := expectations.Parse("testdata/scenarios/reads.yaml", []byte(src), expectations.LoadOptions{Registry: reg})
		if err != nil {
			fmt.Println(err)
			continue
		}
		res, err := expectations.Evaluate(s, expectations.EvalOptions{Registry: reg})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(res.Results[0].Status, "-", res.Results[0].Message)
	}
	// Output:
	// fail - 2 file reads
	// testdata/scenarios/reads.yaml:4:5: unknown key "max_raeds" in read_budget; did you mean max_reads?
	// testdata/scenarios/reads.yaml:3:5: read_budget: min_reads is above max_reads: no run can pass
}

// JSONSchema describes scenario files for editors, generated from the
// same parameter structs the loader checks with, so a type of your own
// gets its keys in the schema too.
func ExampleRegistry_JSONSchema() {
	var schema struct {
		Schema string `json:"$schema"`
		Defs   map[string]struct {
			Properties map[string]struct {
				Description string   `json:"description"`
				Minimum     *float64 `json:"minimum"`
			} `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(expectations.DefaultRegistry().JSONSchema(), &schema); err != nil {
		log.Fatal(err)
	}
	fmt.Println(schema.Schema)
	budget := schema.Defs["expectation.budget"].Properties
	for _, key := range slices.Sorted(maps.Keys(budget)) {
		p := budget[key]
		if p.Description == "" {
			continue // type, whose schema is the type's name
		}
		fmt.Printf("budget.%s: %s", key, p.Description)
		if p.Minimum != nil {
			fmt.Printf(" (minimum %g)", *p.Minimum)
		}
		fmt.Println()
	}
	// Output:
	// https://json-schema.org/draft/2020-12/schema
	// budget.description: what the expectation checks, in words
	// budget.flaky: report the outcome but never fail the scenario
	// budget.max_calls_before_first_relevant: most calls before the first call that names a relevant file (minimum 0)
	// budget.max_seconds_before_first_relevant: most seconds from the start of the run to the first call that names a relevant file (minimum 0)
	// budget.max_tokens_before_first_relevant: most cumulative tokens at the first call that names a relevant file (minimum 0)
	// budget.max_total_calls: most tool calls in the run (minimum 0)
	// budget.max_total_tokens: most tokens in the session (minimum 0)
}
