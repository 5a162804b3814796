package trace

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ohV1Folder writes a conversation of n terminal calls, one event a file:
// each call's observation follows it, but for the calls the results map
// sends elsewhere (to the end, or nowhere).
func ohV1Folder(n int, late map[int]bool) fstest.MapFS {
	fsys := fstest.MapFS{"base_state.json": {Data: []byte(`{"id":"conv","agent":{"llm":{"model":"m"}},"workspace":{"working_dir":"/w"}}`)}}
	k := 0
	add := func(event string) {
		fsys[fmt.Sprintf("events/event-%05d-e%d.json", k, k)] = &fstest.MapFile{Data: []byte(event)}
		k++
	}
	observation := func(i int) string {
		return fmt.Sprintf(`{"kind":"ObservationEvent","id":"o%d","source":"environment","tool_name":"terminal","tool_call_id":"call_%d",`+
			`"observation":{"kind":"TerminalObservation","content":[{"type":"text","text":"out %d"}],"exit_code":%d}}`, i, i, i, i%2)
	}
	for i := range n {
		add(fmt.Sprintf(`{"kind":"ActionEvent","id":"a%d","timestamp":"2026-02-05T11:24:%02d.000001","source":"agent","tool_name":"terminal","tool_call_id":"call_%d",`+
			`"tool_call":{"id":"call_%d","name":"terminal","arguments":"{\"command\":\"cat f%d.go\"}"}}`, i, i%60, i, i, i))
		if !late[i] {
			add(observation(i))
		}
	}
	for i := range n {
		if late[i] && i%3 != 0 {
			add(observation(i))
		}
	}
	return fsys
}

func TestAnOpenHandsV1FolderHandsEachCallOverOnceItsResultIsRead(t *testing.T) {
	t.Parallel()
	const n = 12
	late := map[int]bool{3: true, 4: true, 6: true}
	fsys := ohV1Folder(n, late)
	whole, err := OpenHandsV1{}.ReadDir(fsys, Options{Source: "conv"})
	require.NoError(t, err)
	require.Len(t, whole.Calls, n)

	var order []int
	var calls []ToolCall
	var readSoFar []int
	s, err := OpenHandsV1{}.ReadDir(fsys, Options{Source: "conv", DropReleased: true, CallDone: func(s *Session, i int) bool {
		order = append(order, i)
		calls = append(calls, *s.Call(i))
		readSoFar = append(readSoFar, s.NumCalls())
		return true
	}})
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1, 2, 5, 7, 8, 9, 10, 11, 4, 3, 6}, order,
		"in the order the results come, then the calls left without one")
	assert.Equal(t, 1, readSoFar[0], "the first call is handed over before the next is read")
	assert.Empty(t, s.Calls, "every call is released and dropped")
	assert.Equal(t, n, s.NumCalls())
	for k, i := range order {
		assert.Equal(t, whole.Calls[i], calls[k], "call %d as the whole read has it", i)
	}
	assert.Equal(t, whole.CWD, s.CWD)
	assert.Equal(t, whole.Model, s.Model)
	assert.Equal(t, whole.Warnings, s.Warnings)

	kept, err := OpenHandsV1{}.ReadDir(fsys, Options{Source: "conv", CallDone: func(*Session, int) bool { return false }})
	require.NoError(t, err)
	assert.Equal(t, whole.Calls, kept.Calls, "calls not released stay whole, in order")
}

func TestAnOpenHandsV1FolderKeepsTheTokensOfTheCallsItDrops(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(openHandsFixtures, "v1-conversation")
	whole, err := ReadFile(dir, Options{})
	require.NoError(t, err)
	s, err := ReadFile(dir, Options{DropReleased: true, CallDone: func(*Session, int) bool { return true }})
	require.NoError(t, err)
	require.Equal(t, len(whole.Calls), s.NumCalls())
	some := false
	for i, c := range whole.Calls {
		assert.Equal(t, c.CumulativeTokens, s.CallTokens(i), "call %d", i)
		some = some || c.CumulativeTokens != nil
	}
	assert.True(t, some, "the fixture's calls have tokens")

	none, err := OpenHandsV1{}.ReadDir(ohV1Folder(3, nil), Options{DropReleased: true, CallDone: func(*Session, int) bool { return true }})
	require.NoError(t, err)
	assert.Nil(t, none.CallTokens(0), "a conversation without usage has no tokens")
}

func TestAnOpenHandsV1FolderWithSubAgentsIsHandedOverOnceRead(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(openHandsFixtures, "v1-delegate")
	whole, err := ReadFile(dir, Options{})
	require.NoError(t, err)
	var order []int
	s, err := ReadFile(dir, Options{DropReleased: true, CallDone: func(s *Session, i int) bool {
		order = append(order, i)
		return true
	}})
	require.NoError(t, err)
	var want []int
	for i := range whole.Calls {
		want = append(want, i)
	}
	assert.Equal(t, want, order, "every call, in the order the sub-agents' place among the main calls gives")
	assert.Equal(t, len(whole.Calls), s.NumCalls())
}

