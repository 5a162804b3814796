package expectations_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/expectations"
	"github.com/agentretrieval/agentretrieval/groundtruth"
	"github.com/agentretrieval/agentretrieval/trace"
)

// measureTraces are fixtures of every shape the streaming read meets:
// Claude Code sessions with sidechains, parallel subagents, results
// without a call and malformed lines, and formats read whole (ATIF, tool
// calls).
func measureTraces(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pattern := range []string{
		"../testdata/examples/*.json*",
		"../testdata/traces/*/*.json*",
	} {
		m, err := filepath.Glob(pattern)
		require.NoError(t, err)
		files = append(files, m...)
	}
	require.NotEmpty(t, files)
	return files
}

func TestMeasureGivesTheEventsOfAWholeReadWithoutKeepingResults(t *testing.T) {
	t.Parallel()
	truth, err := groundtruth.Load("../testdata/examples/fix-token-expiry.groundtruth.json")
	require.NoError(t, err)
	measured := 0
	for _, file := range measureTraces(t) {
		whole, err := trace.ReadFile(file, trace.Options{MaxResultBytes: events.ResultBytesRead})
		if err != nil {
			continue // a ground-truth file, or a trace of several sessions
		}
		t.Run(filepath.Base(file), func(t *testing.T) {
			tax, err := events.LoadTaxonomy(nil)
			require.NoError(t, err)
			eopts := events.Options{Taxonomy: tax, GroundTruth: truth.Events()}
			eopts.Provenance.TaskName = filepath.Base(file)[:bytes.IndexByte([]byte(filepath.Base(file)), '.')]
			var want bytes.Buffer
			require.NoError(t, events.Normalize(whole, eopts).WriteJSON(&want))

			for _, keep := range []bool{false, true} {
				var keepResults func(string) string
				if keep {
					keepResults = func(r string) string { return r }
				}
				run, err := expectations.Measure(file, expectations.MeasureOptions{Truth: truth, KeepResults: keepResults})
				require.NoError(t, err)
				var got bytes.Buffer
				require.NoError(t, run.Document.WriteJSON(&got))
				assert.Equal(t, want.String(), got.String(), "keep results: %v", keep)

				require.Len(t, run.Session.Calls, len(whole.Calls))
				for i, c := range run.Session.Calls {
					w := whole.Calls[i]
					assert.JSONEq(t, orNull(w.Arguments), orNull(c.Arguments), "call %d arguments", i)
					assert.Equal(t, w.HasResult, c.HasResult, "call %d", i)
					if keep {
						assert.Equal(t, w.Result, c.Result, "call %d result kept", i)
					} else {
						assert.Empty(t, c.Result, "call %d result dropped", i)
					}
				}
				assert.Equal(t, whole.Answer, run.Session.Answer)
			}
		})
		measured++
	}
	assert.GreaterOrEqual(t, measured, 10, "traces measured")
}

func orNull(raw []byte) string {
	if len(raw) == 0 {
		return "null"
	}
	return string(raw)
}

func TestMeasureDropsCallsWhenAskedUnlessResultsAreKept(t *testing.T) {
	t.Parallel()
	const file = "../testdata/examples/fix-token-expiry.claude.jsonl"
	keep, err := expectations.Measure(file, expectations.MeasureOptions{})
	require.NoError(t, err)
	drop, err := expectations.Measure(file, expectations.MeasureOptions{DropCalls: true})
	require.NoError(t, err)
	report, err := expectations.Measure(file, expectations.MeasureOptions{DropCalls: true, KeepResults: strings.ToUpper})
	require.NoError(t, err)

	var a, b bytes.Buffer
	require.NoError(t, keep.Document.WriteJSON(&a))
	require.NoError(t, drop.Document.WriteJSON(&b))
	assert.Equal(t, a.String(), b.String(), "the events are the same")
	assert.Equal(t, keep.Metrics, drop.Metrics)
	require.NotEmpty(t, keep.Session.Calls)
	assert.Empty(t, drop.Session.Calls, "dropped")
	assert.Equal(t, len(keep.Session.Calls), drop.Session.NumCalls(), "counted")
	assert.Equal(t, keep.Session.Answer, drop.Session.Answer)
	assert.Equal(t, keep.Session.Usage, drop.Session.Usage)
	require.Len(t, report.Session.Calls, len(keep.Session.Calls), "kept for a report")
	for i, c := range keep.Session.Calls {
		assert.NotEmpty(t, c.Arguments, "call %d kept", i)
		assert.Equal(t, c.CumulativeTokens, drop.Session.CallTokens(i), "call %d's tokens", i)
		assert.Equal(t, c.Arguments, report.Session.Calls[i].Arguments, "call %d kept for a report", i)
	}
}

