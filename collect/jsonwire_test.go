package collect

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The whole numbers of the protobuf JSON mapping, worked out by hand: a
// fraction or an exponent is allowed where the value stays whole, and
// the digits written out are at most 20.
func TestWholeNumbers(t *testing.T) {
	t.Parallel()
	whole := map[string]string{
		"0": "0", "-0": "0", "12": "12", "-12": "-12", "1.0": "1", "1.50e1": "15", "1e2": "100", "1E+2": "100",
		"100e-2": "1", "10e-1": "1", "0.0": "0", "-0.0e5": "0", "0e5": "0", "0.5e1": "5", "0.05e2": "05",
		"1e19": "10000000000000000000", "12345678901234567890": "12345678901234567890", "-7e0": "-7",
	}
	for in, want := range whole {
		got, ok := wholeNumber([]byte(in))
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"150e-2", "1.5", "1e-1", "1e20", "123456789012345678901", "0.05e1", "1e2147483648",
		"abc", "", "1.", "01", "-", "1e", "1e+", ".5", "1.e3", "+1", "1 ", "0x10", "1e-2147483649"} {
		_, ok := wholeNumber([]byte(in))
		assert.False(t, ok, in)
	}
}

func TestJSONNumbers(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"0", "-0", "1", "-12.5", "1e5", "1E-5", "2.5e+10", "0.0"} {
		assert.True(t, isJSONNumber([]byte(in)), in)
	}
	for _, in := range []string{"", "-", "+1", "01", "1.", ".1", "1e", "1e+", "1.5.5", "1x", "--1", "NaN", " 1", "1 "} {
		assert.False(t, isJSONNumber([]byte(in)), in)
	}
}

// The integers of each width are read and written to the wire as the
// mapping and protobuf have them: an int32 out of range is refused, a
// negative int32 is sign-extended, a sint is zigzag.
func TestJSONScalarsOnTheWire(t *testing.T) {
	t.Parallel()
	read := func(k kind, text string) (uint64, bool) {
		d := &jsonDecoder{}
		d.sc.Reset([]byte(text))
		v, ok, err := d.scalar(&fieldInfo{kind: k, proto: "f"})
		return v, ok && err == nil
	}
	cases := []struct {
		k    kind
		text string
		want uint64
		ok   bool
	}{
		{int32Kind, `-1`, 0xffffffffffffffff, true},
		{int32Kind, `2147483647`, 2147483647, true},
		{int32Kind, `2147483648`, 0, false},
		{int32Kind, `"-2147483648"`, 0xffffffff80000000, true},
		{sint32Kind, `-1`, 1, true},
		{sint32Kind, `1`, 2, true},
		{sfixed32Kind, `-1`, 0xffffffff, true},
		{uint32Kind, `4294967295`, 4294967295, true},
		{uint32Kind, `4294967296`, 0, false},
		{uint32Kind, `-1`, 0, false},
		{fixed32Kind, `"7"`, 7, true},
		{int64Kind, `"-9223372036854775808"`, 1 << 63, true},
		{int64Kind, `9223372036854775808`, 0, false},
		{sint64Kind, `-2`, 3, true},
		{sfixed64Kind, `-1`, 0xffffffffffffffff, true},
		{uint64Kind, `"18446744073709551615"`, 18446744073709551615, true},
		{fixed64Kind, `1e1`, 10, true},
		{boolKind, `true`, 1, true},
		{boolKind, `false`, 0, true},
		{boolKind, `1`, 0, false},
		{doubleKind, `1.5`, 0x3ff8000000000000, true},
		{doubleKind, `"Infinity"`, 0x7ff0000000000000, true},
		{doubleKind, `"-Infinity"`, 0xfff0000000000000, true},
		{doubleKind, `"2"`, 0x4000000000000000, true},
		{doubleKind, `"2 "`, 0, false},
		{doubleKind, `true`, 0, false},
		{floatKind, `1.5`, 0x3fc00000, true},
		{floatKind, `1e39`, 0, false},
		{int64Kind, `true`, 0, false},
		{int64Kind, `" 1"`, 0, false},
	}
	for _, c := range cases {
		got, ok := read(c.k, c.text)
		assert.Equal(t, c.ok, ok, "%s %s", kindNames[c.k], c.text)
		if c.ok {
			assert.Equal(t, c.want, got, "%s %s", kindNames[c.k], c.text)
		}
	}
	nan, ok := read(doubleKind, `"NaN"`)
	assert.True(t, ok)
	assert.Equal(t, uint64(0x7ff), nan>>52&0x7ff, "NaN")
	assert.NotZero(t, nan&(1<<52-1), "NaN")
}

