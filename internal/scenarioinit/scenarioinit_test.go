package scenarioinit

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/expectations"
)

const samples = "../../../shared/samples"

func defaults(dir string) Options {
	return Options{Dir: dir, RatioMargin: DefaultRatioMargin, StepsMargin: DefaultStepsMargin}
}

// save writes a proposal into dir as scenario.yaml, the name Propose
// resolves paths for, and returns the file.
func save(t *testing.T, dir string, text []byte) string {
	t.Helper()
	file := filepath.Join(dir, "scenario.yaml")
	require.NoError(t, os.WriteFile(file, text, 0o644))
	return file
}

// check loads and evaluates a scenario file as the check command does
// and returns whether it failed, with its messages.
func check(t *testing.T, file string) (bool, string) {
	t.Helper()
	s, err := expectations.Load(file, expectations.LoadOptions{})
	require.NoError(t, err)
	res, err := expectations.Evaluate(s, expectations.EvalOptions{})
	require.NoError(t, err)
	var msgs []string
	for _, r := range res.Results {
		msgs = append(msgs, string(r.Status)+": "+r.Message)
	}
	return res.Failed(), strings.Join(msgs, "\n")
}

var traceLine = regexp.MustCompile(`(?m)^trace: \S+`)

// retarget points a saved scenario at another trace.
func retarget(t *testing.T, file, trace string) {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	abs, err := filepath.Abs(trace)
	require.NoError(t, err)
	require.True(t, traceLine.Match(data))
	data = traceLine.ReplaceAll(data, []byte("trace: "+abs))
	require.NoError(t, os.WriteFile(file, data, 0o644))
}

// elsewhere copies a trace into dir with every mention of the files
// replaced by files of other names: the same run, in which the agent
// never reaches the relevant files.
func elsewhere(t *testing.T, dir, trace string, files []string) string {
	t.Helper()
	data, err := os.ReadFile(trace)
	require.NoError(t, err)
	for _, f := range files {
		base := filepath.Base(f)
		require.True(t, bytes.Contains(data, []byte(base)), "the trace names %s", base)
		data = bytes.ReplaceAll(data, []byte(base), []byte("other-"+base))
	}
	out := filepath.Join(dir, "elsewhere-"+filepath.Base(trace))
	require.NoError(t, os.WriteFile(out, data, 0o644))
	return out
}

// truthFiles reads the ground-truth list of a proposal.
func truthFiles(text string) []string {
	var out []string
	in := false
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "ground_truth:"):
			in = true
		case in && strings.HasPrefix(line, "  - "):
			out = append(out, strings.Trim(strings.TrimPrefix(line, "  - "), `"`))
		default:
			in = false
		}
	}
	return out
}

func TestAProposalForARealTracePassesAsWrittenAndFailsWhenTheAgentMissesTheFiles(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(samples); err != nil {
		t.Skip("no ../shared/samples beside the repository")
	}
	for _, tc := range []struct {
		name, trace string
		// want are lines the proposal must hold.
		want []string
	}{
		{name: "a Codex rollout records its working directory", trace: "codex/acidicsoil-rollout-2025-11-17-codex-0.58.0.jsonl",
			want: []string{
				"name: acidicsoil-rollout-2025-11-17-codex-0.58.0  # the trace file's name\n",
				"cwd: /home/user/projects/temp/chatbot-ui  # the agent's working directory, as the trace records it\n",
				"ground_truth:  # the file the agent changed (at step 38)\n  - components/chat/chat-helpers/index.ts\n",
				"max_steps_to_target: 5  # the first call to touch a relevant file was call 3, plus the margin 2\n",
			}},
		{name: "a Gemini CLI session records none, so paths stay absolute", trace: "gemini-cli/skillsbench-gemini3pro-offer-letter.session.json",
			want: []string{
				"ground_truth:  # the files the agent changed (at steps 7 and 8); the trace records no working directory, so paths are as it spells them\n" +
					"  - /root/fill_offer_letter.py\n  - /root/offer_letter_filled.docx\n",
				"recall@10: {min: 0.9}  # share of the relevant files among the first 10 the agent came across: measured 1, less the margin 0.1\n",
			}},
		{name: "an OpenHands trajectory records its working directory", trace: "openhands/harbor-rfc-openhands_trajectory.json",
			want: []string{"cwd: /app  # the agent's working directory, as the trace records it\n", "  - hello.txt\n"}},
		{name: "an OpenHands replay with two changed files", trace: "openhands/openhands-runtime-trajs-basic_gui_mode.json",
			want: []string{"  - todo-app/index.html\n  - todo-app/app.js\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			trace := filepath.Join(samples, tc.trace)
			text, err := Propose(trace, defaults(dir))
			require.NoError(t, err)
			for _, w := range tc.want {
				assert.Contains(t, string(text), w)
			}
			file := save(t, dir, text)
			failed, msgs := check(t, file)
			require.False(t, failed, "check passes on the proposal as written:\n%s\n%s", text, msgs)

			retarget(t, file, elsewhere(t, dir, trace, truthFiles(string(text))))
			failed, msgs = check(t, file)
			assert.True(t, failed, "check fails on a run that never reaches the files:\n%s", msgs)
		})
	}
}

