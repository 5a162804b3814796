package events

import (
	"encoding/json"
	"math"
	"strconv"
)

// appendEvent appends ev as a json.Encoder with indent "  " writes it at
// the given prefix (the events array's elements), without the trailing
// newline. It is written out by hand because a run's document holds tens
// of thousands of events, and reflection and re-indenting cost as much as
// extracting them; TestEventsEncodeAsEncodingJSONDoes holds it to the
// encoder's bytes, field by field.
func appendEvent(b []byte, ev *Event, prefix string) ([]byte, error) {
	in := prefix + "  "
	var err error
	b = append(b, '{')
	member := func(name string) {
		b = append(b, '\n')
		b = append(b, in...)
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, `": `...)
	}
	member("step_index")
	b = strconv.AppendInt(b, int64(ev.StepIndex), 10)
	b = append(b, ',')
	member("tool_name")
	b = appendJSONString(b, ev.ToolName)
	b = append(b, ',')
	member("tool_category")
	b = appendJSONString(b, string(ev.ToolCategory))
	b = append(b, ',')
	member("is_mcp")
	b = strconv.AppendBool(b, ev.IsMCP)
	b = append(b, ',')
	member("target_files")
	b = appendStrings(b, ev.TargetFiles, in)
	b = append(b, ',')
	member("hits_ground_truth")
	b = strconv.AppendBool(b, ev.HitsGroundTruth)
	b = append(b, ',')
	member("cumulative_tokens")
	if ev.CumulativeTokens == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, *ev.CumulativeTokens, 10)
	}
	b = append(b, ',')
	member("elapsed_seconds")
	if ev.ElapsedSeconds == nil {
		b = append(b, "null"...)
	} else if b, err = appendJSONFloat(b, *ev.ElapsedSeconds); err != nil {
		return b, err
	}
	b = append(b, ',')
	member("tool_class")
	b = appendJSONString(b, string(ev.ToolClass))
	if ev.CallID != "" {
		b = append(b, ',')
		member("call_id")
		b = appendJSONString(b, ev.CallID)
	}
	for _, f := range []struct {
		name string
		set  bool
	}{{"unclassified", ev.Unclassified}, {"is_error", ev.IsError}, {"is_subagent", ev.IsSubagent}} {
		if f.set {
			b = append(b, ',')
			member(f.name)
			b = append(b, "true"...)
		}
	}
	if ev.ParentCallID != "" {
		b = append(b, ',')
		member("parent_call_id")
		b = appendJSONString(b, ev.ParentCallID)
	}
	for _, f := range []struct {
		name string
		list []string
	}{{"files_read", ev.FilesRead}, {"files_written", ev.FilesWritten}} {
		if len(f.list) > 0 {
			b = append(b, ',')
			member(f.name)
			b = appendStrings(b, f.list, in)
		}
	}
	if len(ev.LineRanges) > 0 {
		b = append(b, ',')
		member("line_ranges")
		b = append(b, '[')
		for i, r := range ev.LineRanges {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '\n')
			b = append(b, in...)
			b = append(b, "  {\n"...)
			b = append(b, in...)
			b = append(b, `    "path": `...)
			b = appendJSONString(b, r.Path)
			b = append(b, ",\n"...)
			b = append(b, in...)
			b = append(b, `    "start": `...)
			b = strconv.AppendInt(b, int64(r.Start), 10)
			b = append(b, ",\n"...)
			b = append(b, in...)
			b = append(b, `    "end": `...)
			b = strconv.AppendInt(b, int64(r.End), 10)
			b = append(b, '\n')
			b = append(b, in...)
			b = append(b, "  }"...)
		}
		b = append(b, '\n')
		b = append(b, in...)
		b = append(b, ']')
	}
	if len(ev.Symbols) > 0 {
		b = append(b, ',')
		member("symbols")
		b = appendStrings(b, ev.Symbols, in)
	}
	if ev.Query != "" {
		b = append(b, ',')
		member("query")
		b = appendJSONString(b, ev.Query)
	}
	if len(ev.GroundTruthHits) > 0 {
		b = append(b, ',')
		member("ground_truth_hits")
		b = appendStrings(b, ev.GroundTruthHits, in)
	}
	b = append(b, '\n')
	b = append(b, prefix...)
	b = append(b, '}')
	return b, nil
}

// appendStrings appends a list of strings as a member value at indent in:
// null for nil, [] when empty.
func appendStrings(b []byte, list []string, in string) []byte {
	switch {
	case list == nil:
		return append(b, "null"...)
	case len(list) == 0:
		return append(b, "[]"...)
	}
	b = append(b, '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '\n')
		b = append(b, in...)
		b = append(b, "  "...)
		b = appendJSONString(b, s)
	}
	b = append(b, '\n')
	b = append(b, in...)
	return append(b, ']')
}

// appendJSONString appends s quoted: printable ASCII as it is, anything
// else through encoding/json, whose escapes (control characters, invalid
// UTF-8, U+2028) it then has by construction.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if !jsonPlainByte[s[i]] {
			q, _ := json.Marshal(s) // a string always encodes
			return append(b, unescapeHTML(q)...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// jsonPlainByte marks the bytes appendJSONString writes as they are:
// printable ASCII but the quote and the backslash.
var jsonPlainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// unescapeHTML undoes json.Marshal's HTML escaping (\u003c, \u003e,
// \u0026), which the document's encoder has turned off. A backslash
// before them is always an escape's: a literal backslash is written \\.
func unescapeHTML(q []byte) []byte {
	out := q[:0]
	for i := 0; i < len(q); i++ {
		if q[i] == '\\' && i+5 < len(q) && q[i+1] == 'u' && q[i+2] == '0' && q[i+3] == '0' {
			switch string(q[i+4 : i+6]) {
			case "3c":
				out = append(out, '<')
				i += 5
				continue
			case "3e":
				out = append(out, '>')
				i += 5
				continue
			case "26":
				out = append(out, '&')
				i += 5
				continue
			}
		}
		if q[i] == '\\' && i+1 < len(q) {
			out = append(out, q[i], q[i+1])
			i++
			continue
		}
		out = append(out, q[i])
	}
	return out
}

// appendJSONFloat appends f as encoding/json writes a float64: plain
// decimals between 1e-6 and 1e21, an exponent outside (left to
// encoding/json itself).
func appendJSONFloat(b []byte, f float64) ([]byte, error) {
	if abs := math.Abs(f); abs == 0 || abs >= 1e-6 && abs < 1e21 {
		return strconv.AppendFloat(b, f, 'f', -1, 64), nil
	}
	q, err := json.Marshal(f)
	return append(b, q...), err
}
