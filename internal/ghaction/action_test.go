// Package ghaction_test runs the repository's GitHub Action (action.yml at
// the module root) as a runner would: each of its shell steps, with the
// GITHUB_* files pointing at temporary files, and checks the step summary,
// the annotations, the outputs and the exit status.
package ghaction_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type action struct {
	Name        string            `yaml:"name"`
	Description string            `yaml:"description"`
	Author      string            `yaml:"author"`
	Branding    map[string]string `yaml:"branding"`
	Inputs      map[string]struct {
		Description string `yaml:"description"`
		Default     string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
		Value       string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []step `yaml:"steps"`
	} `yaml:"runs"`
}

type step struct {
	Name             string            `yaml:"name"`
	ID               string            `yaml:"id"`
	If               string            `yaml:"if"`
	Uses             string            `yaml:"uses"`
	Shell            string            `yaml:"shell"`
	Run              string            `yaml:"run"`
	WorkingDirectory string            `yaml:"working-directory"`
	Env              map[string]string `yaml:"env"`
	With             map[string]string `yaml:"with"`
}

var root, _ = filepath.Abs(filepath.Join("..", ".."))

func loadAction(t *testing.T) action {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "action.yml"))
	require.NoError(t, err)
	var a action
	require.NoError(t, yaml.UnmarshalWithOptions(data, &a, yaml.Strict()))
	require.Equal(t, "composite", a.Runs.Using)
	return a
}

var expr = regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)

// resolve replaces the expressions a step may use: inputs and the
// action's path.
func resolve(t *testing.T, s string, inputs map[string]string) string {
	t.Helper()
	return expr.ReplaceAllStringFunc(s, func(m string) string {
		e := expr.FindStringSubmatch(m)[1]
		if name, ok := strings.CutPrefix(e, "inputs."); ok {
			v, known := inputs[name]
			require.True(t, known, "%s names an input the action does not declare", m)
			return v
		}
		require.Equal(t, "github.action_path", e, "an expression this runner does not know")
		return root
	})
}

// A runner holds the files a job's steps share.
type runner struct {
	dir                                  string
	summary, output, path, env, tempRoot string
}

func newRunner(t *testing.T) *runner {
	dir := t.TempDir()
	r := &runner{dir: dir, summary: filepath.Join(dir, "summary.md"), output: filepath.Join(dir, "output"),
		path: filepath.Join(dir, "path"), env: filepath.Join(dir, "env"), tempRoot: filepath.Join(dir, "runner-temp")}
	for _, f := range []string{r.summary, r.output, r.path, r.env} {
		require.NoError(t, os.WriteFile(f, nil, 0o644))
	}
	require.NoError(t, os.Mkdir(r.tempRoot, 0o755))
	return r
}

// run runs one shell step as a composite action's bash step runs, and
// returns its exit status and what it printed (standard output, where
// workflow commands go, then standard error, where check writes its
// annotations: the runner reads both).
func (r *runner) run(t *testing.T, s step, inputs map[string]string, extraPath string) (int, string) {
	t.Helper()
	require.Equal(t, "bash", s.Shell, "step %q", s.Name)
	require.NotContains(t, s.Run, "${{", "step %q: inputs reach a script through env only", s.Name)
	script := filepath.Join(r.dir, "step.sh")
	require.NoError(t, os.WriteFile(script, []byte(s.Run), 0o644))
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	cmd.Dir = filepath.Join(root, resolve(t, s.WorkingDirectory, inputs))
	env := []string{"GITHUB_ACTIONS=true", "GITHUB_STEP_SUMMARY=" + r.summary, "GITHUB_OUTPUT=" + r.output,
		"GITHUB_PATH=" + r.path, "GITHUB_ENV=" + r.env, "RUNNER_TEMP=" + r.tempRoot, "GITHUB_WORKSPACE=" + root,
		"GITHUB_ACTION_PATH=" + root}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GITHUB_") && !strings.HasPrefix(kv, "PATH=") && !strings.HasPrefix(kv, "INPUT_") {
			env = append(env, kv)
		}
	}
	env = append(env, "PATH="+extraPath+string(os.PathListSeparator)+os.Getenv("PATH"))
	for k, v := range s.Env {
		env = append(env, k+"="+resolve(t, v, inputs))
	}
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), stdout.String() + stderr.String()
	}
	require.NoError(t, err)
	return 0, stdout.String() + stderr.String()
}

