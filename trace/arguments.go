package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/agentretrieval/agentretrieval/internal/jsonmap"
)

// DecodeArguments decodes raw tool-call arguments as a JSON object, numbers
// as float64 as encoding/json does. It returns nil, and no problem, when
// the arguments are absent or not an object.
//
// encoding/json gives up on the whole object for one number float64
// cannot hold ("offset": 1e400), which would lose the file a call names
// along with its offset. DecodeArguments keeps that one value as a
// json.Number instead, so that a reader of the key sees a value it cannot
// use rather than no value, and says so in problems, one entry per value
// naming its key ("offset: 1e400 is out of range for a number"). Arguments
// that are not valid JSON give nil and one problem.
func DecodeArguments(raw json.RawMessage) (args map[string]any, problems []string) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, nil
	}
	if args, ok := decodeArgumentsFast(raw); ok {
		return args, nil
	}
	// The slow path, for arguments encoding/json refuses.
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v map[string]any
	err := dec.Decode(&v)
	if err == nil {
		if _, extra := dec.Token(); !errors.Is(extra, io.EOF) {
			err = errors.New("data after the object")
		}
	}
	if err != nil {
		return nil, []string{fmt.Sprintf("not a valid JSON object (%v); none was read", err)}
	}
	problems = floatNumbers(v, "", problems)
	slices.Sort(problems) // map order is random; warnings are not
	return v, problems
}

// decodeArgumentsFast decodes an object in one pass (jsonmap.Decode); ok is
// false for anything encoding/json refuses and for a number float64
// cannot hold.
func decodeArgumentsFast(raw []byte) (map[string]any, bool) { return jsonmap.Decode(raw, nil) }

// clipNumber shortens a number's text for a message: a thousand digits
// say no more than thirty.
func clipNumber(n json.Number) string {
	if len(n) > 32 {
		return string(n[:32]) + "…"
	}
	return string(n)
}

// floatNumbers turns the json.Number values under v into float64 in place,
// keeping (and listing in problems) those out of float64's range. at is the
// key path of v, empty at the top.
func floatNumbers(v any, at string, problems []string) []string {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			key := k
			if at != "" {
				key = at + "." + k
			}
			if n, ok := e.(json.Number); ok {
				f, err := strconv.ParseFloat(string(n), 64)
				if err != nil {
					problems = append(problems, fmt.Sprintf("%s: %s is out of range for a number", key, clipNumber(n)))
					continue
				}
				v[k] = f
				continue
			}
			problems = floatNumbers(e, key, problems)
		}
	case []any:
		for i, e := range v {
			key := fmt.Sprintf("%s[%d]", at, i)
			if n, ok := e.(json.Number); ok {
				f, err := strconv.ParseFloat(string(n), 64)
				if err != nil {
					problems = append(problems, fmt.Sprintf("%s: %s is out of range for a number", key, clipNumber(n)))
					continue
				}
				v[i] = f
				continue
			}
			problems = floatNumbers(e, key, problems)
		}
	}
	return problems
}
