package runs

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agentretrieval/agentretrieval/internal/input"
)

// OutDir is the folder, directly under the run, that Evaluate writes its
// artifacts into unless told otherwise. Walk never takes it for a
// configuration.
const OutDir = "retrieval_events"

// A Trial is one trial folder of a run, with what its result.json says
// about it.
type Trial struct {
	// Config and Batch are the folders the trial is in: RUN/Config/Batch/.
	// Batch is empty for a run written without batch folders.
	Config, Batch string
	// Dir is the trial folder; Rel the same relative to the run, with
	// forward slashes, for messages.
	Dir, Rel string
	// Folder is the trial folder's name, "<task>__<id>" in Harbor's runs.
	Folder string
	// Task is the task name of result.json (task_name), else the part of
	// Folder before its last "__". ID is the part after it.
	Task, ID string
	// Reward is the verifier reward of result.json, nil when it has none.
	Reward *float64
	// Name is the stem of the trial's artifacts: the task name (made safe
	// as a file name) when it is the configuration's only trial of the
	// task, "<task>__<id>" otherwise, with the batch appended when even
	// that repeats.
	Name string
	// Warnings are problems with result.json (missing, malformed); the
	// trial is still evaluated.
	Warnings []string
}

// Walk finds the trial folders of a run laid out as Harbor writes it,
// RUN/<config>/<batch>/<trial>, or RUN/<config>/<trial> for a run written
// without batch folders, reads each trial's result.json and names its
// artifacts (Trial.Name). A trial folder is one with an agent/ folder, or a
// result.json that names a task or trial: a batch folder's job-level
// result.json does not. Hidden folders, OutDir and the run's folders named
// in skip are not configurations.
//
// Trials come back sorted by configuration, then batch, then folder name.
// A run folder that cannot be read is an error; a run with no trial is
// not (the slice is empty).
func Walk(dir string, skip ...string) ([]*Trial, error) {
	if _, err := os.ReadDir(dir); err != nil {
		return nil, err
	}
	var out []*Trial
	add := func(config, batch, tdir string) {
		t := &Trial{Config: config, Batch: batch, Dir: tdir, Folder: filepath.Base(tdir)}
		t.Rel = path.Join(config, batch, t.Folder)
		t.readResult()
		out = append(out, t)
	}
	for _, config := range subdirs(dir) {
		if config == OutDir || slices.Contains(skip, config) {
			continue
		}
		cdir := filepath.Join(dir, config)
		for _, b := range subdirs(cdir) {
			bdir := filepath.Join(cdir, b)
			if isTrialDir(bdir) {
				add(config, "", bdir)
				continue
			}
			for _, t := range subdirs(bdir) {
				if tdir := filepath.Join(bdir, t); isTrialDir(tdir) {
					add(config, b, tdir)
				}
			}
		}
	}
	nameTrials(out)
	return out, nil
}

// subdirs lists the non-hidden folders of dir, sorted; nil when dir cannot
// be read.
func subdirs(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	return out
}

// isTrialDir reports whether dir is a trial folder: it has an agent/
// folder, or a result.json that names a task or trial. The content rule
// keeps a batch folder, which has a job-level result.json (and a name like
// 2026-01-15__10-00-00), from passing for a trial.
func isTrialDir(dir string) bool {
	if info, err := os.Stat(filepath.Join(dir, "agent")); err == nil && info.IsDir() {
		return true
	}
	data, err := input.ReadFile(filepath.Join(dir, "result.json"), maxInput.Or(input.ConfigLimit))
	if err != nil {
		return false
	}
	var keys map[string]json.RawMessage
	if json.Unmarshal(data, &keys) != nil {
		return false
	}
	_, task := keys["task_name"]
	_, trial := keys["trial_name"]
	return task || trial
}

// isTrialish reports whether a folder looks like a configuration: it has a
// trial folder one or two levels down.
func isTrialish(dir string) bool {
	for _, b := range subdirs(dir) {
		if isTrialDir(filepath.Join(dir, b)) {
			return true
		}
		for _, t := range subdirs(filepath.Join(dir, b)) {
			if isTrialDir(filepath.Join(dir, b, t)) {
				return true
			}
		}
	}
	return false
}

