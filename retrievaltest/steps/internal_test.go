package steps

import (
	"strings"
	"testing"

	"github.com/cucumber/godog"
	messages "github.com/cucumber/messages/go/v21"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFeatureDir(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, uri, want string }{
		{"a feature file in the current folder", "index-usage.feature", "."},
		{"a feature file in a subfolder", "specs/index-usage.feature", "specs"},
		{"a line suffix is dropped", "specs/index-usage.feature:12", "specs"},
		{"no URI means no folder", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, featureDir(tt.uri))
		})
	}
}

func TestParseFraction(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want float64
	}{
		{"a percentage is divided by 100", "60%", 0.6},
		{"a fraction is taken as written", "0.6", 0.6},
		{"a whole number is taken as written", "3", 3},
		{"a fractional percentage", "12.5%", 0.125},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseFraction(tt.in)
			require.NoError(t, err)
			assert.InDelta(t, tt.want, got, 1e-12)
		})
	}
}

func table(rows ...[]string) *godog.Table {
	tbl := &godog.Table{}
	for _, r := range rows {
		row := &messages.PickleTableRow{}
		for _, c := range r {
			row.Cells = append(row.Cells, &messages.PickleTableCell{Value: c})
		}
		tbl.Rows = append(tbl.Rows, row)
	}
	return tbl
}

func TestTruthFromTable(t *testing.T) {
	t.Parallel()
	type file struct {
		path  string
		grade int
	}
	tests := []struct {
		name    string
		tbl     *godog.Table
		want    []file
		wantErr string
	}{
		{"a single column without header lists files", table([]string{"pkg/auth/token.go"}, []string{"pkg/auth/errors.go"}),
			[]file{{"pkg/auth/token.go", 1}, {"pkg/auth/errors.go", 1}}, ""},
		{"a file header is skipped", table([]string{"file"}, []string{"pkg/auth/token.go"}),
			[]file{{"pkg/auth/token.go", 1}}, ""},
		{"a grade column grades files, in any column order", table([]string{"grade", "path"}, []string{"2", "pkg/auth/token.go"}, []string{"0", "README.md"}),
			[]file{{"pkg/auth/token.go", 2}, {"README.md", 0}}, ""},
		{"paths are normalized like every ground truth", table([]string{"/workspace/pkg/auth/token.go"}),
			[]file{{"pkg/auth/token.go", 1}}, ""},
		{"two columns need a header", table([]string{"pkg/a.go", "2"}), nil, "needs a header row"},
		{"a grade must be a whole number", table([]string{"file", "grade"}, []string{"pkg/a.go", "high"}), nil, `"high" is not a whole number`},
		{"a header alone is no ground truth", table([]string{"file"}), nil, "no files"},
		{"an empty table is no ground truth", table(), nil, "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			truth, err := truthFromTable(tt.tbl)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			var got []file
			for _, f := range truth.Files {
				got = append(got, file{f.Path, f.Grade})
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestStepCatalogue(t *testing.T) {
	t.Parallel()
	var r stepRunner
	defs := r.defs()
	cat := Catalogue()
	require.Len(t, cat, len(defs))
	seen := map[string]bool{}
	for i, d := range defs {
		assert.True(t, strings.HasPrefix(d.pattern, "^") && strings.HasSuffix(d.pattern, "$"), "step %q is not anchored", d.pattern)
		assert.False(t, seen[d.pattern], "step %q is registered twice", d.pattern)
		seen[d.pattern] = true
		assert.NotEmpty(t, d.doc, "step %q has no description", d.pattern)
		assert.Equal(t, d.pattern+"\t"+d.doc, cat[i])
	}
}

// A misspelt step is answered with the closest registered step, and the
// error of each undefined step names the scenario's earlier ones too, since
// godog fails the scenario with the last error only.
func TestUndefinedStepsSuggestTheClosestStepAndNameEveryOne(t *testing.T) {
	t.Parallel()
	ss := &stepState{}
	first := undefinedStep(ss, "the agent work directly")
	assert.ErrorIs(t, first, godog.ErrUndefined)
	assert.EqualError(t, first, `step is undefined: "the agent work directly" (did you mean "the agent works directly"?)`)

	second := undefinedStep(ss, "recall@5 is at leest 0.8")
	assert.ErrorIs(t, second, godog.ErrUndefined)
	assert.EqualError(t, second, `step is undefined: "the agent work directly" (did you mean "the agent works directly"?); `+
		`"recall@5 is at leest 0.8" (did you mean "recall@5 is at least 0.8"?)`)

	assert.EqualError(t, undefinedStep(nil, "the moon is made of cheese and crackers"),
		`step is undefined: "the moon is made of cheese and crackers"`, "nothing close: no suggestion")
}
