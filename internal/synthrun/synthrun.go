// Package synthrun writes synthetic benchmark runs in Harbor's layout, with
// the ground truth of their tasks, for the tests and benchmarks of run
// evaluation at scale: hundreds or thousands of trials are more than a
// fixture in testdata should hold, and a generator with a fixed seed gives
// the same run every time.
//
// A run has, in each configuration, every task run Repeats times. Each
// trial has a result.json in Harbor's shape and an ATIF trajectory of a
// few calls (searches, reads, an edit) over the task's files; some trials
// also have the Claude Code stream-json transcript of the same calls (the
// two are merged), some have no trace at all (degraded), some tasks have
// no ground truth (non-computable), and some result.json files are
// malformed (a warning). The figures vary from trial to trial, so that
// statistics over them mean something.
package synthrun

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"
)

// A Spec says what run to write.
type Spec struct {
	// Configs are the configuration names; empty means three:
	// baseline-grep, mcp-index and mcp-index-large.
	Configs []string
	// Tasks is the number of tasks, Repeats the number of trials of each
	// task in each configuration (at least 1).
	Tasks, Repeats int
	// Seed fixes what the trials do.
	Seed uint64
	// Failed adds, to the first configuration, a trial whose result.json
	// is a folder: it cannot be read, and the trial is failed.
	Failed bool
}

// Batch is the batch folder of every trial.
const Batch = "2026-03-01__09-00-00"