func TestAProposalFailsOnARunThatUsesTheIndexLess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	text, err := Propose("../../expectations/testdata/traces/index-first-then-edit.toolcalls.json", defaults(dir))
	require.NoError(t, err)
	// Two semantic calls, one file read: 2/3, less 0.1.
	assert.Contains(t, string(text), "    min_semantic_ratio: 0.56  # semantic / (semantic + file-level) calls: measured 0.67, less the margin 0.1\n")
	file := save(t, dir, text)
	failed, msgs := check(t, file)
	require.False(t, failed, msgs)

	// The same task solved by grepping and reading files.
	retarget(t, file, "../../expectations/testdata/traces/grep-then-read.toolcalls.json")
	failed, msgs = check(t, file)
	assert.True(t, failed)
	assert.Contains(t, msgs, "semantic ratio measured 0.00, required ≥ 0.56")
}

func TestAProposalNamesTheSessionOfAFileOfSeveral(t *testing.T) {
	t.Parallel()
	const trace = "../../testdata/init/two-tasks.openhands-output.jsonl"
	dir := t.TempDir()
	text, err := Propose(trace, defaults(dir))
	require.NoError(t, err)
	abs, err := filepath.Abs(trace)
	require.NoError(t, err)
	rel, err := filepath.Rel(dir, abs)
	require.NoError(t, err)
	// The first session changed no file: the second is the one to check.
	assert.Equal(t, `# Proposed by retrievaltest init from two-tasks.openhands-output.jsonl.
# Each value says where it comes from. The thresholds are this run's
# figures with a margin (see each one): check passes on this trace, and
# fails on a run that reaches the files later or finds fewer of them.
# Adjust them as your runs vary.
name: auth-2  # the session's id
trace: `+filepath.ToSlash(rel)+`  # the trace init read, relative to this file
trace_id: auth-2  # one of 2 sessions of the file; the others: docs-1
ground_truth:  # the file the agent changed (at step 3)
  - pkg/auth/token.go
expectations:
  - type: retrieval
    description: The agent finds the relevant files as early as in the recorded run.
    recall@10: {min: 0.9}  # share of the relevant files among the first 10 the agent came across: measured 1, less the margin 0.1
    mrr: {min: 0.9}  # 1 / rank of the first relevant file it came across: measured 1, less the margin 0.1
    read.recall@10: {min: 0.9}  # share of the relevant files among the first 10 it read: measured 1, less the margin 0.1
  - type: index_usage
    description: The agent reaches the code about as soon, and uses the index as much.
    max_steps_to_target: 3  # the first call to touch a relevant file was call 1, plus the margin 2
`, string(text))
	failed, msgs := check(t, save(t, dir, text))
	assert.False(t, failed, msgs)

	_, err = Propose(trace, Options{Dir: dir, TraceID: "docs-1"})
	assert.ErrorContains(t, err, "the agent changed no file")
	_, err = Propose(trace, Options{Dir: dir, TraceID: "auth-3"})
	assert.ErrorContains(t, err, `no session "auth-3" among its 2 sessions (docs-1, auth-2)`)
}