func TestEvaluateKeepsCallsOnlyForExpectationsThatMayReadThem(t *testing.T) {
	t.Parallel()
	reg := expectations.DefaultRegistry()
	type Mine struct {
		Tool string `yaml:"tool"`
	}
	require.NoError(t, expectations.RegisterFunc(reg, "mine", "a user's own type", func(p *Mine, run *expectations.Run) expectations.Outcome {
		return expectations.Outcome{Status: expectations.Pass}
	}))
	for _, tt := range []struct {
		name, expectations string
		kept               bool
	}{
		{"patterns and index usage read events only", "  - type: patterns\n    forbid: [fishing]\n  - type: index_usage\n    min_semantic_ratio: 0\n", false},
		{"errors without retries count failures only", "  - type: errors\n    max_failed: 10\n", false},
		{"errors with retries compare arguments", "  - type: errors\n    max_retries: 3\n", true},
		{"a sequence may match arguments", "  - type: sequence\n    calls: [{tool: Read}]\n", true},
		{"a user's own type may read anything", "  - type: mine\n    tool: Read\n", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			data := "name: args\ntrace: ../testdata/examples/fix-token-expiry.claude.jsonl\nexpectations:\n" + tt.expectations
			s, err := expectations.Parse("scenario.yaml", []byte(data), expectations.LoadOptions{Registry: reg})
			require.NoError(t, err)
			res, err := expectations.Evaluate(s, expectations.EvalOptions{Registry: reg})
			require.NoError(t, err)
			require.Len(t, res.Runs, 1)
			sess := res.Runs[0].Session
			require.Positive(t, sess.NumCalls())
			if !tt.kept {
				assert.Empty(t, sess.Calls)
				return
			}
			require.Len(t, sess.Calls, sess.NumCalls())
			for i, c := range sess.Calls {
				assert.NotNil(t, c.Arguments, "call %d", i)
			}
		})
	}
}

func TestMeasureKeepsWhatKeepResultsReturnsOfEachResultOnce(t *testing.T) {
	t.Parallel()
	for _, file := range measureTraces(t) {
		whole, err := trace.ReadFile(file, trace.Options{MaxResultBytes: events.ResultBytesRead})
		if err != nil {
			continue
		}
		seen := map[string]int{}
		run, err := expectations.Measure(file, expectations.MeasureOptions{KeepResults: func(r string) string {
			seen[r]++
			return "kept:" + r
		}})
		require.NoError(t, err, file)
		want := map[string]int{}
		for i, c := range whole.Calls {
			want[c.Result]++
			assert.Equal(t, "kept:"+c.Result, run.Session.Calls[i].Result, "%s call %d", file, i)
		}
		assert.Equal(t, want, seen, "%s: called once a result", file)
	}
}

func TestMeasureKeepsTheResultsOfTheSessionTraceIDNames(t *testing.T) {
	t.Parallel()
	// Two sessions of one file, each with a call 0.
	const file = "../trace/testdata/openhands/output.jsonl"
	for _, id := range []string{"shop__shop-101", "shop__shop-102"} {
		whole, err := trace.ReadFile(file, trace.Options{SessionID: id, MaxResultBytes: events.ResultBytesRead})
		require.NoError(t, err)
		run, err := expectations.Measure(file, expectations.MeasureOptions{TraceID: id, KeepResults: func(r string) string { return "kept:" + r }})
		require.NoError(t, err)
		require.Len(t, run.Session.Calls, len(whole.Calls))
		for i, c := range whole.Calls {
			assert.Equal(t, "kept:"+c.Result, run.Session.Calls[i].Result, "session %s call %d", id, i)
		}
	}
}

