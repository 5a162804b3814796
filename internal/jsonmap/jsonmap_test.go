package jsonmap

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// seeds are objects of every shape: nesting, escapes, invalid UTF-8,
// repeated keys, numbers at the edges of float64, broken JSON.
var seeds = []string{
	`{}`,
	`{"file_path": "/src/a.go", "offset": 10, "limit": 2.5e1}`,
	`{"command": "grep -n \"x\\ty\" \u00e9\ud83d\ude00 \ud800", "flags": [true, false, null, -0, 1e-400]}`,
	`{"a": {"b": [[], {}, [1, {"c": "d"}]]}, "a": "last wins"}`,
	"{\"bad utf8\": \"\xff\xfe\", \"ok\": 1}",
	`{"content": "x\ny", "file_path": "a.go", "content": "again"}`,
	`{"content": {"content": "nested"}, "new_string": 5}`,
	`{"content": [1, {"a": [true, null, "x", -2.5e3]}], "new_string": 1e400}`,
	`{"offset": 1e400}`,
	`{"x": 1} trailing`,
	`{"x": [1, 2,]}`,
	`{"x": "unterminated}`,
	`{"content": "bad escape \q"}`,
	"{\"content\": \"control \x01 byte\"}",
	`{"x": 01}`,
	`{"\u0000key": "\u001f"}`,
	`{"x": tru}`,
}

// skipContent leaves out the members a writer's text is in.
func skipContent(key string) bool { return key == "content" || key == "new_string" }

// unmarshalSkipping is json.Unmarshal with the top-level values of the
// keys skip reports replaced by nil.
func unmarshalSkipping(raw []byte, skip func(string) bool) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	for k := range m {
		if skip != nil && skip(k) {
			m[k] = nil
		}
	}
	return m, nil
}

func assertDecodes(t *testing.T, raw []byte, skip func(string) bool) {
	t.Helper()
	want, wantErr := unmarshalSkipping(raw, skip)
	got, ok := Decode(raw, skip)
	if wantErr != nil {
		assert.False(t, ok, "%q is refused as encoding/json refuses it (%v)", raw, wantErr)
		return
	}
	if assert.True(t, ok, "%q is decoded as encoding/json decodes it", raw) {
		assert.Equal(t, want, got, "%q", raw)
	}
}

func TestDecodeGivesWhatEncodingJSONGives(t *testing.T) {
	t.Parallel()
	for _, seed := range seeds {
		assertDecodes(t, []byte(seed), nil)
	}
}

func TestDecodeLeavesOutTheValuesOfSkippedTopLevelKeys(t *testing.T) {
	t.Parallel()
	for _, seed := range seeds {
		assertDecodes(t, []byte(seed), skipContent)
	}
	got, ok := Decode([]byte(`{"content": "text\n", "file_path": "a.go", "nested": {"content": "kept"}, "new_string": 5}`), skipContent)
	assert.True(t, ok)
	assert.Equal(t, map[string]any{"content": nil, "file_path": "a.go", "nested": map[string]any{"content": "kept"}, "new_string": nil}, got,
		"only top-level members are left out; a nested one is decoded")
	for _, raw := range []string{`{"content": "bad escape \q"}`, `{"content": [1, {"a": 1e400}]}`, `{"content": {"a": [tru]}}`} {
		_, ok = Decode([]byte(raw), skipContent)
		assert.False(t, ok, "%s: a value left out is still checked", raw)
	}
}

func TestDecodeKeepsNamesAcrossObjectsAndStopsKeepingPastTheBound(t *testing.T) {
	// One decoder, as the pool hands it out here: the names of earlier
	// objects, escaped or not, and more names than it keeps.
	d := &decoder{}
	decode := func(raw string) map[string]any {
		d.sc.Reset([]byte(raw))
		m, ok := d.object(nil, false)
		assert.True(t, ok, raw)
		return m
	}
	for i := range maxKeys + 10 {
		raw := fmt.Sprintf(`{"k%d": %d, "file_path": "a.go", "\u0066ile": "b.go"}`, i, i)
		assert.Equal(t, map[string]any{fmt.Sprintf("k%d", i): float64(i), "file_path": "a.go", "file": "b.go"}, decode(raw), raw)
	}
	assert.Len(t, d.keys, maxKeys, "names are kept up to the bound")
	assert.Equal(t, "file", d.key([]byte("file")), "an escaped name is kept as its value")
	assert.Equal(t, "k0", d.key([]byte("k0")))
	assert.Equal(t, fmt.Sprint("k", maxKeys+5), d.key([]byte(fmt.Sprint("k", maxKeys+5))), "a name past the bound is still its own value")
	assert.Len(t, d.keys, maxKeys)
}

