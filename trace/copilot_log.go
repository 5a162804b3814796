package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

// This file replays the operation log in which VS Code keeps a chat
// session (chatSessions/<id>.jsonl): the first record holds the whole
// session, each later one changes it at a path.

// copilotOp is one record of the log.
type copilotOp struct {
	Kind *int            `json:"kind"`
	K    []any           `json:"k"`
	V    json.RawMessage `json:"v"`
	I    *int            `json:"i"`
}

// The kinds of record (VS Code's ObjectMutationLog entry kinds).
const (
	copilotInitial = 0
	copilotSet     = 1
	copilotPush    = 2
	copilotDelete  = 3
)

// readLog replays the log and reads the session it ends with.
func (cr *copilotReader) readLog(br *bufio.Reader) error {
	src := cr.s.Source
	lr := newLineReader(br)
	lr.cutLongLines(cr.opts.MaxResultBytes, func(n int, msg string) { cr.s.Warnf(n, "%s", msg) })
	var state any
	initial := false
	for {
		line, n, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s:%d: reading Copilot chat session log: %w", src, n+1, err)
		}
		if n == 1 {
			line = bytes.TrimPrefix(line, []byte(bom))
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var op copilotOp
		if err := json.Unmarshal(line, &op); err != nil || op.Kind == nil {
			if !initial {
				return fmt.Errorf("%s:%d: not a Copilot chat session log: expected a record with kind 0 and the session as v", src, n)
			}
			cr.s.Warnf(n, "record skipped: expected an object with kind, k and v")
			continue
		}
		if *op.Kind == copilotInitial {
			v, err := copilotDecode(op.V)
			if err != nil {
				if !initial {
					return fmt.Errorf("%s:%d: not a Copilot chat session log: the initial record's v is %v", src, n, err)
				}
				cr.s.Warnf(n, "initial record skipped: v is %v", err)
				continue
			}
			if _, ok := v.(map[string]any); !ok {
				if !initial {
					return fmt.Errorf("%s:%d: not a Copilot chat session log: the initial record's v is %s, expected an object", src, n, atifJSONKind(op.V))
				}
				cr.s.Warnf(n, "initial record skipped: v is %s, expected an object", atifJSONKind(op.V))
				continue
			}
			state, initial = v, true
			continue
		}
		if !initial {
			return fmt.Errorf("%s:%d: not a Copilot chat session log: the first record must have kind 0 (the whole session)", src, n)
		}
		if err := copilotApply(&state, &op); err != nil {
			cr.s.Warnf(n, "kind %d record at %s skipped: %v", *op.Kind, copilotPath(op.K), err)
		}
	}
	if !initial {
		return fmt.Errorf("%s: %w", src, ErrEmpty)
	}
	return cr.readState(state.(map[string]any))
}

// readState reads the replayed session.
func (cr *copilotReader) readState(state map[string]any) error {
	for _, key := range []string{"sessionId", "creationDate"} {
		if v, ok := state[key]; ok {
			raw, _ := json.Marshal(v)
			cr.meta(key, raw, 0)
		}
	}
	requests, ok := state["requests"].([]any)
	if !ok {
		return fmt.Errorf("%s: not a Copilot chat session: the session has no requests array", cr.s.Source)
	}
	for _, q := range requests {
		raw, err := json.Marshal(q)
		if err != nil {
			continue
		}
		cr.request(raw, 0)
	}
	return nil
}

// copilotDecode decodes a value, keeping numbers as written.
func copilotDecode(raw json.RawMessage) (any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, fmt.Errorf("missing")
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// copilotApply applies a set, push or delete to the state.
func copilotApply(state *any, op *copilotOp) error {
	if len(op.K) == 0 {
		return fmt.Errorf("no path")
	}
	parent, err := copilotWalk(*state, op.K[:len(op.K)-1])
	if err != nil {
		return err
	}
	last := op.K[len(op.K)-1]
	switch *op.Kind {
	case copilotSet:
		v, err := copilotDecode(op.V)
		if err != nil {
			return fmt.Errorf("its value is %v", err)
		}
		return copilotPut(parent, last, v)
	case copilotPush:
		target, err := copilotWalk(parent, []any{last})
		if err != nil {
			return err
		}
		arr, ok := target.([]any)
		if !ok {
			return fmt.Errorf("the value there is not an array")
		}
		if op.I != nil {
			if *op.I < 0 || *op.I > len(arr) {
				return fmt.Errorf("cut at %d of an array of %d", *op.I, len(arr))
			}
			arr = arr[:*op.I]
		}
		if len(bytes.TrimSpace(op.V)) > 0 {
			v, err := copilotDecode(op.V)
			if err != nil {
				return fmt.Errorf("its value is %v", err)
			}
			items, ok := v.([]any)
			if !ok {
				return fmt.Errorf("its value is not an array of items to append")
			}
			arr = append(arr, items...)
		}
		return copilotPut(parent, last, arr)
	case copilotDelete:
		m, ok := parent.(map[string]any)
		key, isKey := last.(string)
		if !ok || !isKey {
			return fmt.Errorf("only an object member can be deleted")
		}
		delete(m, key)
		return nil
	}
	return fmt.Errorf("unknown kind")
}

// copilotWalk follows a path of keys and indexes from v.
func copilotWalk(v any, path []any) (any, error) {
	for i, step := range path {
		switch node := v.(type) {
		case map[string]any:
			key, ok := step.(string)
			if !ok {
				return nil, fmt.Errorf("%s: an index into an object", copilotPath(path[:i+1]))
			}
			next, ok := node[key]
			if !ok {
				return nil, fmt.Errorf("%s does not exist", copilotPath(path[:i+1]))
			}
			v = next
		case []any:
			n, ok := copilotIndex(step)
			if !ok || n < 0 || n >= len(node) {
				return nil, fmt.Errorf("%s does not exist", copilotPath(path[:i+1]))
			}
			v = node[n]
		default:
			return nil, fmt.Errorf("%s: a step into a value that is neither an object nor an array", copilotPath(path[:i+1]))
		}
	}
	return v, nil
}

// copilotPut sets the member or element step of parent.
func copilotPut(parent, step any, v any) error {
	switch node := parent.(type) {
	case map[string]any:
		key, ok := step.(string)
		if !ok {
			return fmt.Errorf("an index into an object")
		}
		node[key] = v
		return nil
	case []any:
		n, ok := copilotIndex(step)
		if !ok || n < 0 || n >= len(node) {
			return fmt.Errorf("index %v is outside the array", step)
		}
		node[n] = v
		return nil
	}
	return fmt.Errorf("the parent is neither an object nor an array")
}

// copilotIndex reads an array index of a path (a JSON number).
func copilotIndex(step any) (int, bool) {
	f, ok := step.(float64)
	if !ok || f != float64(int(f)) {
		return 0, false
	}
	return int(f), true
}

// copilotPath writes a path for a warning: requests[1].response.
func copilotPath(path []any) string {
	var b bytes.Buffer
	for _, step := range path {
		switch s := step.(type) {
		case string:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s)
		case float64:
			b.WriteString("[" + strconv.FormatFloat(s, 'f', -1, 64) + "]")
		default:
			b.WriteString("[?]")
		}
	}
	if b.Len() == 0 {
		return "the root"
	}
	return b.String()
}