func TestAnOpenHandsV1FolderReadsAsBeforeWhatEverCallDoneDoes(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"v1-conversation", "v1-delegate"} {
		dir := filepath.Join(openHandsFixtures, name)
		if _, err := os.Stat(dir); err != nil {
			t.Fatal(err)
		}
		whole, err := ReadFile(dir, Options{})
		require.NoError(t, err)
		var got []ToolCall
		s, err := ReadFile(dir, Options{CallDone: func(s *Session, i int) bool {
			got = append(got, *s.Call(i))
			return false
		}})
		require.NoError(t, err)
		s.streamed = false // how it was handed over
		assert.Equal(t, whole, s, "%s: the session, calls kept", name)
		assert.ElementsMatch(t, whole.Calls, got, "%s: every call handed over", name)
	}
}

func TestOpenHandsV1EventFileNamesArePackedOnlyWhenTheyComeBackTheSame(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		idx    int64
		packed bool
	}{
		{"event-00012-9cab0d23-af1d-4f32-ad4f-a99d69b0714b.json", 12, true},
		{"event-99999-00000000-0000-4000-8000-000000000001.json", 99999, true},
		{"event-100000-00000000-0000-4000-8000-000000000001.json", 100000, true},
		{"event-00000-00000000-0000-4000-8000-000000000001.json", 0, true},
		{"event-00001-00000000-0000-4000-8000-000000000001.json", 12, false},
		{"event-00012-9CAB0D23-af1d-4f32-ad4f-a99d69b0714b.json", 12, false},
		{"event-000012-9cab0d23-af1d-4f32-ad4f-a99d69b0714b.json", 12, false},
		{"event-00012-9cab0d23af1d-4f32-ad4f-a99d69b0714b-.json", 12, false},
		{"event-00012-9cab0d23-af1d-4f32-ad4f-a99d69b0714g.json", 12, false},
		{"event-00012-aaaaaaaa.json", 12, false},
		{"event-00012-9cab0d23-af1d-4f32-ad4f-a99d69b0714b.jsonx", 12, false},
	}
	for _, tt := range tests {
		var uuid [16]byte
		packed := ohV1PackName(tt.name, tt.idx, &uuid)
		assert.Equal(t, tt.packed, packed, tt.name)
		if packed {
			assert.Equal(t, tt.name, ohV1UnpackName(tt.idx, &uuid))
		}
	}

	fsys := fstest.MapFS{}
	names := []string{
		"event-00002-00000000-0000-4000-8000-000000000003.json",
		"event-00002-00000000-0000-4000-8000-000000000002.json",
		"event-00002-zzz.json",
		"event-00002-AAA.json",
		"event-00001-ffffffff-0000-4000-8000-000000000001.json",
		"event-100000-00000000-0000-4000-8000-000000000001.json",
		"event-00010-x.json",
	}
	for _, n := range names {
		fsys["events/"+n] = &fstest.MapFile{Data: []byte(`{}`)}
	}
	fsys["events/event-00003-dir.json/x"] = &fstest.MapFile{}
	fsys["events/notes.json"] = &fstest.MapFile{}
	fsys["events/event-0003-short.json"] = &fstest.MapFile{}
	l := ohV1ListEventFiles(fsys, "events")
	var got []string
	for k := range l.len() {
		got = append(got, l.name(k))
	}
	assert.Equal(t, []string{
		"event-00001-ffffffff-0000-4000-8000-000000000001.json",
		"event-00002-00000000-0000-4000-8000-000000000002.json",
		"event-00002-00000000-0000-4000-8000-000000000003.json",
		"event-00002-AAA.json",
		"event-00002-zzz.json",
		"event-00010-x.json",
		"event-100000-00000000-0000-4000-8000-000000000001.json",
	}, got, "by index, then by name, packed or not")
	assert.True(t, ohV1HasEventFile(fsys, "events"))
	assert.False(t, ohV1HasEventFile(fsys, "missing"))
	assert.False(t, ohV1HasEventFile(fstest.MapFS{"events/notes.json": {}}, "events"))
}

func TestOpenHandsV1EventFilesAreListedPastOneBatch(t *testing.T) {
	t.Parallel()
	fsys := ohV1Folder(1500, nil)
	s, err := OpenHandsV1{}.ReadDir(fsys, Options{Source: "conv"})
	require.NoError(t, err)
	require.Len(t, s.Calls, 1500)
	for i, c := range s.Calls {
		require.Equal(t, fmt.Sprintf("call_%d", i), c.ID)
		require.True(t, c.HasResult)
	}
}
