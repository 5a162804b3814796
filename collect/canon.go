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
// depth is the depth of m, the request being 1. Its time is linear in b,
// however deep the body and however often a message is merged: the
// messages are read into a tree, their sizes summed from the leaves, and
// the tree written with each length known before its message.
func canonical(out, b []byte, m *msgInfo, depth int) ([]byte, error) {
	var c canonTree
	if _, err := c.read([][]byte{b}, m, depth); err != nil {
		return out, err
	}
	return c.encode(out), nil
}

// encode sums the sizes of the tree's messages from the leaves, then
// appends the encoding of its root.
func (c *canonTree) encode(out []byte) []byte {
	for i := len(c.nodes) - 1; i >= 0; i-- {
		n := &c.nodes[i]
		n.size = 0
		for _, v := range n.vals {
			size := len(v.raw)
			if v.f.kind == messageKind {
				size = c.nodes[v.child].size
			}
			n.size += protowire.SizeTag(v.f.num)
			if v.f.wire == protowire.BytesType {
				n.size += protowire.SizeBytes(size)
			} else {
				n.size += size
			}
		}
	}
	return c.write(out, 0)
}

// canonTree holds the messages of a body; a message's children come after
// it.
type canonTree struct {
	nodes []canonNode
}

type canonNode struct {
	vals []canonValue // in the order of the .proto file
	size int          // of its encoding
}

// canonValue is one value of a field: its encoding on the wire (the
// content of a string or bytes), or a message.
type canonValue struct {
	f     *fieldInfo
	raw   []byte
	child int
}

// read reads the message m encoded in parts, one after the other (a
// message sent more than once is the merge of its encodings), and returns
// its node.
func (c *canonTree) read(parts [][]byte, m *msgInfo, depth int) (int, error) {
	if depth > maxMessageDepth {
		return 0, fmt.Errorf("messages nested deeper than %d", maxMessageDepth)
	}
	// vals holds each field's values: the last for a singular scalar,
	// every encoding for a message (merged) or a list (elements).
	vals := make([][][]byte, len(m.order))
	member := make([]*fieldInfo, m.oneofs) // the member each oneof holds
	for _, b := range parts {
		for len(b) > 0 {
			num, typ, n := consumeTag(b)
			if n < 0 {
				return 0, errWire
			}
			b = b[n:]
			f := m.field(num)
			if f == nil || typ != f.wire {
				if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
					return 0, errWire
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
				return 0, errWire
			}
			if typ != protowire.BytesType {
				v = b[:n]
			}
			b = b[n:]
			if f.kind == stringKind && !utf8.Valid(v) {
				return 0, fmt.Errorf("string field %s contains invalid UTF-8", f.proto)
			}
			if f.oneof > 0 {
				if cur := member[f.oneof-1]; cur != f {
					if cur != nil {
						vals[cur.index] = nil
					}
					member[f.oneof-1] = f
				}
			}
			if f.list || f.kind == messageKind {
				vals[f.index] = append(vals[f.index], v)
			} else {
				vals[f.index] = append(vals[f.index][:0], v)
			}
		}
	}
	node := len(c.nodes)
	c.nodes = append(c.nodes, canonNode{})
	var out []canonValue
	for _, f := range m.order {
		vs := vals[f.index]
		switch {
		case len(vs) == 0:
		case f.kind != messageKind:
			for _, v := range vs {
				out = append(out, canonValue{f: f, raw: v})
			}
		case f.list:
			for _, v := range vs {
				child, err := c.read([][]byte{v}, f.msg, depth+1)
				if err != nil {
					return 0, err
				}
				out = append(out, canonValue{f: f, child: child})
			}
		default:
			child, err := c.read(vs, f.msg, depth+1)
			if err != nil {
				return 0, err
			}
			out = append(out, canonValue{f: f, child: child})
		}
	}
	c.nodes[node].vals = out
	return node, nil
}

// write appends the encoding of node i.
func (c *canonTree) write(out []byte, i int) []byte {
	for _, v := range c.nodes[i].vals {
		out = protowire.AppendTag(out, v.f.num, v.f.wire)
		switch {
		case v.f.kind == messageKind:
			out = protowire.AppendVarint(out, uint64(c.nodes[v.child].size))
			out = c.write(out, v.child)
		case v.f.wire == protowire.BytesType:
			out = protowire.AppendBytes(out, v.raw)
		default:
			out = append(out, v.raw...)
		}
	}
	return out
}
