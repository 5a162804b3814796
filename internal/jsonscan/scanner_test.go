package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// decodeAny builds the generic value encoding/json would build (with
// UseNumber) from the scanner's methods, so that tests can compare the two.
func decodeAny(s *Scanner) any {
	switch s.Peek() {
	case Object:
		m := map[string]any{}
		s.Object()
		for key, ok := s.NextKey(); ok; key, ok = s.NextKey() {
			k := string(key)
			m[k] = decodeAny(s)
		}
		return m
	case Array:
		a := []any{}
		s.Array()
		for s.NextElem() {
			a = append(a, decodeAny(s))
		}
		return a
	case String:
		b, _ := s.AppendString(nil, -1)
		return string(b)
	case Number:
		return json.Number(s.Raw())
	case Bool:
		v, _ := s.Bool()
		return v
	case Null:
		s.Null()
		return nil
	}
	s.Skip() // records the syntax error
	return nil
}

func scanAll(data []byte) (any, error) {
	var s Scanner
	s.Reset(data)
	v := decodeAny(&s)
	s.End()
	return v, s.Err()
}

func stdDecode(t testing.TB, data []byte) any {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	require.NoError(t, d.Decode(&v))
	return v
}

func TestDecodeMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
	}{
		{"an empty object decodes", `{}`},
		{"an empty array decodes", `[ ]`},
		{"white space around values is ignored", " \t\r\n{ \"a\" : [ 1 , 2 ] } \n"},
		{"simple escapes decode", `"a\"b\\c\/d\be\ff\ng\rh\ti"`},
		{"a BMP \\u escape decodes", `"caf\u00e9 \u2192 \u0041"`},
		{"a surrogate pair decodes to one character", `"\ud83d\ude00!"`},
		{"a lone high surrogate becomes U+FFFD", `"\ud83dx"`},
		{"a lone low surrogate becomes U+FFFD", `"\ude00x"`},
		{"a high surrogate before a non-surrogate escape keeps the escape", `"\ud83d\u0041"`},
		{"two high surrogates become two U+FFFD", `"\ud83d\ud83d"`},
		{"upper-case hex digits decode", `"\u00E9\uD83D\uDE00"`},
		{"invalid UTF-8 bytes become U+FFFD one by one", "\"a\xff\xfeb\xed\xa0\x80c\""},
		{"a truncated UTF-8 sequence becomes U+FFFD", "\"\xe2\x86\""},
		{"raw multi-byte text is kept", `"日本語テキスト → ok"`},
		{"keys with escapes decode", `{"a\u0062c":1,"\n":2}`},
		{"duplicate keys keep the last value", `{"a":1,"a":2}`},
		{"numbers keep their text", `[0,-0,1.5,-2e10,3E+2,4e-3,123456789012345678901234567890]`},
		{"digits 0 and 9 in every part of a number decode", `[90,-9,0.09,9.90,1e09,1E90,1e+9,1e-0,0.0e0,-0.9E-9]`},
		{"literals decode", `[true,false,null]`},
		{"nested values decode", `{"a":{"b":[{"c":[[]]},{}]},"d":"e"}`},
		{"a long string with many escapes decodes", `"` + strings.Repeat(`line \"quoted\" \\ tab\t\u00e9\n`, 200) + `"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.True(t, json.Valid([]byte(tt.in)), "test input must be valid JSON")
			got, err := scanAll([]byte(tt.in))
			require.NoError(t, err)
			assert.Equal(t, stdDecode(t, []byte(tt.in)), got)
		})
	}
}

func TestInvalidInputIsRejected(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		msg  string
	}{
		{"empty input is an unexpected end", ``, "unexpected end of input"},
		{"a cut object is an unexpected end", `{"a":[1,2`, "unexpected end of input"},
		{"a cut string is an unexpected end", `{"a":"abc`, "unexpected end of input"},
		{"a cut escape is an unexpected end", `"abc\`, "unexpected end of input"},
		{"a cut \\u escape is an unexpected end", `"\u00`, "unexpected end of input"},
		{"a cut literal is an unexpected end", `[tru`, "unexpected end of input"},
		{"a cut number is an unexpected end", `[1.`, "unexpected end of input"},
		{"a cut exponent is an unexpected end", `[1e+`, "unexpected end of input"},
		{"a lone minus at the end is an unexpected end", `-`, "unexpected end of input"},
		{"a cut fraction at the top level is an unexpected end", `1.`, "unexpected end of input"},
		{"a cut exponent without a sign is an unexpected end", `[1e`, "unexpected end of input"},
		{"a cut exponent at the top level is an unexpected end", `12E-`, "unexpected end of input"},
		{"a minus before a letter is rejected", `[-a]`, "invalid character 'a' at offset 2 (expected digit in number)"},
		{"a fraction of a letter is rejected", `[1.a]`, "invalid character 'a' at offset 3 (expected digit after decimal point)"},
		{"a fraction of a colon is rejected", `[1.:]`, "invalid character ':' at offset 3 (expected digit after decimal point)"},
		{"an exponent of a slash is rejected", `[1e/]`, "invalid character '/' at offset 3 (expected digit in exponent)"},
		{"an exponent of a colon is rejected", `[1E+:]`, "invalid character ':' at offset 4 (expected digit in exponent)"},
		{"a digit after a number's digits and a colon is rejected", `[19:]`, "invalid character ':' at offset 3 (expected ',' or ']' after array element)"},
		{"a fraction's digits end before a colon", `[1.09:]`, "invalid character ':' at offset 5 (expected ',' or ']' after array element)"},
		{"an exponent's digits end before a slash", `[1e09/]`, "invalid character '/' at offset 5 (expected ',' or ']' after array element)"},
		{"a misspelt literal is rejected", `[trux]`, "invalid character 'x' at offset 4 (expected literal true)"},
		{"a trailing comma in an object is rejected", `{"a":1,}`, "invalid character '}' at offset 7 (expected string for object key)"},
		{"a trailing comma in an array is rejected", `[1,]`, "invalid character ']' at offset 3 (expected value)"},
		{"a missing colon is rejected", `{"a" 1}`, "invalid character '1' at offset 5 (expected ':' after object key)"},
		{"a missing comma is rejected", `[1 2]`, "invalid character '2' at offset 3 (expected ',' or ']' after array element)"},
		{"an unquoted key is rejected", `{a:1}`, "invalid character 'a' at offset 1 (expected string for object key or '}')"},
		{"a leading zero is rejected", `[01]`, "invalid character '1' at offset 2 (expected ',' or ']' after array element)"},
		{"a plus sign is rejected", `[+1]`, "invalid character '+' at offset 1 (expected value)"},
		{"a bare decimal point is rejected", `[1.e5]`, "invalid character 'e' at offset 3 (expected digit after decimal point)"},
		{"a lone minus is rejected", `[-]`, "invalid character ']' at offset 2 (expected digit in number)"},
		{"an unknown escape is rejected", `"\x41"`, "invalid character 'x' at offset 2 (expected escape character)"},
		{"a bad hex digit is rejected", `"\u12g4"`, "invalid character 'g' at offset 5 (expected hexadecimal digit in \\u escape)"},
		{"a raw newline in a string is rejected", "\"a\nb\"", `invalid character '\n' at offset 2 (expected no control character in string literal)`},
		{"a raw tab in a string is rejected", "\"a\tb\"", `invalid character '\t' at offset 2 (expected no control character in string literal)`},
		{"a second top-level value is rejected", `{} {}`, "invalid character '{' at offset 3 (expected end of input after top-level value)"},
		{"a single quote is rejected", `'a'`, `invalid character '\'' at offset 0 (expected value)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.False(t, json.Valid([]byte(tt.in)), "test input must be invalid JSON")
			_, err := scanAll([]byte(tt.in))
			var se *SyntaxError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tt.msg, err.Error())

			// Skipping checks exactly as much as decoding.
			var s Scanner
			s.Reset([]byte(tt.in))
			s.Skip()
			s.End()
			require.ErrorAs(t, s.Err(), &se)
			assert.Equal(t, tt.msg, s.Err().Error())
		})
	}
}

func TestNestingIsLimitedLikeEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, depth := range []int{MaxDepth, MaxDepth + 1} {
		for _, open := range []string{"[", `{"a":`} {
			closing := "]"
			if open != "[" {
				closing = "}"
			}
			in := []byte(strings.Repeat(open, depth) + "1" + strings.Repeat(closing, depth))
			want := json.Valid(in)
			var s Scanner
			s.Reset(in)
			s.Skip()
			s.End()
			assert.Equal(t, want, s.Err() == nil, "Skip at depth %d with %s", depth, open)
			_, err := scanAll(in)
			assert.Equal(t, want, err == nil, "decode at depth %d with %s", depth, open)
			if !want {
				assert.ErrorContains(t, err, "exceeded max depth")
			}
		}
	}
}

func TestDeepInputDoesNotExhaustTheStack(t *testing.T) {
	t.Parallel()
	in := []byte(strings.Repeat("[", 10<<20))
	var s Scanner
	s.Reset(in)
	s.Skip()
	assert.ErrorContains(t, s.Err(), "exceeded max depth")
}

func TestTypedReadersReportTheKindFound(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		read func(s *Scanner)
		msg  string
	}{
		{"Object on a string", `"x"`, func(s *Scanner) { s.Object() }, "expected object, found string"},
		{"Array on an object", `{}`, func(s *Scanner) { s.Array() }, "expected array, found object"},
		{"AppendString on null", `null`, func(s *Scanner) { s.AppendString(nil, -1) }, "expected string, found null"},
		{"Bool on a number", `1`, func(s *Scanner) { s.Bool() }, "expected boolean, found number"},
		{"Int on a fraction", `1.5`, func(s *Scanner) { s.Int() }, "expected integer, found number"},
		{"Int on an exponent", `1e3`, func(s *Scanner) { s.Int() }, "expected integer, found number"},
		{"Int beyond int64", `9223372036854775808`, func(s *Scanner) { s.Int() }, "expected integer, found number"},
		{"Int on a string", `"1"`, func(s *Scanner) { s.Int() }, "expected integer, found string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var s Scanner
			s.Reset([]byte(tt.in))
			tt.read(&s)
			var te *TypeError
			require.ErrorAs(t, s.Err(), &te)
			assert.Equal(t, tt.msg, te.Error())
		})
	}
}

func TestTypedReadersReadValues(t *testing.T) {
	t.Parallel()
	var s Scanner
	s.Reset([]byte(`{"n":-9223372036854775808,"m":42,"t":true,"f":false,"z":null,"r":{"x":[1,"y"]}}`))
	require.True(t, s.Object())
	got := map[string]any{}
	for key, ok := s.NextKey(); ok; key, ok = s.NextKey() {
		switch string(key) {
		case "n", "m":
			got[string(key)], _ = s.Int()
		case "t", "f":
			got[string(key)], _ = s.Bool()
		case "z":
			got["z"] = s.Null()
		case "r":
			got["r"] = string(s.Raw())
		}
	}
	require.True(t, s.End())
	assert.Equal(t, map[string]any{
		"n": int64(-9223372036854775808), "m": int64(42), "t": true, "f": false, "z": true, "r": `{"x":[1,"y"]}`,
	}, got)
}

func TestNullIsNotConsumedWhenAbsent(t *testing.T) {
	t.Parallel()
	var s Scanner
	s.Reset([]byte(`"a"`))
	assert.False(t, s.Null())
	b, ok := s.AppendString(nil, -1)
	assert.True(t, ok)
	assert.Equal(t, "a", string(b))
}

func TestAppendStringLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		max  int
		want string
		cut  bool
	}{
		{"a limit longer than the string keeps it all", `"abc"`, 10, "abc", false},
		{"a limit equal to the string keeps it all", `"abc"`, 3, "abc", false},
		{"a short limit cuts plain text", `"abcdef"`, 2, "ab", true},
		{"a zero limit keeps nothing", `"abc"`, 0, "", true},
		{"a limit inside a character cuts before it", `"aé"`, 2, "a", true},
		{"a limit after a character keeps it", `"aé"`, 3, "aé", false},
		{"a limit inside an escaped character cuts before it", `"a\u00e9b"`, 2, "a", true},
		{"a limit inside a surrogate pair cuts before it", `"a\ud83d\ude00"`, 4, "a", true},
		{"a limit after escapes counts decoded bytes", `"\n\n\nabc"`, 4, "\n\n\na", true},
		{"a limit reached by the last escape drops nothing", `"ab\n"`, 3, "ab\n", false},
		{"a limit reached by the last character drops nothing", `"abé"`, 4, "abé", false},
		{"a long plain run is cut without decoding it all", `"` + strings.Repeat("x", 1000) + `"`, 10, strings.Repeat("x", 10), true},
		{"a cut before invalid UTF-8 keeps the prefix", "\"ab\xffcd\"", 2, "ab", true},
		{"a cut inside U+FFFD drops it", "\"ab\xffcd\"", 4, "ab", true},
		{"a limit passed by U+FFFD just before an escape and the end holds", "\"\xd0\\u0800\"", 1, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var s Scanner
			s.Reset([]byte(`[` + tt.in + `,1]`))
			require.True(t, s.Array())
			require.True(t, s.NextElem())
			got, ok := s.AppendString([]byte("prefix:"), tt.max)
			require.True(t, ok, "%v", s.Err())
			assert.Equal(t, "prefix:"+tt.want, string(got))
			assert.Equal(t, tt.cut, s.Truncated())
			// The scanner is positioned after the whole string.
			require.True(t, s.NextElem())
			n, _ := s.Int()
			assert.Equal(t, int64(1), n)
			assert.False(t, s.NextElem())
			assert.True(t, s.End())
		})
	}
}

func TestAppendStringLimitStillChecksTheRest(t *testing.T) {
	t.Parallel()
	var s Scanner
	s.Reset([]byte(`"abc\qdef"`))
	_, ok := s.AppendString(nil, 1)
	assert.False(t, ok)
	assert.ErrorContains(t, s.Err(), "expected escape character")
}

func TestErrorsAreSticky(t *testing.T) {
	t.Parallel()
	var s Scanner
	s.Reset([]byte(`{"a":x,"b":1}`))
	require.True(t, s.Object())
	key, ok := s.NextKey()
	require.True(t, ok)
	assert.Equal(t, "a", string(key))
	s.Skip()
	first := s.Err()
	require.Error(t, first)
	_, ok = s.NextKey()
	assert.False(t, ok)
	s.Fail(errors.New("later"))
	assert.Same(t, first, s.Err())
	assert.Equal(t, Invalid, s.Peek())
}

func TestSkippingAllocatesNothing(t *testing.T) {
	line := []byte(`{"type":"user","toolUseResult":{"stdout":"` + strings.Repeat(`a \"b\" \u00e9\n`, 1000) +
		`","n":[1,2.5,-3e2,true,false,null],"o":{}},"message":{"content":"x"}}`)
	var s Scanner
	allocs := testing.AllocsPerRun(100, func() {
		s.Reset(line)
		s.Object()
		for _, ok := s.NextKey(); ok; _, ok = s.NextKey() {
			s.Skip()
		}
		s.End()
	})
	require.NoError(t, s.Err())
	assert.Zero(t, allocs)
}

func TestPlainLenFindsEverySpecialByte(t *testing.T) {
	t.Parallel()
	for _, special := range []byte{'"', '\\', 0, 0x1f, '\n'} {
		for pos := 0; pos < 20; pos++ {
			b := bytes.Repeat([]byte{'a'}, 20)
			b[pos] = special
			assert.Equal(t, pos, plainLen(b), "byte %q at %d", special, pos)
		}
	}
	// Bytes next to the special ones, and non-ASCII bytes, are plain.
	plain := []byte{' ', '!', '#', '[', ']', 0x7f, 0x80, 0xa2, 0xdc, 0xff}
	b := bytes.Repeat(plain, 5)
	assert.Equal(t, len(b), plainLen(b))
}

// plainRef is plainRun written byte by byte.
func plainRef(b []byte) (int, bool) {
	ascii := true
	for i, c := range b {
		if c == '"' || c == '\\' || c < 0x20 {
			return i, ascii
		}
		ascii = ascii && c < 0x80
	}
	return len(b), ascii
}

func TestPlainRunAgreesWithAByteByByteScan(t *testing.T) {
	t.Parallel()
	// Plain bytes next to the special ones and on either side of 0x80,
	// then every byte value at every position of strings of up to 24
	// bytes (so in a whole word, in the overlapping last word and in the
	// short tail), followed by a second special byte whose borrow must
	// not move the first.
	fillers := []byte{'a', ' ', '!', '#', '[', ']', 0x21, 0x23, 0x5b, 0x5d, 0x7f, 0x80, 0xa2, 0xdc, 0xff}
	for _, fill := range fillers {
		for n := 0; n <= 24; n++ {
			for pos := 0; pos <= n; pos++ {
				for c := 0; c < 256; c++ {
					b := bytes.Repeat([]byte{fill}, n)
					if pos < n {
						b[pos] = byte(c)
						if pos+1 < n {
							b[pos+1] = 0
						}
					}
					wantN, wantASCII := plainRef(b)
					gotN, gotASCII := plainRun(b)
					if gotN != wantN || gotASCII != wantASCII || plainLen(b) != wantN {
						t.Fatalf("%q: plainRun = %d, %v, plainLen = %d; want %d, %v", b, gotN, gotASCII, plainLen(b), wantN, wantASCII)
					}
				}
			}
		}
	}
}

func TestDecodedStringsAreValidUTF8(t *testing.T) {
	t.Parallel()
	got, err := scanAll([]byte("\"\xc0\xaf \\udbff \xf4\x90\x80\x80\""))
	require.NoError(t, err)
	assert.True(t, utf8.ValidString(got.(string)))
}

func TestSkipUnchecked(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		end  int // offset after the value; -1 for an error
	}{
		{"a plain string", `"abc" `, 5},
		{"an escaped quote does not end a string", `"a\"b"`, 6},
		{"an escaped backslash before the quote does", `"a\\"`, 5},
		{"three backslashes escape the quote", `"a\\\"b"`, 8},
		{"escaped newlines are passed over", `"line\nline\nline"`, 18},
		{"a unicode escape", `"\u00e9"`, 8},
		{"a surrogate pair", `"\ud83d\ude00"`, 14},
		{"a control character is not checked", "\"a\tb\"", 5},
		{"an invalid escape is not checked", `"\x"`, 4},
		{"a lone surrogate is not checked", `"\ud800"`, 8},
		{"an object with strings", `{"a":"x\"}","b":["]",{}]} `, 25},
		{"keys are passed over too", `{"a\"b":1}`, 10},
		{"a truncated string", `"abc`, -1},
		{"a string ending in a backslash", `"abc\`, -1},
		{"an escaped last quote", `"abc\"`, -1},
		{"a truncated object", `{"a":"b"`, -1},
		{"a missing colon", `{"a" "b"}`, -1},
		{"a missing comma", `["a" "b"]`, -1},
		{"a bad literal", `[tru]`, -1},
		{"a bad number", `[01]`, -1},
		{"a mismatched bracket", `{"a":[1}`, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var s Scanner
			s.Reset([]byte(tt.in))
			s.SkipUnchecked()
			if tt.end < 0 {
				if s.Err() == nil {
					t.Errorf("SkipUnchecked(%q) ended at %d without an error", tt.in, s.Offset())
				}
				return
			}
			if s.Err() != nil || s.Offset() != tt.end {
				t.Errorf("SkipUnchecked(%q) ended at %d, error %v; want %d", tt.in, s.Offset(), s.Err(), tt.end)
			}
			// Only this call is unchecked: a Skip after it checks strings.
			s.Reset([]byte("\"a\tb\""))
			s.Skip()
			if s.Err() == nil {
				t.Error("Skip after SkipUnchecked accepted a control character")
			}
		})
	}
}

func TestNumber(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
		err            bool
	}{
		{"an integer", ` 123,`, "123", false},
		{"a negative fraction with an exponent", `-1.5e+3]`, "-1.5e+3", false},
		{"a bad number", `01`, "0", false},
		{"a number cut short", `1.`, "", true},
		{"a string is no number", `"1"`, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var s Scanner
			s.Reset([]byte(tt.in))
			got := s.Number()
			if string(got) != tt.want || (s.Err() != nil) != tt.err {
				t.Errorf("Number(%q) = %q, error %v; want %q, error %v", tt.in, got, s.Err(), tt.want, tt.err)
			}
		})
	}
}

// Keys are read a byte at a time while they are plain ASCII; anything else
// is decoded as any string is.
func TestKeys(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
		err            bool
	}{
		{"a plain key", `{"ab":1}`, "ab", false},
		{"an empty key", `{"":1}`, "", false},
		{"DEL stands for itself", "{\"a\x7f\":1}", "a\x7f", false},
		{"an escape is decoded", `{"a\"b":1}`, `a"b`, false},
		{"valid UTF-8 is kept", `{"é":1}`, "é", false},
		{"a byte that is not UTF-8 is replaced", "{\"a\x80\":1}", "a\uFFFD", false},
		{"a control character is refused", "{\"a\x01\":1}", "", true},
		{"a key cut short", `{"ab`, "", true},
		{"a key cut short in an escape", `{"a\u00`, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var s Scanner
			s.Reset([]byte(tt.in))
			s.Object()
			key, ok := s.NextKey()
			if tt.err {
				if ok || s.Err() == nil {
					t.Errorf("NextKey(%q) = %q, %v, error %v; want an error", tt.in, key, ok, s.Err())
				}
				return
			}
			if !ok || string(key) != tt.want {
				t.Errorf("NextKey(%q) = %q, %v, error %v; want %q", tt.in, key, ok, s.Err(), tt.want)
			}
		})
	}
}
