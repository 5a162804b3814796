package collect

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/agentretrieval/agentretrieval/internal/jsonscan"
	"google.golang.org/protobuf/encoding/protowire"
)

// The OTLP/JSON of one message, written from its protobuf wire format
// (see transcode for how a request is split and why).

// errIrregular is a body the transcoder leaves to canonical.
var errIrregular = errors.New("irregular protobuf encoding")

// maxTranscodeDepth bounds the nesting the transcoder follows (values in
// arrays in values…) in a body as it comes; deeper bodies are written
// again by canonical, which allows maxMessageDepth.
const maxTranscodeDepth = 64

// msgInfo is what the receiver knows of a message type (see schema.go).
type msgInfo struct {
	name   string
	fields []*fieldInfo // by field number, for the numbers up to maxIndexed
	byNum  map[protowire.Number]*fieldInfo
	order  []*fieldInfo          // as declared
	byJSON map[string]*fieldInfo // by JSON name, and by .proto name
	oneofs int                   // how many oneofs it has
}

const maxIndexed = 32

func (m *msgInfo) field(num protowire.Number) *fieldInfo {
	if num >= 0 && int(num) < len(m.fields) {
		return m.fields[num]
	}
	return m.byNum[num]
}

// byProtoName returns the field of that .proto name, nil when none.
func (m *msgInfo) byProtoName(name string) *fieldInfo {
	for _, f := range m.order {
		if f.proto == name {
			return f
		}
	}
	return nil
}

// idLen is the length of the id field f holds: 16 bytes for a trace id,
// 8 for a span id.
func (f *fieldInfo) idLen() int {
	if f.proto == "trace_id" {
		return 16
	}
	return 8
}

// fieldInfo is one field of a message type.
type fieldInfo struct {
	index   int // its index in the message, for the seen bits
	num     protowire.Number
	name    []byte // its JSON name, quoted, and a colon
	proto   string // its .proto name
	kind    kind
	wire    protowire.Type
	list    bool
	oneof   int  // index of its oneof plus one, 0 when in none
	present bool // written even when zero (a oneof member, an optional field)
	id      bool // a trace or span id: hex, not base64
	typ     string
	msg     *msgInfo
	enum    map[string]int32 // an enum's numbers by name
}

// appendMessage appends the OTLP/JSON object of the message m encoded in
// b (enums as numbers, 64-bit integers as strings, ids in hex: what
// jsonOut and idForJSON write).
func appendMessage(out, b []byte, m *msgInfo, depth int) ([]byte, error) {
	return appendMessageUpTo(out, b, m, depth, maxTranscodeDepth)
}

// appendMessageUpTo is appendMessage following messages down to limit.
func appendMessageUpTo(out, b []byte, m *msgInfo, depth, limit int) ([]byte, error) {
	if depth > limit {
		return out, errIrregular
	}
	out = append(out, '{')
	var seen, oneofs uint64
	var open *fieldInfo // the repeated field whose array is open
	first := true
	for len(b) > 0 {
		var num protowire.Number
		var typ protowire.Type
		var n int
		if 8 <= b[0] && b[0] < 0x80 {
			// The tags of fields 1 to 15 are one byte.
			num, typ, n = protowire.Number(b[0]>>3), protowire.Type(b[0]&7), 1
		} else if num, typ, n = consumeTag(b); n < 0 {
			return out, errIrregular
		}
		b = b[n:]
		f := m.field(num)
		if f == nil {
			// An unknown field is kept by a decoder and left out by
			// protojson.
			if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
				return out, errIrregular
			}
			b = b[n:]
			continue
		}
		if typ != f.wire {
			return out, errIrregular
		}
		if open != nil && open != f {
			out = append(out, ']')
			open = nil
		}
		bit := uint64(1) << f.index
		if f.list {
			if seen&bit != 0 && open != f {
				return out, errIrregular // elements apart: left to canonical
			}
		} else if seen&bit != 0 {
			return out, errIrregular // a repeated singular field: merged or replaced
		}
		seen |= bit
		if f.oneof > 0 {
			ob := uint64(1) << (f.oneof - 1)
			if oneofs&ob != 0 {
				return out, errIrregular
			}
			oneofs |= ob
		}
		var v uint64
		var raw []byte
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			if len(b) > 0 && b[0] < 0x80 && int(b[0]) < len(b) {
				// A length under 128 is one byte.
				raw, n = b[1:1+b[0]], 1+int(b[0])
			} else {
				raw, n = protowire.ConsumeBytes(b)
			}
		case protowire.Fixed32Type:
			var v32 uint32
			v32, n = protowire.ConsumeFixed32(b)
			v = uint64(v32)
		case protowire.Fixed64Type:
			v, n = protowire.ConsumeFixed64(b)
		}
		if n < 0 {
			return out, errIrregular
		}
		b = b[n:]
		if !f.list && !f.present && typ != protowire.BytesType && v == 0 {
			continue // a zero proto3 scalar is not written
		}
		if !f.list && !f.present && len(raw) == 0 && typ == protowire.BytesType {
			continue // nor an empty string or bytes (a message has presence)
		}
		if open == nil {
			if !first {
				out = append(out, ',')
			}
			first = false
			out = append(out, f.name...)
			if f.list {
				out = append(out, '[')
				open = f
			}
		} else {
			out = append(out, ',')
		}
		var err error
		switch f.kind {
		case messageKind:
			out, err = appendMessageUpTo(out, raw, f.msg, depth+1, limit)
		case stringKind:
			if !utf8.Valid(raw) {
				return out, errIrregular // a decoder refuses it: so does canonical
			}
			out = appendJSONString(out, raw)
		case bytesKind:
			out = appendBytes(out, raw, f.id)
		default:
			out = appendScalar(out, f.kind, v)
		}
		if err != nil {
			return out, err
		}
	}
	if open != nil {
		out = append(out, ']')
	}
	return append(out, '}'), nil
}

