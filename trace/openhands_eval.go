package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/agentretrieval/agentretrieval/internal/jsonscan"
)

// OpenHandsEval reads the output.jsonl that the OpenHands evaluation
// harness writes for a benchmark run (evaluation/benchmarks/*/run_infer.py,
// and the V1 benchmarks harness): one task instance a line, each a session.
//
// # Format
//
// Each line is an EvalOutput object:
//
//	{"instance_id": "django__django-11099", "instruction": "…", "test_result": {"git_patch": "…"},
//	 "metadata": {"agent_class": "CodeActAgent", "llm_config": {"model": "…"}, …},
//	 "history": [ V0 events, as in an OpenHands event list (or V1 SDK events) ],
//	 "metrics": {"accumulated_token_usage": {"prompt_tokens": …, "completion_tokens": …}},
//	 "error": null}
//
// The history is read as OpenHands (V0) or OpenHandsV1 events read it; an
// event with a "kind" key makes the line's history V1. Session.Task is the
// instance_id and Session.Model metadata.llm_config.model; Session.Usage is
// metrics.accumulated_token_usage when present, else the history's last
// running total. Options.SessionID picks one instance. A malformed line (a
// half-written last line among them) is skipped with a warning that every
// session of the file carries.
//
// With Options.CallDone, the calls of each instance are handed over, in
// order, once its line is read, so that with Options.DropReleased a file
// of any number of instances holds the calls of one line at a time. A
// line is read whole before any of its calls is handed over, since a
// line found malformed at its end yields no session.
type OpenHandsEval struct{}

// Name returns "openhands-eval".
func (OpenHandsEval) Name() string { return "openhands-eval" }

// Info describes the format.
func (OpenHandsEval) Info() FormatInfo {
	return FormatInfo{
		Writer:    "the OpenHands evaluation harness (evaluation/benchmarks/<benchmark>/scripts/run_infer.sh)",
		Detection: `JSON Lines whose first line is an object with an "instance_id" key and a "history" or "test_result" key`,
		Example:   "evaluation/evaluation_outputs/outputs/<dataset>/CodeActAgent/<model>_maxiter_100/output.jsonl",
	}
}

// Detect reports whether the first line is an EvalOutput object.
func (OpenHandsEval) Detect(prefix []byte) bool {
	prefix = trimLeading(prefix)
	if len(prefix) == 0 || prefix[0] != '{' || !bytes.Contains(prefix, []byte(`"instance_id"`)) {
		return false
	}
	if i := bytes.IndexByte(prefix, '\n'); i >= 0 {
		prefix = prefix[:i]
	}
	var id, run bool
	atifWalkObject(prefix, func(key string, _ *json.Decoder) bool {
		switch key {
		case "instance_id":
			id = true
		case "history", "test_result":
			run = true
		}
		return false
	})
	return id && run
}

// Read reads the one instance of the file, or the one opts.SessionID names.
func (f OpenHandsEval) Read(r io.Reader, opts Options) (*Session, error) {
	all, err := f.ReadAll(r, opts)
	if err != nil {
		return nil, err
	}
	if opts.Source == "" {
		opts.Source = "-"
	}
	return pickSession(all, opts)
}

// ReadAll reads every instance of the file, in file order.
func (OpenHandsEval) ReadAll(r io.Reader, opts Options) ([]*Session, error) {
	src := opts.Source
	if src == "" {
		src = "-"
	}
	var all []*Session
	file := &Session{Source: src} // warnings about lines that hold no instance
	rd := ohEvalReader{src: src, max: opts.MaxResultBytes, skipMessages: opts.SkipMessages}
	lr := newLineReader(r)
	lr.skip = func(n int, msg string) { file.Warn(Warning{Source: src, Line: n, Message: msg}) }
	lr.cutLongLines(opts.MaxResultBytes, lr.skip)
	for {
		line, n, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", src, n+1, err)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		s, err := rd.line(line, n)
		if err != nil {
			file.Warn(Warning{Source: src, Line: n, Message: "skipped a line: " + err.Error()})
			continue
		}
		all = append(all, s)
		handOverRead(s, opts)
		s.streamed = opts.CallDone != nil
	}
	if len(all) == 0 {
		if len(file.Warnings) > 0 {
			return nil, fmt.Errorf("%s: no OpenHands evaluation output could be read (%s)", file.Warnings[0].Source, file.Warnings[0].String())
		}
		return nil, fmt.Errorf("%s: not an OpenHands evaluation output: no line holds an instance", src)
	}
	for _, s := range all {
		s.prependWarnings(file)
	}
	return all, nil
}

// ohEvalReader reads the lines of one file.
type ohEvalReader struct {
	src          string
	max          int
	skipMessages bool
	rec          jsonRec
}

// line reads one EvalOutput line into a session.
func (rd *ohEvalReader) line(line []byte, n int) (*Session, error) {
	s := &Session{Format: "openhands-eval", Source: rd.src, Agent: "openhands", skipMessages: rd.skipMessages}
	r := &rd.rec
	sc := &r.sc
	sc.Reset(line)
	var v0 *ohV0Builder
	var v1 *ohV1Builder
	var usage ohUsage
	var model string
	hasID := false
	if !sc.Object() {
		return nil, sc.Err()
	}
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		switch string(key) {
		case "instance_id":
			hasID = true
			// Some benchmarks number their instances.
			if sc.Peek() == jsonscan.Number {
				s.Task = string(sc.Raw())
			} else {
				s.Task = r.str("instance_id")
			}
		case "metadata":
			if !r.object("metadata") {
				continue
			}
			for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
				if string(key) != "llm_config" {
					sc.Skip()
					continue
				}
				if !r.object("metadata.llm_config") {
					continue
				}
				for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
					if string(key) == "model" {
						model = r.str("metadata.llm_config.model")
					} else {
						sc.Skip()
					}
				}
			}
		case "metrics":
			if !r.object("metrics") {
				continue
			}
			for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
				if string(key) == "accumulated_token_usage" {
					usage = ohReadUsage(r, "metrics.accumulated_token_usage")
				} else {
					sc.Skip()
				}
			}
		case "history":
			if !r.array("history") {
				continue
			}
			for sc.NextElem() {
				raw := sc.Raw()
				if raw == nil {
					break
				}
				if v0 == nil && v1 == nil {
					if ohHasKey(raw, "kind") {
						v1 = newOHV1Builder(s, rd.max)
					} else {
						v0 = newOHV0Builder(s, rd.max)
					}
				}
				if v1 != nil {
					v1.event(raw, rd.src, n)
				} else {
					v0.event(raw, n)
				}
			}
		default:
			sc.Skip()
		}
	}
	sc.End()
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if !hasID {
		return nil, fmt.Errorf(`the object has no "instance_id"`)
	}
	switch {
	case v1 != nil:
		v1.finish(nil)
	case v0 != nil:
		v0.finish()
	}
	if model != "" {
		s.Model = model
	}
	if usage.set {
		u := usage.usage()
		s.Usage = &u
	}
	return s, nil
}

// ohHasKey reports whether the JSON object raw has the top-level key.
func ohHasKey(raw []byte, key string) bool {
	var sc jsonscan.Scanner
	sc.Reset(raw)
	if !sc.Object() {
		return false
	}
	for k, ok := sc.NextKey(); ok; k, ok = sc.NextKey() {
		if string(k) == key {
			return true
		}
		sc.Skip()
	}
	return false
}
