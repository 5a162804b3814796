package cli

import (
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestVersionLineNamesVersionCommitAndGo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		info  debug.BuildInfo
		stamp Stamp
		want  string
	}{
		{"a tagged module with its commit", debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.3.0"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "1a2b3c4d5e6f7a8b9c0d"}, {Key: "vcs.time", Value: "2026-11-20T10:00:00Z"}, {Key: "vcs.modified", Value: "false"},
		}}, Stamp{}, "retrievaltest v0.3.0 (commit 1a2b3c4d5e6f, 2026-11-20T10:00:00Z) go1.26.0"},
		{"a modified checkout", debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "true"},
		}}, Stamp{}, "retrievaltest (devel) (commit abc, modified) go1.26.0"},
		{"no version control information", debug.BuildInfo{GoVersion: "go1.26.0"}, Stamp{}, "retrievaltest (devel) go1.26.0"},
		{"a release build: the stamp wins over the checkout's settings", debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.time", Value: "2026-01-01T00:00:00Z"}, {Key: "vcs.modified", Value: "true"},
		}}, Stamp{Version: "v1.4.0", Commit: "0123456789abcdef0123", Date: "2026-12-07T10:00:00Z"}, "retrievaltest v1.4.0 (commit 0123456789ab, 2026-12-07T10:00:00Z) go1.26.0"},
		{"a stamped version without a commit keeps the checkout's", debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "abc"},
		}}, Stamp{Version: "v1.4.0-rc1"}, "retrievaltest v1.4.0-rc1 (commit abc) go1.26.0"},
		{"a stamped commit without a date", debug.BuildInfo{GoVersion: "go1.26.0"}, Stamp{Commit: "fedcba"}, "retrievaltest (devel) (commit fedcba) go1.26.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, VersionLine("retrievaltest", &tt.info, tt.stamp))
		})
	}
}

func TestWrapWordsBreaksAtSpaces(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []string{"one two", "three"}, WrapWords("one two three", 8))
	assert.Equal(t, []string{"a", "unbreakableword", "b"}, WrapWords("a unbreakableword b", 5))
	assert.Empty(t, WrapWords("  ", 10))
}

func TestSplitListDropsBlankItems(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []string{"a", "b c"}, SplitList(" a,, b c ,"))
	assert.Empty(t, SplitList(""))
}

func TestFailerPrefixesAndReturnsBadInput(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	code := Failer("retrievaltest x", &b)("bad %s", "flag")
	assert.Equal(t, ExitBadInput, code)
	assert.Equal(t, "retrievaltest x: bad flag\n", b.String())
}