func TestADiffGivesTheGroundTruthAndTheWorkingDirectoryTheTraceLacks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const trace = "../../testdata/traces/toolcalls/absolute-paths-no-cwd.toolcalls.json"
	text, err := Propose(trace, Options{Dir: dir, Diff: "../../testdata/init/fix-token-expiry.diff", RatioMargin: 0.2, StepsMargin: 0})
	require.NoError(t, err)
	for _, w := range []string{
		"cwd: /root  # not recorded by the trace: step 1 names /root/pkg/auth/token.go\n",
		"fix-token-expiry.diff}  # the files of the diff\n",
		"recall@10: {min: 0.8}  # share of the relevant files among the first 10 the agent came across: measured 1, less the margin 0.2\n",
		"max_steps_to_target: 1  # the first call to touch a relevant file was call 1, plus the margin 0\n",
		"min_semantic_ratio: 0.3  # semantic / (semantic + file-level) calls: measured 0.5, less the margin 0.2\n",
	} {
		assert.Contains(t, string(text), w)
	}
	failed, msgs := check(t, save(t, dir, text))
	assert.False(t, failed, msgs)
}

func TestAMarginThatWouldLeaveNoMinimumKeepsTheMeasuredValue(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const trace = "../../testdata/traces/toolcalls/absolute-paths-no-cwd.toolcalls.json"
	text, err := Propose(trace, Options{Dir: dir, Diff: "../../testdata/init/fix-token-expiry.diff", RatioMargin: 0.5, StepsMargin: 1})
	require.NoError(t, err)
	assert.Contains(t, string(text), "min_semantic_ratio: 0.5  # semantic / (semantic + file-level) calls: measured 0.5; the margin 0.5 would leave no minimum\n")
	assert.Contains(t, string(text), "max_steps_to_target: 2  # the first call to touch a relevant file was call 1, plus the margin 1\n")
}

