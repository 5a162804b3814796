package collect

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/agentretrieval/agentretrieval/internal/jsonscan"
	"google.golang.org/protobuf/encoding/protowire"
)

// An OTLP/JSON body is read into the protobuf encoding of its request,
// then transcoded as a protobuf body is. It is read as the protobuf JSON
// mapping reads a message, with OTLP/JSON's one difference (ids in hex):
//
//   - a field is named by its lowerCamelCase JSON name or its .proto
//     name; a field the table does not know is skipped (the
//     specification asks receivers to ignore them), a field named twice,
//     in either spelling, and a second member of a oneof are errors;
//   - null leaves a field unset, but is no element of an array;
//   - a 32- or 64-bit integer is a number or a string holding one, which
//     may have a fraction or exponent if its value is whole; a float is a
//     number, a string holding one, or "NaN", "Infinity", "-Infinity";
//     an enum is its number or its name (an unknown name is skipped);
//     bytes are base64, standard or URL-safe, padded or not;
//   - every string is valid UTF-8 with its surrogate escapes paired;
//   - a trace or span id is hex (a base64 id that is not also hex is
//     kept as base64 reads it, see idFromJSON).
//
// The encoding written is the one the transcoder takes: each field once,
// in the order the .proto file declares them.

// maxMessageDepth is the deepest nesting of messages a request may have,
// the request itself counted: the default recursion limit of the
// protobuf decoders. (A JSON body is also held to jsonscan.MaxDepth
// objects and arrays, reached first by values nested in arrays.)
const maxMessageDepth = protowire.DefaultRecursionLimit

// jsonError is a JSON body that is not the request it should be.
type jsonError struct {
	offset int
	msg    string
}

func (e *jsonError) Error() string { return fmt.Sprintf("at byte %d: %s", e.offset, e.msg) }

// jsonToWire reads an OTLP/JSON body of the message m and returns its
// protobuf encoding. As canonical does, it reads the body into a tree
// first, so that its time is linear in the body however deep it is.
func jsonToWire(body []byte, m *msgInfo) ([]byte, error) {
	if err := checkJSONStrings(body); err != nil {
		return nil, err
	}
	d := &jsonDecoder{}
	d.sc.Reset(body)
	if _, err := d.message(m, 1); err != nil {
		return nil, err
	}
	if !d.sc.End() {
		return nil, d.sc.Err()
	}
	return d.tree.encode(nil), nil
}

// checkJSONStrings refuses what the scanner would replace rather than
// refuse: bytes that are not UTF-8, and an escaped UTF-16 surrogate that
// is not a high one followed by an escaped low one. A backslash outside a
// string is a syntax error the scanner reports, so every backslash is
// taken to start an escape.
func checkJSONStrings(b []byte) error {
	if !utf8.Valid(b) {
		for i := 0; i < len(b); {
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n == 1 {
				return &jsonError{offset: i, msg: "invalid UTF-8"}
			}
			i += n
		}
	}
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		if i+1 < len(b) && b[i+1] == 'u' {
			r, ok := hex4(b, i+2)
			if ok && 0xd800 <= r && r < 0xe000 {
				low, lok := rune(0), false
				if i+7 < len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
					low, lok = hex4(b, i+8)
				}
				if r >= 0xdc00 || !lok || low < 0xdc00 || low >= 0xe000 {
					return &jsonError{offset: i, msg: "an escaped UTF-16 surrogate that is not half of a pair"}
				}
				i += 6
			}
		}
		i++ // the escaped byte: a backslash escaping a backslash is passed over
	}
	return nil
}

// hex4 reads the four hex digits at b[i:].
func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		d := jsonscan.Unhex(c)
		if d < 0 {
			return 0, false
		}
		r = r<<4 | d
	}
	return r, true
}

