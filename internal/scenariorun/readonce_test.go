package scenariorun

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/collect"
	"github.com/agentretrieval/agentretrieval/expectations"
)

// countReads makes measureEach count the reads of each trace file and the
// uses each read served, until the test ends.
func countReads(t *testing.T) (reads, uses map[string]int) {
	reads, uses = map[string]int{}, map[string]int{}
	var mu sync.Mutex
	t.Cleanup(func() { measureEach = expectations.MeasureEach })
	measureEach = func(file string, opts []expectations.MeasureOptions) ([]*expectations.Run, []error) {
		mu.Lock()
		reads[filepath.Base(file)]++
		uses[filepath.Base(file)] += len(opts)
		mu.Unlock()
		return expectations.MeasureEach(file, opts)
	}
	return reads, uses
}

// writeScenario writes a scenario file naming the traces (paths from the
// module's root) and returns its path.
func writeScenario(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name+".yaml")
	require.NoError(t, os.WriteFile(path, []byte("name: "+name+"\n"+body), 0o644))
	return path
}

// writeNotATrace writes a file that no reader reads and returns its path.
func writeNotATrace(t *testing.T, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, []byte("not a trace\n"), 0o644))
	return path
}

func TestEveryTraceIsReadOnceHoweverManyScenariosNameIt(t *testing.T) {
	root, err := filepath.Abs("../../testdata/examples")
	require.NoError(t, err)
	claude := filepath.Join(root, "fix-token-expiry.claude.jsonl")
	aura := filepath.Join(root, "add-coupon-support.aura.toolcalls.json")
	truth := filepath.Join(root, "fix-token-expiry.groundtruth.json")
	dir := t.TempDir()
	files := []string{
		writeScenario(t, dir, "a", "trace: "+claude+"\nground_truth: {from: "+truth+"}\nexpectations:\n  - type: retrieval\n    recall@5: {min: 0.5}\n"),
		writeScenario(t, dir, "b", "trace: "+claude+"\nexpectations:\n  - type: patterns\n    forbid: [fishing]\n"),
		writeScenario(t, dir, "c", "traces: ["+claude+", "+aura+"]\nexpectations:\n  - type: tools\n    max_calls: 3\n"),
		writeScenario(t, dir, "d", "trace: "+aura+"\nprofile: aura\nexpectations:\n  - type: patterns\n    forbid: [guessing]\n"),
		writeScenario(t, dir, "e", "trace: "+writeNotATrace(t, dir, "no-such.claude.jsonl")+"\nexpectations:\n  - type: patterns\n    forbid: [fishing]\n"),
	}
	for _, jobs := range []int{1, 3} {
		reads, uses := countReads(t)
		results, bad := CheckFiles(context.Background(), files, nil, Options{Jobs: jobs})
		assert.Equal(t, map[string]int{"fix-token-expiry.claude.jsonl": 1, "add-coupon-support.aura.toolcalls.json": 1, "no-such.claude.jsonl": 1}, reads, "jobs %d: reads", jobs)
		assert.Equal(t, map[string]int{"fix-token-expiry.claude.jsonl": 3, "add-coupon-support.aura.toolcalls.json": 2, "no-such.claude.jsonl": 1}, uses, "jobs %d: uses", jobs)

		// The same results as evaluating each scenario on its own.
		require.Len(t, results, 4, "jobs %d: %v", jobs, bad)
		for i, res := range results {
			s, err := expectations.Load(files[i], expectations.LoadOptions{})
			require.NoError(t, err)
			alone, err := Evaluate(context.Background(), Options{}, s)
			require.NoError(t, err)
			assert.Equal(t, alone.Results, res.Results, "jobs %d: scenario %s", jobs, s.Name)
			require.Len(t, res.Runs, len(alone.Runs))
			for r := range res.Runs {
				assert.Equal(t, alone.Runs[r].Metrics, res.Runs[r].Metrics, "jobs %d: scenario %s run %d", jobs, s.Name, r)
			}
		}
		require.Len(t, bad, 1, "jobs %d", jobs)
		s, err := expectations.Load(files[4], expectations.LoadOptions{})
		require.NoError(t, err)
		_, err = Evaluate(context.Background(), Options{}, s)
		require.Error(t, err)
		assert.Equal(t, files[4], bad[0].File)
		assert.Contains(t, bad[0].Error(), err.Error(), "jobs %d: the error Evaluate gives", jobs)
	}
}

func TestAScenarioFailsWithItsFirstUnreadableTrace(t *testing.T) {
	dir := t.TempDir()
	file := writeScenario(t, dir, "two-bad", "traces:\n  - "+writeNotATrace(t, dir, "first-missing.jsonl")+"\n  - "+writeNotATrace(t, dir, "second-missing.jsonl")+"\nexpectations:\n  - type: patterns\n    forbid: [fishing]\n")
	s, err := expectations.Load(file, expectations.LoadOptions{})
	require.NoError(t, err)
	for _, jobs := range []int{1, 2} {
		results, errs := EvaluateAll(context.Background(), []*expectations.Scenario{s}, Options{Jobs: jobs})
		assert.Nil(t, results[0])
		require.Len(t, errs, 1)
		assert.Contains(t, errs[0].Error(), "first-missing.jsonl", "jobs %d", jobs)
		assert.NotContains(t, errs[0].Error(), "second-missing.jsonl", "jobs %d", jobs)
		assert.Contains(t, errs[0].Error(), file+":3:", "jobs %d: placed at the trace's line", jobs)
	}
}