// Write writes the run into run and the ground truth into gtRoot (one
// task folder per task, as run-dir's -gt-root expects) and returns the
// number of trial folders written.
func Write(run, gtRoot string, spec Spec) (int, error) {
	configs := spec.Configs
	if len(configs) == 0 {
		configs = []string{"baseline-grep", "mcp-index", "mcp-index-large"}
	}
	repeats := max(spec.Repeats, 1)
	rng := rand.New(rand.NewPCG(spec.Seed, 0x5eed))
	for task := range spec.Tasks {
		if task%10 == 9 {
			continue // no ground truth: non-computable
		}
		if err := writeFile(filepath.Join(gtRoot, taskName(task), "tests", "ground_truth.json"), mustJSON(relevant(task))); err != nil {
			return 0, err
		}
	}
	n := 0
	for ci, config := range configs {
		for task := range spec.Tasks {
			for rep := range repeats {
				id := fmt.Sprintf("%c%05d", 'a'+ci, rng.IntN(100000))
				dir := filepath.Join(run, config, Batch, fmt.Sprintf("%s__%s%d", taskName(task), id, rep))
				if err := writeTrial(dir, task, ci, rng); err != nil {
					return 0, err
				}
				n++
			}
		}
		if spec.Failed && ci == 0 {
			if err := os.MkdirAll(filepath.Join(run, config, Batch, "broken__zz0", "result.json"), 0o755); err != nil {
				return 0, err
			}
			n++
		}
	}
	// Harbor's job-level files, which must not pass for trials.
	for _, config := range configs {
		if err := writeFile(filepath.Join(run, config, Batch, "result.json"), `{"id": "job", "n_total_trials": 1}`); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// taskName is the name of task i.
func taskName(i int) string { return fmt.Sprintf("task-%04d", i) }

// files are the repository files of task i: the first two (three for
// every third task) are relevant.
func files(task int) []string {
	out := make([]string, 8)
	for i := range out {
		out[i] = fmt.Sprintf("pkg%d/file%d.go", (task+i)%5, i)
	}
	return out
}

func relevant(task int) []string {
	if task%3 == 0 {
		return files(task)[:3]
	}
	return files(task)[:2]
}

// A call is one tool call of a trial and its result.
type call struct {
	name   string
	args   map[string]any
	result string
}

// writeTrial writes one trial folder.
func writeTrial(dir string, task, config int, rng *rand.Rand) error {
	result := map[string]any{
		"task_name":  taskName(task),
		"trial_name": filepath.Base(dir),
		"agent_info": map[string]any{"name": "claude-code", "version": "2.1.19"},
	}
	switch r := rng.IntN(10); {
	case r < 6:
		result["verifier_result"] = map[string]any{"rewards": map[string]any{"reward": float64(rng.IntN(2))}}
	case r < 8:
		result["verifier_result"] = map[string]any{"reward": rng.Float64()}
	}
	body := mustJSON(result)
	if rng.IntN(40) == 0 {
		body = body[:len(body)/2] // malformed: a warning, the name from the folder
	}
	if err := writeFile(filepath.Join(dir, "result.json"), body); err != nil {
		return err
	}
	switch rng.IntN(20) {
	case 0:
		return nil // no trace: degraded
	case 1:
		return os.MkdirAll(filepath.Join(dir, "agent"), 0o755) // an empty agent/ folder
	}
	calls := plan(task, config, rng)
	if err := writeFile(filepath.Join(dir, "agent", "trajectory.json"), trajectory(filepath.Base(dir), calls)); err != nil {
		return err
	}
	if rng.IntN(4) == 0 {
		return writeFile(filepath.Join(dir, "agent", "claude-code.txt"), transcript(filepath.Base(dir), calls))
	}
	return nil
}

// plan draws the calls of a trial: a search, reads of files drawn from
// the task's (the later configurations find the relevant ones more
// often), and an edit.
func plan(task, config int, rng *rand.Rand) []call {
	fs := files(task)
	var calls []call
	hits := fmt.Sprintf("/workspace/%s\n/workspace/%s", fs[rng.IntN(len(fs))], fs[rng.IntN(len(fs))])
	if config == 0 {
		calls = append(calls, call{"Grep", map[string]any{"pattern": "func Handle", "path": "/workspace", "output_mode": "files_with_matches"}, hits})
	} else {
		calls = append(calls, call{"mcp__sourcegraph__keyword_search", map[string]any{"query": "repo:^example/app$ func Handle"},
			fmt.Sprintf(`[{"file": %q, "line": 1}, {"file": %q, "line": 4}]`, fs[rng.IntN(3)], fs[rng.IntN(len(fs))])})
	}
	for range 1 + rng.IntN(6) {
		f := fs[rng.IntN(len(fs))]
		if rng.IntN(3) < config {
			f = fs[rng.IntN(3)]
		}
		calls = append(calls, call{"Read", map[string]any{"file_path": "/workspace/" + f}, "     1\tpackage x\n"})
	}
	if rng.IntN(3) > 0 {
		calls = append(calls, call{"Glob", map[string]any{"pattern": "**/*.go"}, "/workspace/" + fs[0] + "\n/workspace/" + fs[5]})
	}
	f := fs[rng.IntN(3)]
	calls = append(calls, call{"Edit", map[string]any{"file_path": "/workspace/" + f, "old_string": "a", "new_string": "b"},
		"The file /workspace/" + f + " has been updated."})
	return calls
}

// start is the time of a trial's first step.
var start = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// trajectory writes the calls as an ATIF trajectory.
func trajectory(session string, calls []call) string {
	steps := []any{map[string]any{"step_id": 1, "timestamp": start.Format(time.RFC3339), "source": "user", "message": "Solve the task."}}
	for i, c := range calls {
		id := fmt.Sprintf("toolu_%02d", i+1)
		steps = append(steps, map[string]any{
			"step_id":     i + 2,
			"timestamp":   start.Add(time.Duration(5*(i+1)) * time.Second).Format(time.RFC3339),
			"source":      "agent",
			"message":     "Executed " + c.name + " " + id,
			"tool_calls":  []any{map[string]any{"tool_call_id": id, "function_name": c.name, "arguments": c.args}},
			"observation": map[string]any{"results": []any{map[string]any{"source_call_id": id, "content": c.result}}},
			"metrics":     map[string]any{"prompt_tokens": 1000 * (i + 1), "completion_tokens": 50},
		})
	}
	return mustJSON(map[string]any{
		"schema_version": "ATIF-v1.5",
		"session_id":     session,
		"agent":          map[string]any{"name": "claude-code", "version": "2.1.19", "model_name": "claude-sonnet-4-5", "extra": map[string]any{"cwd": "/workspace"}},
		"steps":          steps,
	})
}

// transcript writes the same calls as Claude Code stream-json.
func transcript(session string, calls []call) string {
	line := func(v any) string {
		b, _ := json.Marshal(v)
		return string(b) + "\n"
	}
	out := line(map[string]any{"type": "system", "subtype": "init", "cwd": "/workspace", "session_id": session,
		"tools": []string{"Bash", "Glob", "Grep", "Read", "Edit"}, "model": "claude-sonnet-4-5"})
	for i, c := range calls {
		id := fmt.Sprintf("toolu_%02d", i+1)
		out += line(map[string]any{"type": "assistant", "session_id": session, "parent_tool_use_id": nil,
			"message": map[string]any{"id": fmt.Sprintf("msg_%d", i+1), "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
				"content": []any{map[string]any{"type": "tool_use", "id": id, "name": c.name, "input": c.args}},
				"usage":   map[string]any{"input_tokens": 10, "output_tokens": 50}}})
		out += line(map[string]any{"type": "user", "session_id": session, "parent_tool_use_id": nil,
			"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": c.result}}}})
	}
	return out
}

func mustJSON(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err) // only maps, slices, strings and numbers: cannot fail
	}
	return string(b)
}

func writeFile(name, content string) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	return os.WriteFile(name, []byte(content), 0o644)
}
