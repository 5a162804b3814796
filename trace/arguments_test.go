package trace

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDecodeArguments(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		raw          string
		want         map[string]any
		wantProblems []string
	}{
		{"an object decodes as encoding/json does", `{"file_path": "a.go", "offset": 3}`, map[string]any{"file_path": "a.go", "offset": 3.0}, nil},
		{"absent arguments are nil", ``, nil, nil},
		{"a string is not an object", `"ls -la"`, nil, nil},
		{
			"a number out of range keeps the other keys",
			`{"file_path": "a.go", "offset": 1e400, "limit": 2}`,
			map[string]any{"file_path": "a.go", "offset": json.Number("1e400"), "limit": 2.0},
			[]string{"offset: 1e400 is out of range for a number"},
		},
		{
			"numbers out of range are named by their path, in order",
			`{"z": [1, -1e999], "a": {"b": 2e308}}`,
			map[string]any{"z": []any{1.0, json.Number("-1e999")}, "a": map[string]any{"b": json.Number("2e308")}},
			[]string{"a.b: 2e308 is out of range for a number", "z[1]: -1e999 is out of range for a number"},
		},
		{"broken JSON is one problem", `{"a": `, nil, []string{"not a valid JSON object (unexpected EOF); none was read"}},
		{"data after the object is one problem", `{"a": 1e400} {}`, nil, []string{"not a valid JSON object (data after the object); none was read"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, problems := DecodeArguments(json.RawMessage(tt.raw))
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.wantProblems, problems)
		})
	}
}

func TestArgumentsMapKeepsTheFileOfAnOutOfRangeOffset(t *testing.T) {
	t.Parallel()
	c := ToolCall{Arguments: json.RawMessage(`{"file_path": "a.go", "offset": 1e400}`)}
	assert.Equal(t, "a.go", c.ArgumentsMap()["file_path"])
}