func TestScenariosNotStartedFailWithTheContextsError(t *testing.T) {
	root, err := filepath.Abs("../../testdata/examples")
	require.NoError(t, err)
	file := writeScenario(t, t.TempDir(), "late", "trace: "+filepath.Join(root, "fix-token-expiry.claude.jsonl")+"\nexpectations:\n  - type: patterns\n    forbid: [fishing]\n")
	s, err := expectations.Load(file, expectations.LoadOptions{})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	reads, _ := countReads(t)
	_, errs := EvaluateAll(ctx, []*expectations.Scenario{s}, Options{Jobs: 1})
	require.Len(t, errs, 1)
	assert.True(t, errors.Is(errs[0], context.Canceled))
	assert.Equal(t, file+": context canceled", errs[0].Error())
	assert.Empty(t, reads, "nothing read")
}

func TestScenariosThatReadNoNamedTraceAreEvaluatedAlone(t *testing.T) {
	root, err := filepath.Abs("../../testdata/examples")
	require.NoError(t, err)
	dir := t.TempDir()
	symbols := filepath.Join(dir, "gone.symbols")
	require.NoError(t, os.WriteFile(symbols, []byte("ValidateToken\n"), 0o644))
	files := []string{
		// A command that exports nothing: recorded, then an error of its own.
		writeScenario(t, dir, "recorded", "run: \"exit 0\"\nexpectations:\n  - type: patterns\n    forbid: [fishing]\n"),
		// Its symbols file is gone by the time it is evaluated.
		writeScenario(t, dir, "symbols", "trace: "+filepath.Join(root, "fix-token-expiry.claude.jsonl")+"\nsymbols: "+symbols+"\nexpectations:\n  - type: patterns\n    forbid: [fishing]\n"),
	}
	var scenarios []*expectations.Scenario
	for _, f := range files {
		s, err := expectations.Load(f, expectations.LoadOptions{})
		require.NoError(t, err)
		scenarios = append(scenarios, s)
	}
	require.NoError(t, os.Remove(symbols))
	reads, _ := countReads(t)
	results, errs := evaluateAll(context.Background(), scenarios, Options{Jobs: 2, Recorder: collect.Record})
	assert.Nil(t, results[0])
	require.Error(t, errs[0])
	assert.Contains(t, errs[0].Error(), "exported no span or log record")
	assert.Nil(t, results[1])
	require.Error(t, errs[1])
	assert.Contains(t, errs[1].Error(), files[1]+": symbols:")
	assert.Empty(t, reads, "no trace read for either")
}

func TestReadsDoneIsCalledOnceTheLastTraceIsRead(t *testing.T) {
	root, err := filepath.Abs("../../testdata/examples")
	require.NoError(t, err)
	claude := filepath.Join(root, "fix-token-expiry.claude.jsonl")
	aura := filepath.Join(root, "add-coupon-support.aura.toolcalls.json")
	dir := t.TempDir()
	files := []string{
		writeScenario(t, dir, "a", "trace: "+claude+"\nexpectations:\n  - type: patterns\n    forbid: [fishing]\n"),
		writeScenario(t, dir, "b", "traces: ["+claude+", "+aura+"]\nexpectations:\n  - type: tools\n    max_calls: 3\n"),
		writeScenario(t, dir, "c", "trace: "+writeNotATrace(t, dir, "no-such.claude.jsonl")+"\nexpectations:\n  - type: patterns\n    forbid: [fishing]\n"),
		// A command that exports nothing: it reads no trace, and is done
		// reading once judged.
		writeScenario(t, dir, "recorded", "run: \"exit 0\"\nexpectations:\n  - type: patterns\n    forbid: [fishing]\n"),
	}
	for _, jobs := range []int{1, 3} {
		var mu sync.Mutex
		read, judged, done := 0, 0, 0
		measureEach = func(file string, opts []expectations.MeasureOptions) ([]*expectations.Run, []error) {
			readDone := opts[0].ReadDone
			opts[0].ReadDone = func() {
				mu.Lock()
				read++
				mu.Unlock()
				readDone()
			}
			return expectations.MeasureEach(file, opts)
		}
		opts := Options{Jobs: jobs, Recorder: collect.Record,
			ReadsDone: func() {
				mu.Lock()
				defer mu.Unlock()
				done++
				assert.Equal(t, 3, read, "jobs %d: every trace read", jobs)
				assert.Less(t, judged, 4, "jobs %d: before the last scenario is judged", jobs)
			},
			Progress: func(*expectations.Scenario, *expectations.ScenarioResult, error) {
				mu.Lock()
				defer mu.Unlock()
				judged++
			}}
		results, bad := CheckFiles(context.Background(), files, nil, opts)
		measureEach = expectations.MeasureEach
		assert.Len(t, results, 2, "jobs %d", jobs)
		assert.Len(t, bad, 2, "jobs %d", jobs)
		assert.Equal(t, 4, judged, "jobs %d", jobs)
		assert.Equal(t, 1, done, "jobs %d: once", jobs)
	}

	// Nothing to read but a scenario without a trace, or a cancelled run:
	// done all the same.
	for _, cancelled := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		if cancelled {
			cancel()
		}
		done := 0
		CheckFiles(ctx, files[:1], nil, Options{Jobs: 1, ReadsDone: func() { done++ }})
		cancel()
		assert.Equal(t, 1, done, "cancelled %v", cancelled)
	}
}