// jsonDecoder reads one body into a tree of its messages. The encodings
// of its scalars are appended to raw, which the values' raw slices point
// into (an earlier array's bytes stay as they were when raw grows).
type jsonDecoder struct {
	sc   jsonscan.Scanner
	tree canonTree
	raw  []byte
	str  []byte
}

// fail returns the scanner's error, if it has one, else msg at the
// scanner's offset.
func (d *jsonDecoder) fail(msg string, args ...any) error {
	if e := d.sc.Err(); e != nil {
		return e
	}
	return &jsonError{offset: d.sc.Offset(), msg: fmt.Sprintf(msg, args...)}
}

// message reads the object of message m at depth into a node of the
// tree, and returns it.
func (d *jsonDecoder) message(m *msgInfo, depth int) (int, error) {
	if depth > maxMessageDepth {
		return 0, d.fail("messages nested deeper than %d", maxMessageDepth)
	}
	if !d.sc.Object() {
		return 0, d.fail("")
	}
	node := len(d.tree.nodes)
	d.tree.nodes = append(d.tree.nodes, canonNode{})
	var vals []canonValue
	var seen, oneofs uint64
	for {
		key, ok := d.sc.NextKey()
		if !ok {
			if d.sc.Err() != nil {
				return 0, d.fail("")
			}
			break
		}
		f := m.byJSON[string(key)]
		if f == nil {
			d.sc.Skip()
			if d.sc.Err() != nil {
				return 0, d.fail("")
			}
			continue
		}
		bit := uint64(1) << f.index
		if seen&bit != 0 {
			return 0, d.fail("the field %s of %s is given twice", key, m.name)
		}
		seen |= bit
		if d.sc.Null() {
			continue
		}
		if f.oneof > 0 && !f.list {
			ob := uint64(1) << (f.oneof - 1)
			if oneofs&ob != 0 {
				return 0, d.fail("the field %s of %s is a second member of a oneof", key, m.name)
			}
			oneofs |= ob
		}
		var err error
		if !f.list {
			vals, err = d.value(vals, f, depth)
		} else if !d.sc.Array() {
			return 0, d.fail("")
		} else {
			for d.sc.NextElem() {
				if vals, err = d.value(vals, f, depth); err != nil {
					break
				}
			}
			if err == nil && d.sc.Err() != nil {
				err = d.fail("")
			}
		}
		if err != nil {
			return 0, err
		}
	}
	// In the order of the .proto file; a field's elements keep theirs.
	slices.SortStableFunc(vals, func(a, b canonValue) int { return a.f.index - b.f.index })
	d.tree.nodes[node].vals = vals
	return node, nil
}

// value reads one value of field f (an element, for a list), a member of
// a message at depth, and appends it to vals.
func (d *jsonDecoder) value(vals []canonValue, f *fieldInfo, depth int) ([]canonValue, error) {
	if f.kind == messageKind {
		if d.sc.Peek() == jsonscan.Null {
			return vals, d.fail("null is not a message (%s)", f.proto)
		}
		child, err := d.message(f.msg, depth+1)
		return append(vals, canonValue{f: f, child: child}), err
	}
	v, ok, err := d.scalar(f)
	if err != nil || !ok {
		return vals, err
	}
	start := len(d.raw)
	switch f.wire {
	case protowire.VarintType:
		d.raw = protowire.AppendVarint(d.raw, v)
	case protowire.Fixed32Type:
		d.raw = protowire.AppendFixed32(d.raw, uint32(v))
	case protowire.Fixed64Type:
		d.raw = protowire.AppendFixed64(d.raw, v)
	default:
		d.raw = append(d.raw, d.str...)
	}
	return append(vals, canonValue{f: f, raw: d.raw[start:len(d.raw):len(d.raw)]}), nil
}

