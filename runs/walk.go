package runs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

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
	// Failure, when not empty, says why the trial cannot be evaluated (a
	// result.json that exists but cannot be read): Evaluate lists it as
	// failed in the summary and goes on with the other trials.
	Failure string
}

// Walk finds the trial folders of a run laid out as Harbor writes it,
// RUN/<config>/<batch>/<trial>, or RUN/<config>/<trial> for a run written
// without batch folders, reads each trial's result.json and names its
// artifacts (Trial.Name). A trial folder is one with an agent/ folder, or a
// result.json that names a task or trial: a batch folder's job-level
// result.json does not. Hidden folders, OutDir and the run's folders named
// in skip are not configurations.
//
// Symbolic links to folders are followed, at every level, except a link
// that leads back to the run folder or to a folder the walk is inside (a
// loop): that one is skipped with a warning. Walk drops the warnings;
// WalkWarn passes them on.
//
// Trials come back sorted by configuration, then batch, then folder name.
// A run folder that cannot be read is an error; a run with no trial is
// not (the slice is empty).
func Walk(dir string, skip ...string) ([]*Trial, error) {
	return WalkWarn(dir, nil, skip...)
}

// WalkWarn is Walk, passing every warning about the run's folders (a
// skipped symbolic link loop, a folder that cannot be read) to warn when
// it is not nil.
func WalkWarn(dir string, warn func(string), skip ...string) ([]*Trial, error) {
	if _, err := os.ReadDir(dir); err != nil {
		return nil, err
	}
	if warn == nil {
		warn = func(string) {}
	}
	w := &walker{warn: warn}
	root := w.enter(nil, dir)
	var out []*Trial
	add := func(config, batch, tdir string) {
		t := &Trial{Config: config, Batch: batch, Dir: tdir, Folder: filepath.Base(tdir)}
		t.Rel = path.Join(config, batch, t.Folder)
		// Where the separator is "/", Rel is the end of Dir: sharing its
		// bytes keeps one copy of the path per trial, not two (a run of
		// a million trials holds them all).
		if n := len(tdir) - len(t.Rel); n > 0 && tdir[n-1] == '/' && tdir[n:] == t.Rel {
			t.Rel = tdir[n:]
		}
		t.readResult()
		out = append(out, t)
	}
	for _, config := range w.subdirs(root, dir, "") {
		if config == OutDir || slices.Contains(skip, config) {
			continue
		}
		cdir := filepath.Join(dir, config)
		cchain := w.enter(root, cdir)
		for _, b := range w.subdirs(cchain, cdir, config) {
			bdir := filepath.Join(cdir, b)
			if isTrialDir(bdir) {
				add(config, "", bdir)
				continue
			}
			bchain := w.enter(cchain, bdir)
			for _, t := range w.subdirs(bchain, bdir, path.Join(config, b)) {
				if tdir := filepath.Join(bdir, t); isTrialDir(tdir) {
					add(config, b, tdir)
				}
			}
		}
	}
	nameTrials(out)
	return out, nil
}

// A walker lists the folders of a run, following symbolic links and
// catching the ones that loop.
type walker struct {
	warn func(string)
}

// enter returns the chain of real paths from the run folder to dir:
// what a link under dir must not lead back to.
func (w *walker) enter(chain []string, dir string) []string {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		real = dir
	}
	return append(slices.Clip(chain), real)
}

// subdirs lists the non-hidden folders of dir, sorted, following symbolic
// links to folders; a link that leads back into chain (the folders the
// walk is inside) is skipped with a warning. rel is dir relative to the
// run, for messages. Nil when dir cannot be read.
func (w *walker) subdirs(chain []string, dir, rel string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		if rel != "" {
			w.warn(fmt.Sprintf("%s: %v: skipped", rel, unwrapPath(err)))
		}
		return nil
	}
	var out []string
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		if e.IsDir() {
			out = append(out, name)
			continue
		}
		if e.Type()&os.ModeSymlink == 0 {
			continue
		}
		p := filepath.Join(dir, name)
		info, err := os.Stat(p)
		if err != nil || !info.IsDir() {
			continue // a link to a file, or a dangling one: not a folder
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			w.warn(fmt.Sprintf("%s: %v: skipped", path.Join(rel, name), unwrapPath(err)))
			continue
		}
		if slices.Contains(chain, real) {
			w.warn(fmt.Sprintf("%s is a symbolic link to %s, a folder it is inside (a loop): skipped", path.Join(rel, name), real))
			continue
		}
		out = append(out, name)
	}
	return out
}

// unwrapPath drops the path an *fs.PathError carries (the message names
// the folder already).
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var nr *input.NotRegularError
	var tl *input.TooLargeError
	switch {
	case errors.As(err, &nr):
		return fmt.Errorf("is %s, not a regular file", nr.What)
	case errors.As(err, &tl):
		return fmt.Errorf("larger than the limit of %s", input.FormatSize(tl.Limit))
	case errors.Is(err, input.ErrFolder):
		return input.ErrFolder
	}
	return err
}

