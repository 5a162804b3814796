package groundtruth

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agentretrieval/agentretrieval/internal/input"
)

// sweInstance holds the keys of a SWE-bench instance the loaders use. The
// others (repo, base_commit, problem_statement, test_patch, FAIL_TO_PASS,
// ...) are accepted and ignored: test_patch adds the tests that check a
// fix, which say nothing about where the fix belongs.
type sweInstance struct {
	InstanceID *string `json:"instance_id"`
	Patch      *string `json:"patch"`
}

// ParseSWEBench reads one SWE-bench instance, a JSON object with
// "instance_id" and "patch", and returns the ground truth of its gold patch
// as [ParseDiff] reads it. Source is name#instance_id.
func ParseSWEBench(name string, data []byte) (*Truth, error) {
	var inst sweInstance
	if err := json.Unmarshal(data, &inst); err != nil {
		return nil, jsonError(name, data, err)
	}
	return inst.truth(name, 0)
}

// LoadSWEBench reads SWE-bench instances from a file and returns the ground
// truth of the one named instanceID. The file holds one JSON object, a JSON
// array of them, or JSON Lines, one object a line (blank lines skipped). An
// empty instanceID picks the only instance and is an error when there are
// several.
func LoadSWEBench(path, instanceID string) (*Truth, error) {
	f, err := input.Open(path, maxInput.Or(input.DataLimit))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	first, err := firstByte(br)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}

	var found *sweInstance
	var foundLine, count int
	var firstID string
	pick := func(inst sweInstance, line int) error {
		if inst.InstanceID == nil {
			return &ParseError{File: path, Line: line, Msg: "instance has no \"instance_id\": expected SWE-bench instances"}
		}
		count++
		if count == 1 {
			firstID = *inst.InstanceID
		}
		if found == nil && (instanceID == "" || *inst.InstanceID == instanceID) {
			found, foundLine = &inst, line
		}
		return nil
	}

	if first == '[' {
		// An array is decoded element by element, so a whole dataset
		// export is never held as one value.
		dec := json.NewDecoder(br)
		if _, err := dec.Token(); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		for i := 0; dec.More(); i++ {
			var inst sweInstance
			if err := dec.Decode(&inst); err != nil {
				return nil, fmt.Errorf("%s: element %d: %w", path, i, err)
			}
			if err := pick(inst, 0); err != nil {
				return nil, fmt.Errorf("element %d: %w", i, err)
			}
		}
	} else {
		data, err := io.ReadAll(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		// JSON Lines when the first non-blank line is a JSON value by
		// itself; otherwise one (pretty-printed) object.
		firstLine, _, _ := bytes.Cut(bytes.TrimSpace(data), []byte("\n"))
		if json.Valid(firstLine) {
			err = eachJSONLine(path, data, func(line int, raw []byte) error {
				var inst sweInstance
				if err := json.Unmarshal(raw, &inst); err != nil {
					return jsonLineError(path, line, err)
				}
				return pick(inst, line)
			})
		} else {
			var one sweInstance
			if err := json.Unmarshal(data, &one); err != nil {
				return nil, jsonError(path, data, err)
			}
			err = pick(one, 1)
		}
		if err != nil {
			return nil, err
		}
	}

	switch {
	case count == 0:
		return nil, &ParseError{File: path, Msg: "no instances: expected a SWE-bench instance object, an array or JSON Lines of them"}
	case instanceID == "" && count > 1:
		return nil, &ParseError{File: path, Msg: fmt.Sprintf("%d instances (the first is %q): expected an instance id to pick one", count, firstID)}
	case found == nil:
		return nil, &ParseError{File: path, Msg: fmt.Sprintf("instance %q not found among %d instances", instanceID, count)}
	}
	return found.truth(path, foundLine)
}

func (inst sweInstance) truth(name string, line int) (*Truth, error) {
	if inst.InstanceID == nil || *inst.InstanceID == "" {
		return nil, &ParseError{File: name, Line: line, Msg: "no \"instance_id\": expected a SWE-bench instance"}
	}
	id := *inst.InstanceID
	if inst.Patch == nil || strings.TrimSpace(*inst.Patch) == "" {
		return nil, &ParseError{File: name, Line: line, Msg: fmt.Sprintf("instance %q has no \"patch\": expected the gold patch as a unified diff", id)}
	}
	source := name + "#" + id
	// Errors in the patch name its own lines, counted from the patch's
	// first line, under "<file>#<id> patch".
	t, err := ParseDiff(source+" patch", strings.NewReader(*inst.Patch))
	if err != nil {
		return nil, err
	}
	t.Source = source
	return t, nil
}

// firstByte returns the first byte that is not white space, leaving it
// unread.
func firstByte(br *bufio.Reader) (byte, error) {
	for {
		b, err := br.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return 0, errors.New("empty file")
			}
			return 0, err
		}
		if b != ' ' && b != '\t' && b != '\n' && b != '\r' {
			return b, br.UnreadByte()
		}
	}
}

// eachJSONLine calls fn with each non-blank line of data and its 1-based
// number.
func eachJSONLine(name string, data []byte, fn func(line int, raw []byte) error) error {
	for n := 1; len(data) > 0; n++ {
		raw, rest, _ := bytes.Cut(data, []byte("\n"))
		data = rest
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 {
			continue
		}
		if err := fn(n, raw); err != nil {
			return err
		}
	}
	return nil
}

// jsonLineError names the line of a JSON Lines file a decoding error is on.
func jsonLineError(name string, line int, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return &ParseError{File: name, Line: line, Msg: fmt.Sprintf("%q is a JSON %s: expected %s", te.Field, te.Value, te.Type)}
	}
	return &ParseError{File: name, Line: line, Msg: fmt.Sprintf("%v: expected one JSON object a line", err)}
}

// jsonError turns an encoding/json error into a *ParseError at the line
// of its byte offset.
func jsonError(name string, data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return &ParseError{File: name, Line: lineAt(data, se.Offset), Msg: se.Error()}
	case errors.As(err, &te):
		return &ParseError{File: name, Line: lineAt(data, te.Offset), Msg: fmt.Sprintf("%q is a JSON %s: expected %s", te.Field, te.Value, te.Type)}
	}
	return &ParseError{File: name, Msg: err.Error()}
}

func lineAt(data []byte, offset int64) int {
	offset = min(max(offset, 0), int64(len(data)))
	return 1 + bytes.Count(data[:offset], []byte("\n"))
}