// inputsWith returns the action's inputs with their defaults, then set.
func inputsWith(a action, set map[string]string) map[string]string {
	out := map[string]string{}
	for name, in := range a.Inputs {
		out[name] = in.Default
	}
	for k, v := range set {
		out[k] = v
	}
	return out
}

var (
	buildOnce sync.Once
	binDir    string
	buildErr  string
)

// build runs the action's build step once for the tests, and returns the
// folder it added to GITHUB_PATH.
func build(t *testing.T, a action) string {
	t.Helper()
	buildOnce.Do(func() {
		r := newRunner(t)
		code, stderr := r.run(t, a.Runs.Steps[1], inputsWith(a, nil), "")
		if code != 0 {
			buildErr = stderr
			return
		}
		data, _ := os.ReadFile(r.path)
		binDir = strings.TrimSpace(string(data))
		// The folder outlives this test's temporary folder: keep a copy.
		keep, _ := os.MkdirTemp("", "agentretrieval-action-bin")
		exe, _ := os.ReadFile(filepath.Join(binDir, "retrievaltest"))
		_ = os.WriteFile(filepath.Join(keep, "retrievaltest"), exe, 0o755)
		binDir = keep
	})
	require.Empty(t, buildErr, "the build step failed")
	require.NotEmpty(t, binDir, "the build step added no folder to GITHUB_PATH")
	return binDir
}

func TestTheActionSetsUpGoThenBuildsThenChecks(t *testing.T) {
	t.Parallel()
	a := loadAction(t)
	require.Len(t, a.Runs.Steps, 3)
	setup := a.Runs.Steps[0]
	assert.Equal(t, "actions/setup-go@v5", setup.Uses)
	assert.Equal(t, "inputs.setup-go == 'true'", setup.If)
	assert.Equal(t, "${{ github.action_path }}/go.mod", setup.With["go-version-file"], "the action's own Go version")
	assert.Equal(t, "check", a.Runs.Steps[2].ID)
	assert.Equal(t, "${{ steps.check.outputs.exit-code }}", a.Outputs["exit-code"].Value)
	for name, in := range a.Inputs {
		assert.NotEmpty(t, in.Description, "input %s has a description", name)
	}
}