// assertDecodesCheckedAsDecode checks that on valid JSON, which is what
// DecodeChecked is for, it gives what Decode gives.
func assertDecodesCheckedAsDecode(t *testing.T, raw []byte, skip func(string) bool) {
	t.Helper()
	if !json.Valid(raw) {
		return
	}
	want, wantOK := Decode(raw, skip)
	got, ok := DecodeChecked(raw, skip)
	assert.Equal(t, wantOK, ok, "%q", raw)
	assert.Equal(t, want, got, "%q", raw)
}

func TestDecodeCheckedGivesWhatDecodeGivesOnValidJSON(t *testing.T) {
	t.Parallel()
	valid := 0
	for _, seed := range seeds {
		valid += b2i(json.Valid([]byte(seed)))
		assertDecodesCheckedAsDecode(t, []byte(seed), nil)
		assertDecodesCheckedAsDecode(t, []byte(seed), skipContent)
	}
	assert.GreaterOrEqual(t, valid, 7)
	_, ok := DecodeChecked([]byte(`{"content": [1, {"a": "x", "b": 1e400}]}`), skipContent)
	assert.False(t, ok, "a number float64 cannot hold is still refused in a value left out")
}

func TestDecodeCheckedPassesOverTheStringsOfSkippedMembers(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{
		`{"content": "bad escape \q", "file_path": "a.go"}`,
		"{\"content\": \"control \x01 byte\", \"file_path\": \"a.go\"}",
		"{\"content\": [\"\xff\", {\"k\": \"\x02\"}], \"file_path\": \"a.go\"}",
	} {
		_, ok := Decode([]byte(raw), skipContent)
		assert.False(t, ok, "%q: Decode checks the strings it leaves out", raw)
		got, ok := DecodeChecked([]byte(raw), skipContent)
		if assert.True(t, ok, "%q: DecodeChecked passes over them", raw) {
			assert.Equal(t, "a.go", got["file_path"], raw)
			assert.Contains(t, got, "content", raw)
		}
	}
	for _, raw := range []string{
		"{\"file_path\": \"\x01\", \"content\": \"x\"}",
		`{"content": "x", "nested": {"content": "bad \q"}}`,
		`{"content": "unterminated}`,
		`{"content": [1, 2,]}`,
	} {
		_, ok := DecodeChecked([]byte(raw), skipContent)
		assert.False(t, ok, "%q: what is decoded, and the structure of what is not, are still checked", raw)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func FuzzDecode(f *testing.F) {
	for _, seed := range seeds {
		f.Add([]byte(seed), false)
		f.Add([]byte(seed), true)
	}
	f.Fuzz(func(t *testing.T, raw []byte, skip bool) {
		if len(raw) == 0 || raw[0] != '{' {
			return
		}
		if skip {
			assertDecodes(t, raw, skipContent)
			assertDecodesCheckedAsDecode(t, raw, skipContent)
		} else {
			assertDecodes(t, raw, nil)
			assertDecodesCheckedAsDecode(t, raw, nil)
		}
	})
}

func TestARecycledMapIsFilledAgainWithoutItsMembers(t *testing.T) {
	// The pool may drop what it is given (it does at random under the race
	// detector): a few tries get the map back.
	reused := false
	for range 20 {
		first, ok := Decode([]byte(`{"file_path": "a.go", "limit": 10}`), nil)
		require.True(t, ok)
		Recycle(first)
		second, ok := Decode([]byte(`{"pattern": "x"}`), nil)
		require.True(t, ok)
		assert.Equal(t, map[string]any{"pattern": "x"}, second, "nothing of the map's earlier members is left")
		reused = reused || reflect.ValueOf(first).UnsafePointer() == reflect.ValueOf(second).UnsafePointer()
		Recycle(second)
	}
	assert.True(t, reused, "a recycled map fills a later decoding")
}

func TestALargeMapIsNotRecycled(t *testing.T) {
	large := map[string]any{}
	for i := range maxRecycled + 1 {
		large[fmt.Sprint(i)] = float64(i)
	}
	Recycle(large)
	assert.Len(t, large, maxRecycled+1, "left as it is, to the collector")
	Recycle(nil) // nothing to give back
	for range 20 {
		m, ok := Decode([]byte(`{"a": 1}`), nil)
		require.True(t, ok)
		assert.NotEqual(t, reflect.ValueOf(large).UnsafePointer(), reflect.ValueOf(m).UnsafePointer(), "the large map never comes back")
		Recycle(m)
	}
}

func TestAMapOfAsManyMembersAsKeptIsRecycled(t *testing.T) {
	// The pool may drop what it is given: a few tries get the map back.
	reused := false
	for range 20 {
		full := map[string]any{}
		for i := range maxRecycled {
			full[fmt.Sprint(i)] = float64(i)
		}
		Recycle(full)
		assert.Empty(t, full, "emptied for a later decoding")
		m, ok := Decode([]byte(`{"a": 1}`), nil)
		require.True(t, ok)
		reused = reused || reflect.ValueOf(full).UnsafePointer() == reflect.ValueOf(m).UnsafePointer()
	}
	assert.True(t, reused, "a map of %d members is recycled", maxRecycled)
}