func TestMeasureEachGivesWhatMeasureGivesForEachUse(t *testing.T) {
	t.Parallel()
	truth, err := groundtruth.Load("../testdata/examples/fix-token-expiry.groundtruth.json")
	require.NoError(t, err)
	uses := []expectations.MeasureOptions{
		{Truth: truth},
		{},
		{Truth: truth, DropCalls: true},
		{Profiles: []string{"no-such-profile"}},
		{Truth: truth, Symbols: []string{"ValidateToken"}},
	}
	measured := 0
	for _, file := range measureTraces(t) {
		if _, err := trace.ReadFile(file, trace.Options{}); err != nil {
			continue // a ground-truth file, or a trace of several sessions
		}
		t.Run(filepath.Base(file), func(t *testing.T) {
			for _, drop := range []bool{false, true} {
				opts := slices.Clone(uses)
				if drop {
					// Every use drops the calls: the read drops them.
					for k := range opts {
						opts[k].DropCalls = true
					}
				}
				runs, errs := expectations.MeasureEach(file, opts)
				require.Len(t, runs, len(opts))
				require.Len(t, errs, len(opts))
				for k, o := range opts {
					want, wantErr := expectations.Measure(file, o)
					if wantErr != nil {
						assert.EqualError(t, errs[k], wantErr.Error(), "use %d", k)
						assert.Nil(t, runs[k], "use %d", k)
						continue
					}
					require.NoError(t, errs[k], "use %d", k)
					var a, b bytes.Buffer
					require.NoError(t, want.Document.WriteJSON(&a))
					require.NoError(t, runs[k].Document.WriteJSON(&b))
					assert.Equal(t, a.String(), b.String(), "use %d: document", k)
					assert.Equal(t, want.Metrics, runs[k].Metrics, "use %d: metrics", k)
					assert.Equal(t, want.Session.NumCalls(), runs[k].Session.NumCalls(), "use %d: calls counted", k)
					if drop {
						assert.Empty(t, runs[k].Session.Calls, "use %d: calls dropped", k)
					} else {
						require.Len(t, runs[k].Session.Calls, want.Session.NumCalls(), "use %d: calls kept", k)
						for i, c := range runs[k].Session.Calls {
							assert.Empty(t, c.Result, "use %d call %d: result dropped", k, i)
						}
					}
				}
				assert.Same(t, runs[0].Session, runs[4].Session, "one read")
			}
		})
		measured++
	}
	assert.GreaterOrEqual(t, measured, 10, "traces measured")
}

func TestMeasureEachNamesAnUnreadableTraceForEveryUse(t *testing.T) {
	t.Parallel()
	runs, errs := expectations.MeasureEach("../testdata/examples/no-such-trace.jsonl",
		[]expectations.MeasureOptions{{}, {DropCalls: true}})
	for k := range errs {
		assert.Nil(t, runs[k])
		assert.ErrorContains(t, errs[k], "no-such-trace.jsonl", "use %d", k)
	}
}

func TestMeasureEachCallsTheFirstUsesReadDoneOnceTheTraceIsRead(t *testing.T) {
	t.Parallel()
	const file = "../testdata/examples/fix-token-expiry.claude.jsonl"
	var calls []string
	opts := []expectations.MeasureOptions{
		{ReadDone: func() { calls = append(calls, "first") }},
		{ReadDone: func() { calls = append(calls, "second") }},
	}
	runs, errs := expectations.MeasureEach(file, opts)
	require.NoError(t, errors.Join(errs...))
	assert.Equal(t, []string{"first"}, calls, "once, the first use's")
	assert.NotNil(t, runs[1].Metrics)

	calls = nil
	_, errs = expectations.MeasureEach("../testdata/examples/no-such-trace.jsonl", opts[:1])
	assert.Error(t, errs[0])
	assert.Equal(t, []string{"first"}, calls, "an unreadable trace is done with too")

	calls = nil
	_, errs = expectations.MeasureEach(file, []expectations.MeasureOptions{{Profiles: []string{"no-such-profile"}, ReadDone: opts[0].ReadDone}})
	assert.Error(t, errs[0])
	assert.Empty(t, calls, "no use to read the trace for: it is not read")
}

func TestMeasureEachMeasuresTheUsesThatExtractAlikeFromOnePreparation(t *testing.T) {
	t.Parallel()
	truth, err := groundtruth.Load("../testdata/examples/fix-token-expiry.groundtruth.json")
	require.NoError(t, err)
	file := "../testdata/examples/fix-token-expiry.claude.jsonl"
	runs, errs := expectations.MeasureEach(file, []expectations.MeasureOptions{{Truth: truth}, {}, {CWD: "/elsewhere"}, {Truth: truth, Symbols: []string{"S"}}})
	for k, err := range errs {
		require.NoError(t, err, "use %d", k)
	}
	first := func(k int) *string {
		require.NotEmpty(t, runs[k].Metrics.Ranked.Surfaced, "use %d", k)
		return &runs[k].Metrics.Ranked.Surfaced[0]
	}
	assert.Same(t, first(0), first(1), "one taxonomy, one working directory: one preparation")
	assert.Same(t, first(0), first(3))
	assert.NotSame(t, first(0), first(2), "another working directory is measured alone")
	runs, errs = expectations.MeasureEach(file, []expectations.MeasureOptions{{Truth: truth}, {CWD: "/elsewhere"}})
	require.NoError(t, errors.Join(errs...))
	again, err := expectations.Measure(file, expectations.MeasureOptions{Truth: truth})
	require.NoError(t, err)
	assert.Equal(t, again.Metrics, runs[0].Metrics, "alone in its group: measured as Measure does")
}
