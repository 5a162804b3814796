package trace

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var cursorFixtures = filepath.Join("testdata", "cursor")

const cursorFixture = "terminal-edit-search.vscdb"

func TestCursorDatabaseFixtureIsReadAsWritten(t *testing.T) {
	t.Parallel()
	all, err := ReadFileAll(filepath.Join(cursorFixtures, cursorFixture), Options{Source: "db"})
	require.NoError(t, err)
	require.Len(t, all, 2, "one session a conversation")
	s := all[0]
	assert.Equal(t, "cursor", s.Format)
	assert.Equal(t, "c-new", s.ID)
	assert.Equal(t, "claude-4.5-sonnet", s.Model)
	assert.Equal(t, "/home/dev/shop", s.CWD, "the workspace a search result is keyed by")
	assert.Equal(t, "Make checkout handle empty carts", s.Prompt)
	assert.Equal(t, "Checkout returns ErrEmpty for an empty cart now.", s.Answer)
	assert.Equal(t, int64(1767348000000), s.Start.UnixMilli())
	require.NotNil(t, s.Usage)
	assert.Equal(t, Usage{InputTokens: 1500, OutputTokens: 65}, *s.Usage)
	const at = "2026-01-02T10:00:"
	want := []atifRow{
		{ID: "call_term", Name: "run_terminal_cmd", Args: `{"command":"go test ./cart","is_background":false}`, HasResult: true,
			Result: `{"output": "--- FAIL: TestCheckoutEmpty\nFAIL\tshop/cart\n", "rejected": false}`, Time: at + "05Z", Cum: 1240},
		{ID: "call_ls", Name: "list_dir", Args: `{"relative_workspace_path":"cart"}`, HasResult: true,
			Result: `{"directoryRelativeWorkspacePath": "cart", "files": [{"name": "checkout.go", "isDirectory": false}, {"name": "testdata", "isDirectory": true}]}`, Time: at + "06Z", Cum: 1240},
		{ID: "call_fs", Name: "file_search", Args: `{"query":"checkout"}`, HasResult: true,
			Result: `{"files": [{"uri": "/home/dev/shop/cart/checkout.go"}, {"uri": "/home/dev/shop/cart/checkout_test.go"}]}`, Time: at + "07Z", Cum: 1240},
		{ID: "call_grep", Name: "grep_search", Args: `{"query":"func Checkout"}`, HasResult: true,
			Result: `{"success": {"workspaceResults": {"/home/dev/shop": {"content": {"matches": [{"file": "cart/checkout.go", "matches": [{"lineNumber": 11, "content": "func Checkout(c *Cart) error {"}]}]}}}}}`, Time: at + "08Z", Cum: 1240},
		{ID: "call_edit", Name: "edit_file", Args: `{"target_file":"/home/dev/shop/cart/checkout.go","instructions":"guard empty carts","code_edit":"func Checkout(c *Cart) error {\n\tif len(c.Items) == 0 {\n\t\treturn ErrEmpty\n\t}\n// ... existing code ..."}`,
			HasResult: true, Result: "The apply model made the following changes to the file:\n\n```\n func Checkout(c *Cart) error {\n+\tif len(c.Items) == 0 {\n+\t\treturn ErrEmpty\n+\t}\n```", Time: at + "09Z", Cum: 1240},
		{ID: "call_sr", Name: "search_replace", Args: `{"file_path":"/home/dev/shop/cart/errors.go","old_string":"ErrEmptyy","new_string":"ErrEmpty"}`,
			HasResult: true, IsError: true, Result: `{"error": "The string to replace was not found in the file."}`, Time: at + "10Z", Cum: 1240},
		{ID: "call_rm", Name: "delete_file", Args: `{"target_file":"/home/dev/shop/cart/old.go"}`, HasResult: true, Result: `{"success": true}`, Time: at + "11Z", Cum: 1240},
		{ID: "call_mcp", Name: "mcp_linear_list_issues", Args: `{"query":"checkout"}`, HasResult: true, Result: `{"issues": [{"id": "SHOP-1"}]}`, Time: at + "12Z", Cum: 1240},
		{ID: "call_cut", Name: "read_file", Args: `{"target_file":"/home/dev/shop/cart/cart.go"}`, IsError: true, Time: at + "13Z", Cum: 1240},
	}
	assert.Equal(t, want, atifRows(t, s))
	assert.Equal(t, []string{
		"db: composerData:c-bad skipped: its value is not a conversation object (unexpected end of JSON input)",
		"db: bubbleId:c-new:b-missing is listed by composerData:c-new but has no row; the message is missing",
		"db: bubbleId:c-new:b-broken skipped: its value is not a message object (invalid character 'n' looking for beginning of object key string)",
	}, warningStrings(s))

	old := all[1]
	assert.Equal(t, "c-old", old.ID)
	assert.Equal(t, "", old.CWD, "no search result names the workspace")
	assert.Equal(t, []atifRow{{ID: "call_old", Name: "read_file", Args: `{"target_file":"/home/dev/shop/cart/cart.go"}`,
		HasResult: true, Result: "package cart\n\ntype Cart struct{}\n", Cum: -1}}, atifRows(t, old), "bubbles kept inline, in conversation")
}