// scalar reads a value of the scalar field f: as the wire's number, or
// into d.str for a string or bytes. ok is false for a value the mapping
// skips (an enum's unknown name).
func (d *jsonDecoder) scalar(f *fieldInfo) (v uint64, ok bool, err error) {
	at := d.sc.Offset()
	k := d.sc.Peek()
	bad := func() (uint64, bool, error) {
		var se *jsonscan.SyntaxError
		if errors.As(d.sc.Err(), &se) {
			return 0, false, se
		}
		return 0, false, &jsonError{offset: at, msg: fmt.Sprintf("invalid value for the %s field %s", kindNames[f.kind], f.proto)}
	}
	switch f.kind {
	case boolKind:
		b, ok := d.sc.Bool()
		if !ok {
			return bad()
		}
		if b {
			return 1, true, nil
		}
		return 0, true, nil
	case stringKind:
		if k != jsonscan.String {
			return bad()
		}
		d.str, ok = d.sc.AppendString(d.str[:0], -1)
		if !ok {
			return bad()
		}
		return 0, true, nil
	case bytesKind:
		if k != jsonscan.String {
			return bad()
		}
		var s []byte
		if s, ok = d.sc.AppendString(nil, -1); !ok {
			return bad()
		}
		b, err := decodeBase64(s)
		if err != nil {
			return bad()
		}
		if f.id {
			b = idFromJSON(b, f.idLen())
		}
		d.str = append(d.str[:0], b...)
		return 0, true, nil
	case enumKind:
		if k == jsonscan.String {
			name, ok := d.sc.AppendString(d.str[:0], -1)
			if !ok {
				return bad()
			}
			n, known := f.enum[string(name)]
			return uint64(int64(n)), known, nil
		}
		if k != jsonscan.Number {
			return bad()
		}
		n, ok := parseInt(d.sc.Number(), 32)
		if !ok {
			return bad()
		}
		return uint64(n), true, nil
	case floatKind, doubleKind:
		bits := 64
		if f.kind == floatKind {
			bits = 32
		}
		x, ok := d.float(k, bits)
		if !ok {
			return bad()
		}
		if bits == 32 {
			return uint64(math.Float32bits(float32(x))), true, nil
		}
		return math.Float64bits(x), true, nil
	}
	text, ok := d.numberText(k)
	if !ok {
		return bad()
	}
	switch f.kind {
	case int32Kind, sfixed32Kind, sint32Kind:
		n, ok := parseInt(text, 32)
		if !ok {
			return bad()
		}
		if f.kind == sint32Kind {
			return protowire.EncodeZigZag(n), true, nil
		}
		if f.kind == sfixed32Kind {
			return uint64(uint32(int32(n))), true, nil
		}
		return uint64(n), true, nil
	case int64Kind, sfixed64Kind, sint64Kind:
		n, ok := parseInt(text, 64)
		if !ok {
			return bad()
		}
		if f.kind == sint64Kind {
			return protowire.EncodeZigZag(n), true, nil
		}
		return uint64(n), true, nil
	}
	bits := 64
	if f.kind == uint32Kind || f.kind == fixed32Kind {
		bits = 32
	}
	n, ok := parseUint(text, bits)
	if !ok {
		return bad()
	}
	return n, true, nil
}

// numberText reads a number, or a string holding exactly one, and
// returns its text.
func (d *jsonDecoder) numberText(k jsonscan.Kind) ([]byte, bool) {
	switch k {
	case jsonscan.Number:
		n := d.sc.Number()
		return n, n != nil
	case jsonscan.String:
		s, ok := d.sc.AppendString(d.str[:0], -1)
		d.str = s
		return s, ok && isJSONNumber(s)
	}
	return nil, false
}

// float reads a float of the given bits.
func (d *jsonDecoder) float(k jsonscan.Kind, bits int) (float64, bool) {
	var text []byte
	switch k {
	case jsonscan.Number:
		if text = d.sc.Number(); text == nil {
			return 0, false
		}
	case jsonscan.String:
		s, ok := d.sc.AppendString(d.str[:0], -1)
		if d.str = s; !ok {
			return 0, false
		}
		switch string(s) {
		case "NaN":
			return math.NaN(), true
		case "Infinity":
			return math.Inf(1), true
		case "-Infinity":
			return math.Inf(-1), true
		}
		if !isJSONNumber(s) {
			return 0, false
		}
		text = s
	default:
		return 0, false
	}
	x, err := strconv.ParseFloat(string(text), bits)
	return x, err == nil
}

