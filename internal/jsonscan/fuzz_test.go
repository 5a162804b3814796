package jsonscan

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzScanner checks the scanner against encoding/json: both accept the
// same inputs, decode them to the same values, and Skip agrees with
// decoding.
func FuzzScanner(f *testing.F) {
	for _, seed := range []string{
		`{}`, `[]`, `null`, `true`, `-0.5e+3`, `"a\"b\\c\u00e9\ud83d\ude00"`,
		"\"\xff\xed\xa0\x80\"", `"\ud800\u0041"`, `{"a":[1,{"b":null}],"c":"d"}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"x\ny"}]}}`,
		`[1,]`, `{"a" 1}`, `"\u12`, "\"a\tb\"", `[01]`, `{"a":1}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		valid := json.Valid(data)

		got, err := scanAll(data)
		require.Equal(t, valid, err == nil, "decode: encoding/json valid=%v, scanner error=%v", valid, err)

		var s Scanner
		s.Reset(data)
		s.Skip()
		s.End()
		require.Equal(t, valid, s.Err() == nil, "skip: encoding/json valid=%v, scanner error=%v", valid, s.Err())

		// SkipUnchecked accepts all that Skip accepts, ending at the same
		// place; what it accepts more is only a string's content.
		var u Scanner
		u.Reset(data)
		u.SkipUnchecked()
		end := u.Offset()
		u.End()
		if valid {
			require.NoError(t, u.Err(), "SkipUnchecked")
			s.Reset(data)
			s.Skip()
			require.Equal(t, s.Offset(), end, "SkipUnchecked ends where Skip does")
		} else if u.Err() == nil {
			require.True(t, json.Valid(blankStrings(data)), "SkipUnchecked accepted %q, which is not JSON even with its strings emptied", data)
		}

		if !valid {
			return
		}
		assert.Equal(t, stdDecode(t, data), got)

		// A limited read of a string is a prefix of the whole, cut at a
		// character boundary, and no longer than the limit.
		if full, ok := got.(string); ok {
			for _, max := range []int{0, 1, 2, 3, 5, 8} {
				s.Reset(data)
				part, ok := s.AppendString(nil, max)
				require.True(t, ok)
				require.True(t, s.End())
				assert.LessOrEqual(t, len(part), max)
				assert.Equal(t, full[:len(part)], string(part))
				assert.True(t, utf8.Valid(part))
				assert.Equal(t, len(part) < len(full), s.Truncated())
				if len(full) > max {
					// Only a character that does not fit is dropped.
					assert.Greater(t, len(part)+utf8.UTFMax, max)
				}
			}
		}
	})
}

// blankStrings empties the content of each string of data, found as
// SkipUnchecked finds them (a quote not escaped by an odd run of
// backslashes ends one), so that what is left is JSON exactly when the
// structure around the strings is.
func blankStrings(data []byte) []byte {
	var out []byte
	in := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if !in {
			out = append(out, c)
			in = c == '"'
			continue
		}
		switch c {
		case '\\':
			i++
		case '"':
			out = append(out, c)
			in = false
		}
	}
	return out
}