// subdirs lists the non-hidden folders of dir, sorted, following links;
// nil when dir cannot be read.
func subdirs(dir string) []string {
	w := &walker{warn: func(string) {}}
	return w.subdirs(w.enter(nil, dir), dir, "")
}

// isTrialDir reports whether dir is a trial folder: it has an agent/
// folder, or a result.json that names a task or trial. The content rule
// keeps a batch folder, which has a job-level result.json (and a name like
// 2026-01-15__10-00-00), from passing for a trial.
func isTrialDir(dir string) bool {
	if info, err := os.Stat(filepath.Join(dir, "agent")); err == nil && info.IsDir() {
		return true
	}
	data, err := readResultFile(filepath.Join(dir, "result.json"))
	if err != nil {
		// A result.json that exists but cannot be read is a trial's:
		// counted as failed rather than silently left out.
		return !errors.Is(err, fs.ErrNotExist)
	}
	var keys map[string]json.RawMessage
	if json.Unmarshal(data, &keys) != nil {
		return false
	}
	_, task := keys["task_name"]
	_, trial := keys["trial_name"]
	return task || trial
}

// MaxResultSize is the largest result.json read. Harbor's are a few
// kilobytes; a larger one is a failed trial, not a reason to run out of
// memory.
const MaxResultSize = 16 << 20

// readResultFile reads a trial's result.json: a regular file (or a link
// to one) of at most MaxResultSize bytes. A pipe or a device is refused
// rather than read (it may never end).
func readResultFile(name string) ([]byte, error) {
	return input.ReadFile(name, maxInput.Or(MaxResultSize))
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
// falling back to the folder name "<task>__<id>". A missing or malformed
// result.json is a warning; one that cannot be read at all makes the
// trial failed (Trial.Failure).
func (t *Trial) readResult() {
	task, id := t.Folder, ""
	if i := strings.LastIndex(t.Folder, "__"); i > 0 {
		task, id = t.Folder[:i], t.Folder[i+2:]
	}
	t.Task, t.ID = task, id
	data, err := readResultFile(filepath.Join(t.Dir, "result.json"))
	if errors.Is(err, fs.ErrNotExist) {
		t.Warnings = append(t.Warnings, "no result.json: task name from the folder name, no reward")
		return
	}
	if err != nil {
		t.Failure = fmt.Sprintf("result.json cannot be read: %v", unwrapPath(err))
		return
	}
	name, reward, err := ParseResult(data)
	if err != nil {
		t.Warnings = append(t.Warnings, fmt.Sprintf("result.json: %v; task name from the folder name, no reward", err))
		return
	}
	if name != "" && name != t.Task {
		t.Task = name // else the folder's bytes are kept, not a copy
	}
	t.Reward = reward
}

// ParseResult reads the task name and the verifier reward from the
// content of a Harbor trial result.json: task_name, and
// verifier_result.rewards.reward, else verifier_result.reward, else the
// only entry of verifier_result.rewards. A reward that is not a finite
// number (or a string holding one) is no reward. The name is "" when
// result.json has none; the error says why data is not a result.json
// object.
func ParseResult(data []byte) (task string, reward *float64, err error) {
	var r harborResult
	if err := json.Unmarshal(data, &r); err != nil {
		return "", nil, err
	}
	vr := r.VerifierResult
	if vr == nil {
		return r.TaskName, nil, nil
	}
	if v, ok := number(vr.Rewards["reward"]); ok {
		return r.TaskName, &v, nil
	}
	if v, ok := number(vr.Reward); ok {
		return r.TaskName, &v, nil
	}
	if len(vr.Rewards) == 1 {
		for _, raw := range vr.Rewards {
			if v, ok := number(raw); ok {
				return r.TaskName, &v, nil
			}
		}
	}
	return r.TaskName, nil, nil
}

// number decodes a JSON number (or a numeric string, as some verifiers
// write it); NaN and infinities are not numbers here (the summary could
// not be written as JSON with them).
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
		if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f, true
		}
	}
	return 0, false
}

// nameTrials gives each trial its artifact stem: the task name when it is
// the configuration's only trial of the task, "<task>__<id>" otherwise,
// and the batch appended when even that repeats. Stems are then made
// unique within a configuration, by construction: task names that differ
// but map to the same file name ("fix/auth" and "fix_auth"), or differ
// only in case (one file on a case-insensitive file system), get "~2",
// "~3"… in trial order, the first keeping the plain stem.
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
				id = t.Folder
			}
			stem += "__" + fileStem(id)
			if stem == t.Folder {
				stem = t.Folder // the folder's bytes, not a copy
			}
		}
		t.Name = shorten(stem)
		used[key{t.Config, fold(t.Name)}]++
	}
	for _, t := range trials {
		if used[key{t.Config, fold(t.Name)}] > 1 && t.Batch != "" {
			t.Name = shorten(t.Name + "__" + fileStem(t.Batch))
		}
	}
	// Whatever the steps above gave, two trials of a configuration never
	// share a stem: a name taken is given a numbered suffix.
	taken := map[key]bool{}
	count := map[key]int{}
	for _, t := range trials {
		count[key{t.Config, fold(t.Name)}]++
	}
	for _, t := range trials {
		if k := (key{t.Config, fold(t.Name)}); count[k] == 1 {
			taken[k] = true
		}
	}
	for _, t := range trials {
		k := key{t.Config, fold(t.Name)}
		if count[k] == 1 {
			continue
		}
		name := t.Name
		for n := 2; taken[key{t.Config, fold(name)}]; n++ {
			name = fmt.Sprintf("%s~%d", t.Name, n)
		}
		taken[key{t.Config, fold(name)}] = true
		t.Name = name
	}
}