func parseUint(text []byte, bits int) (uint64, bool) {
	s, ok := wholeNumber(text)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, bits)
	return n, err == nil
}

func parseInt(text []byte, bits int) (int64, bool) {
	s, ok := wholeNumber(text)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, bits)
	return n, err == nil
}

// isJSONNumber reports whether s is exactly one JSON number.
func isJSONNumber(s []byte) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && '1' <= s[i] && s[i] <= '9':
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			return false
		}
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			return false
		}
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
	}
	return i == len(s)
}

// wholeNumber writes a JSON number whose value is whole as decimal
// digits without fraction or exponent ("1.5e1" is "15", "-0" is "0"),
// and reports false for one that is not whole or whose exponent would
// make it longer than 20 digits.
func wholeNumber(text []byte) (string, bool) {
	if !isJSONNumber(text) {
		return "", false
	}
	neg := text[0] == '-'
	if neg {
		text = text[1:]
	}
	intPart, rest := text, []byte(nil)
	if i := bytes.IndexAny(text, ".eE"); i >= 0 {
		intPart, rest = text[:i], text[i:]
	}
	if string(intPart) == "0" {
		intPart = nil
	}
	var frac, exp []byte
	if len(rest) > 0 && rest[0] == '.' {
		frac = rest[1:]
		if i := bytes.IndexAny(frac, "eE"); i >= 0 {
			frac, exp = frac[:i], frac[i+1:]
		}
	} else if len(rest) > 0 {
		exp = rest[1:]
	}
	for len(frac) > 0 && frac[len(frac)-1] == '0' {
		frac = frac[:len(frac)-1]
	}
	if len(intPart) == 0 && len(frac) == 0 {
		return "0", true
	}
	e := 0
	if len(exp) > 0 {
		n, err := strconv.ParseInt(string(exp), 10, 32)
		if err != nil {
			return "", false
		}
		e = int(n)
	}
	var digits []byte
	if e >= 0 {
		if len(frac) > e || len(intPart)+e > 20 {
			return "", false
		}
		digits = append(append(digits, intPart...), frac...)
		for range e - len(frac) {
			digits = append(digits, '0')
		}
	} else {
		cut := len(intPart) + e
		if len(frac) > 0 || cut < 0 {
			return "", false
		}
		for _, c := range intPart[cut:] {
			if c != '0' {
				return "", false
			}
		}
		digits = intPart[:cut]
	}
	if neg {
		return "-" + string(digits), true
	}
	return string(digits), true
}

// decodeBase64 reads bytes as the protobuf JSON mapping writes or
// accepts them: standard or URL-safe base64, padded or not.
func decodeBase64(s []byte) ([]byte, error) {
	enc := base64.StdEncoding
	if bytes.ContainsAny(s, "-_") {
		enc = base64.URLEncoding
	}
	if len(s)%4 != 0 {
		enc = enc.WithPadding(base64.NoPadding)
	}
	out := make([]byte, enc.DecodedLen(len(s)))
	n, err := enc.Decode(out, s)
	return out[:n], err
}

var kindNames = [...]string{
	boolKind: "bool", enumKind: "enum", int32Kind: "int32", sint32Kind: "sint32", uint32Kind: "uint32",
	int64Kind: "int64", sint64Kind: "sint64", uint64Kind: "uint64", fixed32Kind: "fixed32", sfixed32Kind: "sfixed32",
	floatKind: "float", fixed64Kind: "fixed64", sfixed64Kind: "sfixed64", doubleKind: "double", stringKind: "string",
	bytesKind: "bytes", messageKind: "message",
}
