package collect

import (
	"sync"

	"google.golang.org/protobuf/encoding/protowire"
)

// The receiver knows the OTLP messages of traces and logs from a table
// of their fields (schema_generated.go), written from the descriptors of
// go.opentelemetry.io/proto/otlp by TestSchemaIsOTLPs, which also checks
// that it still matches them. The generated Go types are not linked into
// the program: their package initialisation built the descriptors of
// every OTLP file at the start of every command, collect or not, and
// took about 0.7 MiB of the start-up floor.

// kind is the type of a field, as protobuf names it.
type kind uint8

const (
	boolKind kind = iota + 1
	enumKind
	int32Kind
	sint32Kind
	uint32Kind
	int64Kind
	sint64Kind
	uint64Kind
	fixed32Kind
	sfixed32Kind
	floatKind
	fixed64Kind
	sfixed64Kind
	doubleKind
	stringKind
	bytesKind
	messageKind
)

// messageSchema is one message type of the table: its full name and its
// fields in the order the .proto file declares them (the order protojson
// writes them in).
type messageSchema struct {
	name   string
	fields []fieldSchema
}

// fieldSchema is one field of the table.
type fieldSchema struct {
	num      protowire.Number
	name     string // the .proto name, which OTLP/JSON also accepts
	json     string // the lowerCamelCase name OTLP/JSON writes
	kind     kind
	list     bool
	oneof    int    // the index of its oneof plus one, 0 when in none
	presence bool   // written even when zero: a message, a oneof member
	typ      string // the full name of its message or enum type
}

// enumSchema is an enum type of the table: the names OTLP/JSON accepts
// for its numbers.
type enumSchema struct {
	name   string
	values []enumValue
}

type enumValue struct {
	name string
	num  int32
}

// The messages the receiver reads requests as (see decodeTraces).
const (
	tracesDataName = "opentelemetry.proto.trace.v1.TracesData"
	logsDataName   = "opentelemetry.proto.logs.v1.LogsData"
)

// idFields are the fields OTLP/JSON writes in hex.
var idFields = map[string]bool{
	"opentelemetry.proto.trace.v1.Span.trace_id":       true,
	"opentelemetry.proto.trace.v1.Span.span_id":        true,
	"opentelemetry.proto.trace.v1.Span.parent_span_id": true,
	"opentelemetry.proto.trace.v1.Span.Link.trace_id":  true,
	"opentelemetry.proto.trace.v1.Span.Link.span_id":   true,
	"opentelemetry.proto.logs.v1.LogRecord.trace_id":   true,
	"opentelemetry.proto.logs.v1.LogRecord.span_id":    true,
}

// messages returns the table's message types, linked, by full name. It
// is built on first use.
var messages = sync.OnceValue(func() map[string]*msgInfo {
	return link(otlpMessages, otlpEnums)
})

// link makes the table's messages into the transcoder's msgInfo, each
// field pointing at its message type.
func link(msgs []messageSchema, enums []enumSchema) map[string]*msgInfo {
	byName := make(map[string]*msgInfo, len(msgs))
	for _, ms := range msgs {
		m := &msgInfo{name: ms.name, fields: make([]*fieldInfo, maxIndexed+1), byNum: map[protowire.Number]*fieldInfo{},
			byJSON: map[string]*fieldInfo{}}
		for i, fs := range ms.fields {
			f := &fieldInfo{index: i, num: fs.num, proto: fs.name, name: []byte(`"` + fs.json + `":`), kind: fs.kind, wire: wireType(fs.kind),
				list: fs.list, oneof: fs.oneof, present: fs.presence, id: idFields[ms.name+"."+fs.name], typ: fs.typ}
			if fs.oneof > m.oneofs {
				m.oneofs = fs.oneof
			}
			m.order = append(m.order, f)
			m.byJSON[fs.json] = f
			if n := fs.num; n <= maxIndexed {
				m.fields[n] = f
			} else {
				m.byNum[n] = f
			}
		}
		// The .proto name is accepted too; a JSON name wins where the
		// two spellings of different fields meet.
		for _, f := range m.order {
			if _, ok := m.byJSON[f.proto]; !ok {
				m.byJSON[f.proto] = f
			}
		}
		byName[ms.name] = m
	}
	enumValues := make(map[string]map[string]int32, len(enums))
	for _, e := range enums {
		vals := make(map[string]int32, len(e.values))
		for _, v := range e.values {
			vals[v.name] = v.num
		}
		enumValues[e.name] = vals
	}
	for _, m := range byName {
		for _, f := range m.order {
			switch f.kind {
			case messageKind:
				f.msg = byName[f.typ]
			case enumKind:
				f.enum = enumValues[f.typ]
			}
		}
	}
	return byName
}

func wireType(k kind) protowire.Type {
	switch k {
	case boolKind, enumKind, int32Kind, sint32Kind, uint32Kind, int64Kind, sint64Kind, uint64Kind:
		return protowire.VarintType
	case fixed32Kind, sfixed32Kind, floatKind:
		return protowire.Fixed32Type
	case fixed64Kind, sfixed64Kind, doubleKind:
		return protowire.Fixed64Type
	}
	return protowire.BytesType
}