// consumeTag is protowire.ConsumeTag refusing, as protobuf's decoder does, a
// field number above protowire.MaxValidNumber, which ConsumeTag reads.
func consumeTag(b []byte) (protowire.Number, protowire.Type, int) {
	num, typ, n := protowire.ConsumeTag(b)
	if num > protowire.MaxValidNumber {
		return 0, 0, -1
	}
	return num, typ, n
}

// appendScalar writes a number or a bool of kind k, read from the wire
// as v, as protojson writes it.
func appendScalar(out []byte, k kind, v uint64) []byte {
	switch k {
	case boolKind:
		return strconv.AppendBool(out, v != 0)
	case enumKind, int32Kind:
		return strconv.AppendInt(out, int64(int32(v)), 10)
	case sint32Kind:
		return strconv.AppendInt(out, int64(int32(protowire.DecodeZigZag(v&math.MaxUint32))), 10)
	case uint32Kind, fixed32Kind:
		return strconv.AppendUint(out, uint64(uint32(v)), 10)
	case sfixed32Kind:
		return strconv.AppendInt(out, int64(int32(v)), 10)
	case int64Kind, sfixed64Kind:
		out = append(out, '"')
		return append(strconv.AppendInt(out, int64(v), 10), '"')
	case sint64Kind:
		out = append(out, '"')
		return append(strconv.AppendInt(out, protowire.DecodeZigZag(v), 10), '"')
	case uint64Kind, fixed64Kind:
		out = append(out, '"')
		return append(strconv.AppendUint(out, v, 10), '"')
	case floatKind:
		return appendFloat(out, float64(math.Float32frombits(uint32(v))), 32)
	case doubleKind:
		return appendFloat(out, math.Float64frombits(v), 64)
	}
	panic(fmt.Sprintf("collect: no JSON for kind %v", k))
}

// appendFloat writes a float as the protobuf JSON mapping does: NaN and
// the infinities as strings.
func appendFloat(out []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(out, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(out, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(out, `"-Infinity"`...)
	}
	return strconv.AppendFloat(out, f, 'g', -1, bits)
}

// appendBytes writes bytes in base64, or an id in hex (see idForJSON: an
// id of an odd length has no hex spelling protojson could write, and
// stays base64).
func appendBytes(out, b []byte, id bool) []byte {
	out = append(out, '"')
	if id && len(b)%2 == 0 {
		out = hex.AppendEncode(out, b)
	} else {
		out = base64.StdEncoding.AppendEncode(out, b)
	}
	return append(out, '"')
}

// appendJSONString writes valid UTF-8 as a JSON string.
func appendJSONString(out, s []byte) []byte {
	out = jsonscan.AppendEscaped(append(out, '"'), s)
	return append(out, '"')
}
