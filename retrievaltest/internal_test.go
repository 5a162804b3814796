package retrievaltest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/expectations"
)

func TestSubtestNames(t *testing.T) {
	t.Parallel()
	results := func(types ...string) []*expectations.Result {
		var rs []*expectations.Result
		for _, ty := range types {
			rs = append(rs, &expectations.Result{Type: ty})
		}
		return rs
	}
	tests := []struct {
		name  string
		types []string
		want  []string
	}{
		{"distinct types keep their names", []string{"index_usage", "retrieval"}, []string{"index_usage", "retrieval"}},
		{"a repeated type is numbered from its second occurrence", []string{"index_usage", "retrieval", "index_usage", "index_usage"}, []string{"index_usage", "retrieval", "index_usage#2", "index_usage#3"}},
		{"no results give no names", nil, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, subtestNames(results(tt.types...)))
		})
	}
}

func TestExpand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, f := range []string{"b.yaml", "a.yaml", "c.yml", "notes.txt", "sub/d.yaml"} {
		p := filepath.Join(dir, f)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("name: x\n"), 0o644))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "empty"), 0o755))
	in := func(names ...string) []string {
		var out []string
		for _, n := range names {
			out = append(out, filepath.Join(dir, n))
		}
		return out
	}

	tests := []struct {
		name     string
		patterns []string
		want     []string
		wantErr  []string
	}{
		{"a glob matches files sorted", in("*.yaml"), in("a.yaml", "b.yaml"), nil},
		{"a folder means its yaml and yml files", in("."), in("a.yaml", "b.yaml", "c.yml"), nil},
		{"a file named twice is checked once", append(in("a.yaml"), in("*.yaml")...), in("a.yaml", "b.yaml"), nil},
		{"a pattern that matches nothing is an error", in("*.json", "a.yaml"), in("a.yaml"), []string{`*.json" matches no scenario file`}},
		{"a folder without scenario files is an error", in("empty"), nil, []string{`empty" matches no scenario file`}},
		{"a malformed glob is an error", in("[.yaml"), nil, []string{"syntax error in pattern"}},
		{"no pattern at all is an error", nil, nil, []string{"no scenario files given"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := expand(tt.patterns)
			assert.Equal(t, tt.want, got)
			if tt.wantErr == nil {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			for _, w := range tt.wantErr {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}
