package runs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadResultFindsTheTaskAndReward(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		result string // "" for no result.json
		task   string
		reward *float64
		warn   string
	}{
		{"the rewards map's reward", `{"task_name": "fix-auth", "verifier_result": {"rewards": {"reward": 1.0, "partial": 0.5}}}`, "fix-auth", ptr(1.0), ""},
		{"the older single reward", `{"task_name": "fix-auth", "verifier_result": {"reward": 0.0}}`, "fix-auth", ptr(0.0), ""},
		{"a lone reward of another name", `{"task_name": "t", "verifier_result": {"rewards": {"accuracy": 0.25}}}`, "t", ptr(0.25), ""},
		{"a reward written as a string", `{"task_name": "t", "verifier_result": {"rewards": {"reward": "1"}}}`, "t", ptr(1.0), ""},
		{"no verifier result means no reward", `{"task_name": "t", "verifier_result": null, "exception_info": {"exception_type": "AgentTimeoutError"}}`, "t", nil, ""},
		{"a dataset prefix is kept in the task name", `{"task_name": "terminal-bench/fix-auth"}`, "terminal-bench/fix-auth", nil, ""},
		{"without result.json the folder names the task", "", "fix-auth", nil, "no result.json"},
		{"a malformed result.json is a warning", `{"task_name": `, "fix-auth", nil, "result.json:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "fix-auth__x1")
			require.NoError(t, os.MkdirAll(dir, 0o755))
			if tt.result != "" {
				require.NoError(t, os.WriteFile(filepath.Join(dir, "result.json"), []byte(tt.result), 0o644))
			}
			j := &Trial{Dir: dir, Folder: "fix-auth__x1"}
			j.readResult()
			assert.Equal(t, tt.task, j.Task)
			assert.Equal(t, "x1", j.ID)
			assert.Equal(t, tt.reward, j.Reward)
			if tt.warn == "" {
				assert.Empty(t, j.Warnings)
			} else {
				require.Len(t, j.Warnings, 1)
				assert.Contains(t, j.Warnings[0], tt.warn)
			}
		})
	}
}

func TestNameTrials(t *testing.T) {
	t.Parallel()
	trials := []*Trial{
		{Config: "a", Batch: "b1", Task: "solo", ID: "1"},
		{Config: "a", Batch: "b1", Task: "twice", ID: "1"},
		{Config: "a", Batch: "b1", Task: "twice", ID: "2"},
		{Config: "a", Batch: "b1", Task: "org/set", ID: "9"},
		{Config: "b", Batch: "b1", Task: "twice", ID: "1"},
		{Config: "c", Batch: "b1", Task: "same", ID: "1"},
		{Config: "c", Batch: "b2", Task: "same", ID: "1"},
	}
	nameTrials(trials)
	var got []string
	for _, tr := range trials {
		got = append(got, tr.Config+":"+tr.Name)
	}
	assert.Equal(t, []string{
		"a:solo", "a:twice__1", "a:twice__2", "a:org_set", "b:twice", "c:same__1__b1", "c:same__1__b2",
	}, got)
}

func TestWalkSkipsBatchResultsHiddenAndOutputFolders(t *testing.T) {
	t.Parallel()
	run := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(run, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	write("cfg/2026-01-01__00-00-00/result.json", `{"id": "job", "n_total_trials": 1}`) // a batch, not a trial
	write("cfg/2026-01-01__00-00-00/t__1/result.json", `{"task_name": "t"}`)
	write("cfg/flat__2/agent/trajectory.json", `{}`) // a trial without a batch folder
	write(".hidden/b/t__3/result.json", `{"task_name": "t"}`)
	write(OutDir+"/cfg/x__4/result.json", `{"task_name": "x"}`)
	write("mine/cfg/y__5/result.json", `{"task_name": "y"}`)

	trials, err := Walk(run, "mine")
	require.NoError(t, err)
	var rels []string
	for _, tr := range trials {
		rels = append(rels, tr.Rel)
	}
	assert.Equal(t, []string{"cfg/2026-01-01__00-00-00/t__1", "cfg/flat__2"}, rels)
	assert.Equal(t, "flat", trials[1].Task, "the task from the folder name")
	assert.Contains(t, trials[1].Warnings[0], "no result.json")

	_, err = Walk(filepath.Join(run, "nope"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// A run of a million trials holds every Trial: its path relative to the
// run, its task and its artifacts' name are the bytes of its folder's
// path where they are equal to a part of it, not copies.
func TestWalkSharesATrialsPathAndNamesWithItsFolder(t *testing.T) {
	t.Parallel()
	if filepath.Separator != '/' {
		t.Skip(`Rel, with "/", is a part of Dir only where the separator is "/"`)
	}
	run := t.TempDir()
	for _, folder := range []string{"fix-auth__a1", "fix-auth__a2", "add-cache__b1"} {
		dir := filepath.Join(run, "cfg", "batch", folder)
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "agent"), 0o755))
		task, _, _ := strings.Cut(folder, "__")
		require.NoError(t, os.WriteFile(filepath.Join(dir, "result.json"), []byte(`{"task_name": "`+task+`"}`), 0o644))
	}
	trials, err := Walk(run)
	require.NoError(t, err)
	require.Len(t, trials, 3)
	within := func(part, whole string) bool {
		p, w := uintptr(unsafe.Pointer(unsafe.StringData(part))), uintptr(unsafe.Pointer(unsafe.StringData(whole)))
		return p >= w && p+uintptr(len(part)) <= w+uintptr(len(whole))
	}
	for _, tr := range trials {
		assert.Equal(t, "cfg/batch/"+tr.Folder, tr.Rel)
		assert.True(t, within(tr.Rel, tr.Dir), "%s: Rel is the end of Dir", tr.Rel)
		assert.True(t, within(tr.Folder, tr.Dir), "%s: Folder is the end of Dir", tr.Rel)
		assert.True(t, within(tr.Task, tr.Dir), "%s: the task named in result.json, equal to the folder's, is the folder's bytes", tr.Rel)
	}
	byName := map[string]*Trial{}
	for _, tr := range trials {
		byName[tr.Name] = tr
	}
	require.Contains(t, byName, "fix-auth__a1", "a task run twice names its artifacts by folder")
	assert.True(t, within(byName["fix-auth__a1"].Name, byName["fix-auth__a1"].Dir), "a name equal to the folder is its bytes")
	require.Contains(t, byName, "add-cache")
	assert.True(t, within(byName["add-cache"].Name, byName["add-cache"].Dir), "a task's name is its bytes")
}
