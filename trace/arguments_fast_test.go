package trace

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

// argumentSeeds are arguments of every shape: nesting, escapes, invalid
// UTF-8, repeated keys, numbers at the edges of float64, broken JSON.
var argumentSeeds = []string{
	`{}`,
	`{"file_path": "/src/a.go", "offset": 10, "limit": 2.5e1}`,
	`{"command": "grep -n \"x\\ty\" \u00e9\ud83d\ude00 \ud800", "flags": [true, false, null, -0, 1e-400]}`,
	`{"a": {"b": [[], {}, [1, {"c": "d"}]]}, "a": "last wins"}`,
	"{\"bad utf8\": \"\xff\xfe\", \"ok\": 1}",
	`{"offset": 1e400}`,
	`{"x": 1} trailing`,
	`{"x": [1, 2,]}`,
	`{"x": "unterminated}`,
	`{"x": 01}`,
	`{"\u0000key": "\u001f"}`,
	`{"x": tru}`,
}

func TestArgumentsDecodeLikeEncodingJSON(t *testing.T) {
	for _, seed := range argumentSeeds {
		assertDecodesLikeEncodingJSON(t, []byte(seed))
	}
}

func assertDecodesLikeEncodingJSON(t *testing.T, raw []byte) {
	t.Helper()
	var want map[string]any
	wantErr := json.Unmarshal(raw, &want)
	got, ok := decodeArgumentsFast(raw)
	if wantErr != nil {
		assert.False(t, ok, "%q is refused as encoding/json refuses it (%v)", raw, wantErr)
		return
	}
	if assert.True(t, ok, "%q is decoded as encoding/json decodes it", raw) {
		assert.Equal(t, want, got, "%q", raw)
	}
}

func FuzzArgumentsDecodeLikeEncodingJSON(f *testing.F) {
	for _, seed := range argumentSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) == 0 || raw[0] != '{' {
			return
		}
		assertDecodesLikeEncodingJSON(t, raw)
	})
}