// harborResult is the part of Harbor's trial result.json that is read.
// Harbor has written the reward as verifier_result.rewards (a map of named
// rewards, "reward" the main one) and, earlier, as verifier_result.reward.
type harborResult struct {
	TaskName       string `json:"task_name"`
	TrialName      string `json:"trial_name"`
	VerifierResult *struct {
		Reward  json.RawMessage            `json:"reward"`
		Rewards map[string]json.RawMessage `json:"rewards"`
	} `json:"verifier_result"`
}

// readResult fills the task name, trial id and reward from result.json,
// falling back to the folder name "<task>__<id>".
func (t *Trial) readResult() {
	task, id := t.Folder, ""
	if i := strings.LastIndex(t.Folder, "__"); i > 0 {
		task, id = t.Folder[:i], t.Folder[i+2:]
	}
	t.Task, t.ID = task, id
	data, err := input.ReadFile(filepath.Join(t.Dir, "result.json"), maxInput.Or(input.ConfigLimit))
	if errors.Is(err, os.ErrNotExist) {
		t.Warnings = append(t.Warnings, "no result.json: task name from the folder name, no reward")
		return
	}
	var r harborResult
	if err == nil {
		err = json.Unmarshal(data, &r)
	}
	if err != nil {
		t.Warnings = append(t.Warnings, fmt.Sprintf("result.json: %v; task name from the folder name, no reward", err))
		return
	}
	if r.TaskName != "" {
		t.Task = r.TaskName
	}
	if vr := r.VerifierResult; vr != nil {
		if v, ok := number(vr.Rewards["reward"]); ok {
			t.Reward = &v
		} else if v, ok := number(vr.Reward); ok {
			t.Reward = &v
		} else if len(vr.Rewards) == 1 {
			for _, raw := range vr.Rewards {
				if v, ok := number(raw); ok {
					t.Reward = &v
				}
			}
		}
	}
}

// number decodes a JSON number (or a numeric string, as some verifiers
// write it).
func number(raw json.RawMessage) (float64, bool) {
	if len(raw) == 0 {
		return 0, false
	}
	var f float64
	if json.Unmarshal(raw, &f) == nil {
		return f, true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
			return f, true
		}
	}
	return 0, false
}

// nameTrials gives each trial its artifact stem: the task name when it is
// the configuration's only trial of the task, "<task>__<id>" otherwise,
// and the batch appended when even that repeats.
func nameTrials(trials []*Trial) {
	type key struct{ config, name string }
	perTask := map[key]int{}
	for _, t := range trials {
		perTask[key{t.Config, t.Task}]++
	}
	used := map[key]int{}
	for _, t := range trials {
		stem := fileStem(t.Task)
		if perTask[key{t.Config, t.Task}] > 1 {
			id := t.ID
			if id == "" {
				id = fileStem(t.Folder)
			}
			stem += "__" + fileStem(id)
		}
		used[key{t.Config, stem}]++
		t.Name = stem
	}
	for _, t := range trials {
		if used[key{t.Config, t.Name}] > 1 {
			t.Name += "__" + fileStem(t.Batch)
		}
	}
}

// fileStem makes a task name usable as a file name: Harbor task names may
// carry a dataset prefix ("terminal-bench/fix-auth"), and a separator or a
// ".." must not lead the artifact out of its folder.
func fileStem(s string) string {
	s = strings.NewReplacer("/", "_", `\`, "_", ":", "_").Replace(s)
	if s == "" || s == "." || s == ".." {
		return "_" + s
	}
	return s
}

// checkOutDir refuses an output folder that is the run folder or inside
// one of its configurations, where the artifacts would mix with the run's
// own files. It returns the name of the run's child folder to skip when
// looking for configurations (the output folder itself), or "".
func checkOutDir(runDir, outDir string) (string, error) {
	absRun, err := filepath.Abs(runDir)
	if err != nil {
		return "", err
	}
	absOut, err := filepath.Abs(outDir)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(absRun, absOut)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", nil // outside the run: nothing to skip
	}
	if rel == "." {
		return "", fmt.Errorf("output folder %s is the run folder; the artifacts go into a folder of their own", outDir)
	}
	first, rest, _ := strings.Cut(rel, string(filepath.Separator))
	if rest != "" {
		return "", fmt.Errorf("output folder %s is inside the run's folder %s; use a folder directly under the run (default %s) or outside it", outDir, first, OutDir)
	}
	if info, err := os.Stat(absOut); err == nil && info.IsDir() {
		if isTrialish(absOut) {
			return "", fmt.Errorf("output folder %s holds trials; it would mix the artifacts with the run's files", outDir)
		}
	}
	return first, nil
}