func TestCursorSessionIsPickedByComposerID(t *testing.T) {
	t.Parallel()
	file := filepath.Join(cursorFixtures, cursorFixture)
	s, err := ReadFile(file, Options{SessionID: "c-old"})
	require.NoError(t, err)
	assert.Equal(t, "c-old", s.ID)
	_, err = ReadFile(file, Options{})
	var multi *MultiSessionError
	require.ErrorAs(t, err, &multi)
	assert.Equal(t, []string{"c-new", "c-old"}, multi.IDs)
}

func TestCursorReadsAStreamAsItReadsAFile(t *testing.T) {
	t.Parallel()
	file := filepath.Join(cursorFixtures, cursorFixture)
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	fromFile, err := ReadFileAll(file, Options{Source: "x"})
	require.NoError(t, err)
	fromStream, err := ReadAll(bytes.NewReader(data), Options{Source: "x"})
	require.NoError(t, err)
	assert.Equal(t, fromFile, fromStream)
}

func TestCursorWriteAheadLog(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(cursorFixtures, cursorFixture))
	require.NoError(t, err)
	dir := t.TempDir()
	db := filepath.Join(dir, "state.vscdb")
	require.NoError(t, os.WriteFile(db, data, 0o600))

	s, err := ReadFile(db, Options{SessionID: "c-old"})
	require.NoError(t, err)
	assert.Len(t, s.Warnings, 1, "the fixture's broken row only: no log beside the database")

	require.NoError(t, os.WriteFile(db+"-wal", []byte("not a log, but long enough for a header"), 0o600))
	s, err = ReadFile(db, Options{SessionID: "c-old"})
	require.NoError(t, err)
	require.Len(t, s.Warnings, 2)
	assert.Contains(t, s.Warnings[0].Message, "the write-ahead log beside the database was not applied (write-ahead log: magic number")
	assert.Len(t, s.Calls, 1, "the database is read as its last checkpoint left it")

	require.NoError(t, os.WriteFile(db+"-wal", nil, 0o600))
	s, err = ReadFile(db, Options{SessionID: "c-old"})
	require.NoError(t, err)
	assert.Len(t, s.Warnings, 1, "an empty log holds nothing to apply")

	after, err := os.ReadFile(db)
	require.NoError(t, err)
	assert.Equal(t, data, after, "the database is never written")
}

func TestCursorRefusesOtherDatabases(t *testing.T) {
	t.Parallel()
	other, err := os.ReadFile(filepath.Join("..", "internal", "sqlitefile", "testdata", "kv-interior-overflow.db"))
	require.NoError(t, err)
	assert.False(t, Cursor{}.Detect(other), "an SQLite file without cursorDiskKV")
	_, err = Read(bytes.NewReader(other), Options{Format: "cursor", Source: "kv.db"})
	assert.EqualError(t, err, "kv.db: not a Cursor database: an SQLite database without the table cursorDiskKV")

	_, err = Read(strings.NewReader(`{"v":1}`+strings.Repeat(" ", 100)), Options{Format: "cursor", Source: "j"})
	assert.ErrorContains(t, err, `j: not a well-formed SQLite file: the file does not start with "SQLite format 3"`)

	data, err := os.ReadFile(filepath.Join(cursorFixtures, cursorFixture))
	require.NoError(t, err)
	_, err = Read(bytes.NewReader(data[:len(data)/2]), Options{Format: "cursor", Source: "half"})
	assert.ErrorContains(t, err, "half: ")
	assert.ErrorContains(t, err, "not a well-formed SQLite file: page")
}

func TestCursorDetection(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(cursorFixtures, cursorFixture))
	require.NoError(t, err)
	assert.True(t, Cursor{}.Detect(data))
	assert.True(t, Cursor{}.Detect(data[:4096]), "the first page decides")
	assert.False(t, Cursor{}.Detect(data[:50]), "shorter than the header")
	assert.False(t, Cursor{}.Detect([]byte(`{"text":"CREATE TABLE cursorDiskKV"}`)), "the words in a JSON document")
	big := bytes.Clone(data[:4096])
	big[16], big[17] = 0, 1 // 65536-byte pages: the first page is the whole prefix
	assert.True(t, Cursor{}.Detect(big))
}

func TestCursorResultText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, result, text string
		failed             bool
		dir                string
	}{
		{"a read's contents", `{"contents":"a\nb","totalLinesInFile":2}`, "a\nb", false, ""},
		{"what the model was given", `{"diff":{},"resultForModel":"Success."}`, "Success.", false, ""},
		{"an error member", `{"error":"no"}`, `{"error":"no"}`, true, ""},
		{"a null error is none", `{"error":null,"x":1}`, `{"error":null,"x":1}`, false, ""},
		{"the workspace of a search", `{"success":{"workspaceResults":{"/w/b":{},"/w/a":{}}}}`, `{"success":{"workspaceResults":{"/w/b":{},"/w/a":{}}}}`, false, "/w/a"},
		{"text that is not JSON", `done`, `done`, false, ""},
		{"broken JSON stays as it is", `{"contents":`, `{"contents":`, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			text, failed, dir := cursorResultText(tt.result)
			assert.Equal(t, tt.text, text)
			assert.Equal(t, tt.failed, failed)
			assert.Equal(t, tt.dir, dir)
		})
	}
}
