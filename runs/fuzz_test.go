package runs

import (
	"encoding/json"
	"math"
	"testing"
)

// FuzzParseResult feeds arbitrary bytes to the result.json reader: it
// must never panic, a reward it gives is a finite number the summary can
// be written with, and an input it accepts is a JSON object or null.
func FuzzParseResult(f *testing.F) {
	for _, seed := range []string{
		`{"task_name": "fix-auth", "verifier_result": {"rewards": {"reward": 1.0, "partial": 0.5}}}`,
		`{"task_name": "t", "verifier_result": {"reward": 0.0}}`,
		`{"task_name": "t", "verifier_result": {"rewards": {"accuracy": "0.25"}}}`,
		`{"task_name": "t", "verifier_result": null, "exception_info": {"exception_type": "AgentTimeoutError"}}`,
		`{"id": "job", "n_total_trials": 1}`,
		`{"task_name": "a\u0000b", "verifier_result": {"reward": "NaN"}}`,
		`{"task_name": `,
		`[]`,
		`null`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		task, reward, err := ParseResult(data)
		if err != nil {
			if task != "" || reward != nil {
				t.Fatalf("error %v with task %q and reward %v", err, task, reward)
			}
			return
		}
		if reward != nil {
			if math.IsNaN(*reward) || math.IsInf(*reward, 0) {
				t.Fatalf("reward %v is not finite", *reward)
			}
			if _, err := json.Marshal(*reward); err != nil {
				t.Fatalf("reward %v cannot be written: %v", *reward, err)
			}
		}
		if stem := fileStem(task); stem == "" || stem == "." || stem == ".." {
			t.Fatalf("task %q gives the file stem %q", task, stem)
		}
	})
}
