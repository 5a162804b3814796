package collect

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
)

// A protobuf body the transcoder leaves (errIrregular: a singular field
// sent twice, a repeated field's elements apart, two members of a oneof)
// is first written again in the encoding it takes, holding what a
// protobuf decoder makes of the body:
//
//   - a singular scalar sent twice keeps its last value; a singular
//     message sent twice is the merge of both, as if its encodings were
//     one; a repeated field keeps every element, in order;
//   - setting a oneof's member clears the member set before it (the same
//     message member sent again is merged);
//   - a field the table does not know, or one sent with another wire type
//     than its kind's, is left out, as protojson leaves out what it does
//     not know;
//   - a string that is not UTF-8, a field numbered 0, an end of group with
//     no start, a value cut short and messages nested deeper than
//     maxMessageDepth are errors.

// errWire is the error of a body that does not decode.
var errWire = errors.New("cannot parse invalid wire-format data")

// canonical appends the regular encoding of the message m encoded in b.
// depth is the depth of m, the request being 1.
func canonical(out, b []byte, m *msgInfo, depth int) ([]byte, error) {
	if depth > maxMessageDepth {
		return out, fmt.Errorf("messages nested deeper than %d", maxMessageDepth)
	}
	// vals holds each field's values: the last for a singular scalar,
	// every encoding for a message (merged) or a list (elements).
	vals := make([][][]byte, len(m.order))
	member := make([]*fieldInfo, m.oneofs) // the member each oneof holds
	for len(b) > 0 {
		num, typ, n := consumeTag(b)
		if n < 0 {
			return out, errWire
		}
		b = b[n:]
		f := m.field(num)
		if f == nil || typ != f.wire {
			if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
				return out, errWire
			}
			b = b[n:]
			continue
		}
		var v []byte
		switch typ {
		case protowire.VarintType:
			_, n = protowire.ConsumeVarint(b)
		case protowire.Fixed32Type:
			_, n = protowire.ConsumeFixed32(b)
		case protowire.Fixed64Type:
			_, n = protowire.ConsumeFixed64(b)
		case protowire.BytesType:
			v, n = protowire.ConsumeBytes(b)
		}
		if n < 0 {
			return out, errWire
		}
		if typ != protowire.BytesType {
			v = b[:n]
		}
		b = b[n:]
		if f.kind == stringKind && !utf8.Valid(v) {
			return out, fmt.Errorf("string field %s contains invalid UTF-8", f.proto)
		}
		if f.oneof > 0 {
			if cur := member[f.oneof-1]; cur != f {
				if cur != nil {
					vals[cur.index] = nil
				}
				member[f.oneof-1] = f
			}
		}
		switch {
		case f.list || f.kind == messageKind:
			vals[f.index] = append(vals[f.index], v)
		default:
			vals[f.index] = append(vals[f.index][:0], v)
		}
	}
	for _, f := range m.order {
		vs := vals[f.index]
		if len(vs) == 0 {
			continue
		}
		if f.kind != messageKind {
			for _, v := range vs {
				out = protowire.AppendTag(out, f.num, f.wire)
				if f.wire == protowire.BytesType {
					out = protowire.AppendBytes(out, v)
				} else {
					out = append(out, v...)
				}
			}
			continue
		}
		if !f.list && len(vs) > 1 {
			// Merged: read as one encoding.
			var joined []byte
			for _, v := range vs {
				joined = append(joined, v...)
			}
			vs = [][]byte{joined}
		}
		for _, v := range vs {
			var err error
			out = protowire.AppendTag(out, f.num, protowire.BytesType)
			// The length goes before the message, which is written
			// after it and moved into place.
			mark := len(out)
			if out, err = canonical(out, v, f.msg, depth+1); err != nil {
				return out, err
			}
			size := len(out) - mark
			out = insertLength(out, mark, size)
		}
	}
	return out, nil
}

// insertLength puts the varint of size before the last size bytes of
// out, which start at mark.
func insertLength(out []byte, mark, size int) []byte {
	n := protowire.SizeVarint(uint64(size))
	out = append(out, make([]byte, n)...)
	copy(out[mark+n:], out[mark:mark+size])
	protowire.AppendVarint(out[mark:mark], uint64(size))
	return out
}