func TestTheActionGatesOnTheCheck(t *testing.T) {
	t.Parallel()
	a := loadAction(t)
	bin := build(t, a)
	out := t.TempDir()
	at := func(name string) string { return filepath.Join(out, name) }
	tests := []struct {
		name   string
		inputs map[string]string
		code   int
		// summary and annotations are what the step summary and standard
		// error must hold; noAnnotations says stderr holds none.
		summary, annotations []string
		noAnnotations        bool
		files                []string
	}{
		{name: "the bundled scenarios pass, with every report", code: 0,
			inputs:  map[string]string{"markdown": at("pass.md"), "junit": at("pass.xml"), "json": at("pass.json"), "html": at("pass.html")},
			summary: []string{"# Retrieval check", "**PASS:**"}, noAnnotations: true,
			files: []string{at("pass.md"), at("pass.xml"), at("pass.json"), at("pass.html")}},
		{name: "a failing expectation fails the step and is annotated on its line", code: 1,
			inputs:      map[string]string{"paths": "testdata/check/mixed"},
			summary:     []string{"**FAIL:** 1 of 2 scenarios passed"},
			annotations: []string{"::error file=testdata/check/mixed/bad.yaml,line=6,col=5,title=bad%3A index_usage"}},
		{name: "several paths on several lines", code: 1,
			inputs:  map[string]string{"paths": "scenarios\n testdata/check/mixed\n"},
			summary: []string{"**FAIL:**", "fix-token-expiry", "| bad |"}},
		{name: "a scenario that does not load is bad input", code: 2,
			inputs: map[string]string{"paths": "testdata/check/broken"}, summary: []string{"typo.yaml"}},
		{name: "no path at all is bad input", code: 2, inputs: map[string]string{"paths": " \n "},
			annotations: []string{"::error::the paths input names no scenario file or folder"}},
		{name: "without cwd absolute trace paths miss the ground truth", code: 1,
			inputs: map[string]string{"paths": "testdata/check/cwd"}, summary: []string{"did you mean cwd: /root?"}},
		{name: "the cwd input makes them match", code: 0, inputs: map[string]string{"paths": "testdata/check/cwd", "cwd": "/root"}},
		{name: "the baseline input is read", code: 2, inputs: map[string]string{"baseline": at("no-such-baseline.json")}},
		{name: "the max-regression input is read", code: 2, inputs: map[string]string{"max-regression": "ratio=lots"}},
		{name: "the working directory anchors the paths", code: 0, inputs: map[string]string{"working-directory": "scenarios", "paths": "."}},
		{name: "the history input records the run", code: 0, inputs: map[string]string{"history": at("history.db")},
			files: []string{at("history.db")}},
		{name: "baseline-from names a ref of the history", code: 2,
			inputs: map[string]string{"history": at("empty-history.db"), "baseline-from": "no-such-branch"}, annotations: []string{"no-such-branch"}},
		{name: "baseline-from without history is bad input", code: 2, inputs: map[string]string{"baseline-from": "main"},
			annotations: []string{"::error::baseline-from needs the history input"}},
		{name: "baseline-from and baseline together are bad input", code: 2,
			inputs:      map[string]string{"history": at("h.db"), "baseline-from": "main", "baseline": at("b.json")},
			annotations: []string{"::error::baseline-from needs the history input, and replaces baseline"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newRunner(t)
			code, stderr := r.run(t, a.Runs.Steps[2], inputsWith(a, tc.inputs), bin)
			assert.Equal(t, tc.code, code, stderr)
			output, err := os.ReadFile(r.output)
			require.NoError(t, err)
			assert.Contains(t, string(output), "exit-code="+string(rune('0'+tc.code))+"\n", "the step's output")
			summary, err := os.ReadFile(r.summary)
			require.NoError(t, err)
			for _, s := range tc.summary {
				assert.Contains(t, string(summary), s)
			}
			for _, s := range tc.annotations {
				assert.Contains(t, stderr, s)
			}
			if tc.noAnnotations {
				assert.NotContains(t, stderr, "::error")
			}
			for _, f := range tc.files {
				info, err := os.Stat(f)
				if assert.NoError(t, err) {
					assert.Positive(t, info.Size())
				}
			}
		})
	}
}

// The example workflow of docs/github-actions.md uses the action with
// inputs it declares, and uploads the reports it asks the action for.
func TestTheDocumentedWorkflowUsesTheActionAsDeclared(t *testing.T) {
	t.Parallel()
	a := loadAction(t)
	data, err := os.ReadFile(filepath.Join(root, "docs", "github-actions.md"))
	require.NoError(t, err)
	block := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindSubmatch(data)
	require.NotNil(t, block, "docs/github-actions.md has a workflow")
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				If   string         `yaml:"if"`
				Uses string         `yaml:"uses"`
				With map[string]any `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	require.NoError(t, yaml.Unmarshal(block[1], &wf))
	var asked []string
	used, uploaded := false, ""
	for _, job := range wf.Jobs {
		for _, s := range job.Steps {
			switch {
			case strings.HasPrefix(s.Uses, "agentretrieval/agentretrieval@"):
				used = true
				for k, v := range s.With {
					_, declared := a.Inputs[k]
					assert.True(t, declared, "the workflow gives the input %s, which the action does not declare", k)
					if k == "html" || k == "junit" || k == "markdown" || k == "json" {
						asked = append(asked, v.(string))
					}
				}
			case strings.HasPrefix(s.Uses, "actions/upload-artifact@"):
				assert.Equal(t, "always()", s.If, "the reports are kept when the check fails too")
				uploaded, _ = s.With["path"].(string)
			}
		}
	}
	require.True(t, used, "the workflow uses the action")
	for _, f := range asked {
		assert.Contains(t, uploaded, f, "the workflow uploads %s", f)
	}
}