func TestProposeSaysWhyItCannot(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	unrelated := filepath.Join(dir, "unrelated.diff")
	require.NoError(t, os.WriteFile(unrelated, []byte("--- a/docs/x.md\n+++ b/docs/x.md\n@@ -1 +1 @@\n-a\n+b\n"), 0o644))
	for _, tc := range []struct {
		name, trace string
		opts        Options
		want        string
	}{
		{name: "a trace in which the agent changed nothing needs a diff",
			trace: "../../expectations/testdata/traces/two-instances.openhands-output.jsonl",
			want:  "the agent changed no file, so there is nothing to take for ground truth: give the change it had to make with -diff FILE"},
		{name: "a diff of files no call named leaves nothing to measure",
			trace: "../../testdata/traces/toolcalls/absolute-paths-no-cwd.toolcalls.json", opts: Options{Diff: unrelated},
			want: "nothing to set a threshold from: no call touched a ground-truth file"},
		{name: "a missing diff", trace: "../../testdata/traces/toolcalls/absolute-paths-no-cwd.toolcalls.json",
			opts: Options{Diff: filepath.Join(dir, "none.diff")}, want: "none.diff"},
		{name: "a missing trace", trace: filepath.Join(dir, "none.jsonl"), want: "none.jsonl"},
		{name: "a session id for a file of one session without one", trace: "../../testdata/init/two-edits.toolcalls.json",
			opts: Options{TraceID: "x"}, want: "two-edits.toolcalls.json holds one session, which has no id: leave the trace id out"},
		{name: "a ratio margin of 1 leaves nothing", trace: "../../testdata/init/two-tasks.openhands-output.jsonl",
			opts: Options{RatioMargin: 1}, want: "ratio margin 1: expected a number in [0, 1)"},
		{name: "a negative ratio margin", trace: "../../testdata/init/two-tasks.openhands-output.jsonl",
			opts: Options{RatioMargin: -0.1}, want: "ratio margin -0.1: expected a number in [0, 1)"},
		{name: "a negative steps margin", trace: "../../testdata/init/two-tasks.openhands-output.jsonl",
			opts: Options{StepsMargin: -1}, want: "steps margin -1: expected 0 or more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.opts.Dir = dir
			_, err := Propose(tc.trace, tc.opts)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestScalarQuotesWhatYAMLWouldReadOtherwise(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"pkg/auth/token.go":   "pkg/auth/token.go",
		"/root/a b.txt":       "/root/a b.txt",
		"a.txt ":              `"a.txt "`,
		"true":                `"true"`,
		"1.5":                 `"1.5"`,
		"-x":                  `"-x"`,
		"@scope/pkg":          `"@scope/pkg"`,
		"a: b":                `"a: b"`,
		"#tag":                `"#tag"`,
		"C:\\work\\a.go":      `"C:\\work\\a.go"`,
		"caf\u00e9/x.go":      `"café/x.go"`,
		"two\nlines":          `"two\nlines"`,
		"":                    `""`,
		"name with 'quote'":   `"name with 'quote'"`,
		"~":                   `"~"`,
		"no":                  `"no"`,
		"src/[id]/page.tsx":   `"src/[id]/page.tsx"`,
		"components/x-y_z.ts": "components/x-y_z.ts",
	} {
		got := scalar(in)
		assert.Equal(t, want, got, "scalar(%q)", in)
		s, err := expectations.Parse("s.yaml", []byte("name: "+got+"\ntrace: scenarioinit_test.go\nexpectations:\n  - type: tools\n    max_calls: 1\n"), expectations.LoadOptions{})
		if in == "" {
			continue // an empty name takes the file's
		}
		require.NoError(t, err, "scalar(%q) = %s", in, got)
		assert.Equal(t, in, s.Name, "scalar(%q) reads back", in)
	}
}

func TestAProposalSaysWhereEachValueComesFrom(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	text, err := Propose("../../testdata/init/two-edits.toolcalls.json", defaults(dir))
	require.NoError(t, err)
	got := string(text)
	assert.Contains(t, got, "name: two-edits  # the trace file's name\n")
	assert.Contains(t, got, "cwd: /repo  # the agent's working directory, as the trace records it\n")
	assert.Contains(t, got, "ground_truth:  # the files the agent changed (at steps 3 and 4)\n"+
		"  - services/checkout/discount.go\n  - services/checkout/discount_test.go\n")
	assert.NotContains(t, got, "trace_id:", "a file of one session needs none")
	assert.NotContains(t, got, "paths are as it spells them")
	failed, msgs := check(t, save(t, dir, text))
	assert.False(t, failed, msgs)

	// Naming the one session of a file writes it, with no list of others.
	const id = "7d4c2a10-5b1e-4f0e-9a77-3c2f1e8b9d01"
	text, err = Propose("../../testdata/examples/fix-token-expiry.claude.jsonl", Options{Dir: dir, TraceID: id, RatioMargin: 0.1, StepsMargin: 2})
	require.NoError(t, err)
	assert.Contains(t, string(text), "trace_id: "+id+"  # the session init read\n")

	text, err = Propose("../../testdata/traces/toolcalls/absolute-paths-no-cwd.toolcalls.json", defaults(dir))
	require.NoError(t, err)
	assert.Contains(t, string(text), "ground_truth:  # the file the agent changed (at step 3); the trace records no working directory, so paths are as it spells them\n"+
		"  - /root/pkg/auth/token.go\n")
	assert.NotContains(t, string(text), "cwd:")
}

func TestTheNameOfAProposalIsTheTraceFileWithoutItsSuffixes(t *testing.T) {
	t.Parallel()
	for file, want := range map[string]string{
		"runs/fix.claude.jsonl":                 "fix",
		"rollout-2025-11-17-codex-0.58.0.jsonl": "rollout-2025-11-17-codex-0.58.0",
		"a.traj.json":                           "a",
		"session.JSON":                          "session",
		"notes":                                 "notes",
		"v1.2":                                  "v1.2",
		".jsonl":                                ".jsonl",
	} {
		p := &proposal{traceFile: file}
		assert.Equal(t, want, p.name(), file)
	}
	p := &proposal{traceFile: "out.jsonl", traceID: "django-1"}
	assert.Equal(t, "django-1", p.name(), "a session's id names it")
}

func TestListNamesFiveAndCountsTheRest(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "a, b", list([]string{"a", "b"}))
	assert.Equal(t, "a, b, c, d, e", list([]string{"a", "b", "c", "d", "e"}))
	assert.Equal(t, "a, b, c, d, e and 2 more", list([]string{"a", "b", "c", "d", "e", "f", "g"}))
}