// fold is the form in which two artifact stems name the same file on a
// case-insensitive file system.
func fold(s string) string { return strings.ToLower(s) }

// maxStem is the longest artifact stem, in bytes: with the longest
// suffix (".retrieval_metrics.json"), a numbered "~N" and the temporary
// file's ".…tmp-DIGITS", the name stays within the 255 bytes file systems
// allow.
const maxStem = 180

// shorten cuts a stem to maxStem bytes, at a character boundary.
func shorten(s string) string {
	if len(s) <= maxStem {
		return s
	}
	cut := maxStem
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// fileStem makes a task name usable as a file name: Harbor task names may
// carry a dataset prefix ("terminal-bench/fix-auth"), and a separator or a
// ".." must not lead the artifact out of its folder. Separators, ":",
// control characters (NUL included) and invalid UTF-8 become "_".
func fileStem(s string) string {
	s = strings.ToValidUTF8(s, "_")
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '/', r == '\\', r == ':', r < 0x20, r == 0x7f:
			return '_'
		}
		return r
	}, s)
	if s == "" || s == "." || s == ".." {
		return "_" + s
	}
	return s
}

// checkOutDir refuses an output folder that is the run folder or inside
// one of its configurations, where the artifacts would mix with the run's
// own files, and one inside the run that a symbolic link leads out of it
// (written through, the link would let the artifacts overwrite files
// elsewhere). Both paths are compared with their links resolved. It
// returns the name of the run's child folder to skip when looking for
// configurations (the output folder itself), or "".
func checkOutDir(runDir, outDir string) (string, error) {
	absRun, err := filepath.Abs(runDir)
	if err != nil {
		return "", err
	}
	absOut, err := filepath.Abs(outDir)
	if err != nil {
		return "", err
	}
	realRun, err := filepath.EvalSymlinks(absRun)
	if err != nil {
		return "", err
	}
	realOut, err := resolveExisting(absOut)
	if err != nil {
		return "", fmt.Errorf("output folder %s: %w", outDir, err)
	}
	// Lexically inside the run (the default RUN/retrieval_events), it must
	// stay inside once its links are resolved.
	if _, inside := within(absRun, absOut); inside {
		if _, stays := within(realRun, realOut); !stays {
			return "", fmt.Errorf("output folder %s leads out of the run folder to %s (a symbolic link); remove the link, or give -out %s if that is where the artifacts belong", outDir, realOut, realOut)
		}
	}
	rel, inside := within(realRun, realOut)
	if !inside {
		return "", nil // outside the run: nothing to skip
	}
	if rel == "." {
		return "", fmt.Errorf("output folder %s is the run folder; the artifacts go into a folder of their own", outDir)
	}
	first, rest, _ := strings.Cut(rel, string(filepath.Separator))
	if rest != "" {
		return "", fmt.Errorf("output folder %s is inside the run's folder %s; use a folder directly under the run (default %s) or outside it", outDir, first, OutDir)
	}
	if info, err := os.Stat(realOut); err == nil && info.IsDir() {
		if isTrialish(realOut) {
			return "", fmt.Errorf("output folder %s holds trials; it would mix the artifacts with the run's files", outDir)
		}
	}
	return first, nil
}

// within gives the path of p relative to dir and whether p is dir or
// inside it (both absolute and clean).
func within(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// resolveExisting resolves the symbolic links of the longest part of p
// that exists, and appends the rest: where p will be once created.
func resolveExisting(p string) (string, error) {
	var rest []string
	for {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(append([]string{real}, rest...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", unwrapPath(err)
		}
		if li, lerr := os.Lstat(p); lerr == nil && li.Mode()&fs.ModeSymlink != 0 {
			dest, _ := os.Readlink(p)
			return "", fmt.Errorf("%s is a symbolic link to %s, which does not exist", p, dest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return p, nil
		}
		rest = append([]string{filepath.Base(p)}, rest...)
		p = parent
	}
}

// checkArtifactDir makes sure a configuration's artifact folder, once
// its links are resolved, is still inside the output folder: a link
// there must not lead the artifacts elsewhere.
func checkArtifactDir(out, dir string) error {
	realOut, err := filepath.EvalSymlinks(out)
	if err != nil {
		return err
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	if rel, ok := within(realOut, realDir); !ok || rel == "." {
		return fmt.Errorf("artifact folder %s leads out of the output folder to %s (a symbolic link); remove the link", dir, realDir)
	}
	return nil
}
