package expectations_test

import (
	"fmt"
	"log"

	"github.com/agentretrieval/agentretrieval/expectations"
)

// Load a scenario with three recorded runs of one task and judge them: two
// runs start from the index, the third greps, and the scenario asks for a
// pass rate of 0.6.
func Example() {
	s, err := expectations.Load("testdata/scenarios/fix-token-expiry.yaml", expectations.LoadOptions{})
	if err != nil {
		log.Fatal(err) // every problem of the file, one per line
	}
	res, err := expectations.Evaluate(s, expectations.EvalOptions{})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range res.Results {
		fmt.Printf("%s: %s, %s\n", r.Type, r.Status, r.Measured)
		for _, run := range r.Runs {
			if run.Status == expectations.Fail {
				fmt.Printf("  %s\n", run.Message)
			}
		}
	}
	fmt.Println("scenario failed:", res.Failed())
	// Output:
	// index_usage: pass, 2 of 3 runs passed
	//   semantic ratio measured 0.00, required ≥ 0.60 (0 semantic of 3 semantic + file-level calls; guessing at step 1)
	// retrieval: pass, 3 of 3 runs passed
	// patterns: pass, 2 of 3 runs passed
	//   guessing measured 1 occurrence at step 1, required none (grep_search searched text for "ValidateToken", a symbol the index knows)
	// utilization: pass, 3 of 3 runs passed
	// scenario failed: false
}

// A misspelt key is an error at its line and column, with the key it was
// probably meant to be.
func ExampleLoad() {
	_, err := expectations.Load("testdata/scenarios/bad/typo-key.yaml", expectations.LoadOptions{})
	fmt.Println(err)
	// Output:
	// testdata/scenarios/bad/typo-key.yaml:8:5: unknown key "min_aura_tool_raito" in index_usage; did you mean min_aura_tool_ratio?
}

// A type of your own takes its keys from its parameter struct, and is
// checked as strictly as the built-in ones.
func ExampleRegisterFunc() {
	type MaxEdits struct {
		Max *int `yaml:"max" doc:"most edit calls" min:"0"`
	}
	reg := expectations.DefaultRegistry()
	err := expectations.RegisterFunc(reg, "max_edits", "edit calls are few",
		func(p *MaxEdits, run *expectations.Run) expectations.Outcome {
			edits := run.Metrics.IndexEffectiveness.EditCalls
			o := expectations.Outcome{Status: expectations.Pass, Measured: fmt.Sprint(edits), Threshold: fmt.Sprintf("≤ %d", *p.Max)}
			if edits > *p.Max {
				o.Status = expectations.Fail
			}
			o.Message = fmt.Sprintf("%d edit calls, required %s", edits, o.Threshold)
			return o
		})
	if err != nil {
		log.Fatal(err)
	}
	src := []byte("trace: ../traces/index-first-then-edit.toolcalls.json\nexpectations:\n  - type: max_edits\n    max: 0\n")
	s, err := expectations.Parse("testdata/scenarios/edits.yaml", src, expectations.LoadOptions{Registry: reg})
	if err != nil {
		log.Fatal(err)
	}
	res, err := expectations.Evaluate(s, expectations.EvalOptions{Registry: reg})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Results[0].Status, "-", res.Results[0].Message)
	// Output:
	// fail - 1 edit calls, required ≤ 0
}