// The strings the scanner would mend are refused where they are: bytes
// that are not UTF-8 and escaped surrogates out of pairs; an escaped
// backslash before a u escapes nothing.
func TestJSONStringsAreCheckedWhereTheyFail(t *testing.T) {
	t.Parallel()
	for in, at := range map[string]int{
		"\"é\xff\"":            3,
		`"\ud800"`:             1,
		`"ab\udc00\ud800"`:     3,
		`"\ud800\u0041"`:       1,
		`"\ud800\udbff"`:       1,
		`"\ud800\ue000"`:       1,
		`"\ud800x\udc00"`:      1,
		`"\ud83d\ude00\ud83d"`: 13,
		`"\\\ud800"`:           3,
		`"\udc00\udc00"`:       1,
		`"\ud800\`:             1,
		`"\ud800`:              1,
		`"\udfff"`:             1,
	} {
		err := checkJSONStrings([]byte(in))
		var je *jsonError
		if assert.ErrorAs(t, err, &je, in) {
			assert.Equal(t, at, je.offset, in)
		}
	}
	for _, in := range []string{`"\ud83d\ude00"`, `"\\ud800"`, `"é\u00e9"`, `"\`, `\`, `"\u`, `"\udbff\udfff"`, ``,
		`"\ue000"`, `"\ud7ff"`, `"\ud800\udc00"`, `"\ud800\udfff"`} {
		assert.NoError(t, checkJSONStrings([]byte(in)), in)
	}
}

// A body refused by the mapping's rules says which rule, and where.
func TestJSONBodiesRefusedSayWhy(t *testing.T) {
	t.Parallel()
	for body, why := range map[string]string{
		`{"resourceSpans":[],"resource_spans":[]}`: "at byte 37: the field resource_spans of opentelemetry.proto.trace.v1.TracesData is given twice",
		`{"resourceSpans":[{"scopeSpans":[{"spans":[{"attributes":[{"value":{"stringValue":"a","intValue":1}}]}]}]}]}`: "is a second member of a oneof",
		`{"resourceSpans":[null]}`:            "null is not a message (resource_spans)",
		`{"resourceSpans":[{"schemaUrl":3}]}`: "at byte 31: invalid value for the string field schema_url",
	} {
		_, err := jsonToWire([]byte(body), messages()[tracesDataName])
		assert.ErrorContains(t, err, why, body)
	}
}

// A JSON body's line has its fields in the order of the .proto files, as
// a protobuf body's has, and a list's elements in theirs.
func TestJSONBodyLinesInProtoOrder(t *testing.T) {
	t.Parallel()
	body := `{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"n","kind":2,"attributes":[{"value":{"stringValue":"1"},"key":"b"},` +
		`{"key":"a","value":{"intValue":"2"}}],"spanId":"eee19b7ec3c1b174","traceId":"5b8efff798038103d269b633813fc60c"}],"scope":{"version":"1","name":"s"}}]}]}`
	b, err := decode([]byte(body), jsonEncoding, traces, ByTrace)
	require.NoError(t, err)
	require.Len(t, b.parts, 1)
	assert.Equal(t, `{"resourceSpans":[{"scopeSpans":[{"scope":{"name":"s","version":"1"},"spans":[{"traceId":"5b8efff798038103d269b633813fc60c",`+
		`"spanId":"eee19b7ec3c1b174","name":"n","kind":2,"attributes":[{"key":"b","value":{"stringValue":"1"}},{"key":"a","value":{"intValue":"2"}}]}]}]}]}`+"\n",
		string(b.parts[0].lines))
}
