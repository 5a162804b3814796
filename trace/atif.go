package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ATIF reads Harbor's Agent Trajectory Interchange Format, the
// trajectory.json that Harbor writes for every agent it runs (versions
// ATIF-v1.2 to ATIF-v1.7).
//
// # Format
//
// A trajectory is one JSON object:
//
//	{
//	  "schema_version": "ATIF-v1.5",
//	  "session_id": "…",
//	  "agent": {"name": "…", "version": "…", "model_name": "…",
//	            "tool_definitions": [{"type": "function", "function": {"name": "…"}}]},
//	  "steps": [
//	    {"step_id": 2, "timestamp": "2025-10-11T10:30:02Z", "source": "agent",
//	     "message": "…",
//	     "tool_calls": [{"tool_call_id": "c1", "function_name": "Read", "arguments": {…}}],
//	     "observation": {"results": [{"source_call_id": "c1", "content": "…"}]},
//	     "metrics": {"prompt_tokens": 520, "completion_tokens": 80, "cached_tokens": 200}}
//	  ],
//	  "subagent_trajectories": [ {complete trajectories, v1.7} ]
//	}
//
// A call is joined to its result by tool_call_id = source_call_id; results
// without a source_call_id go, in order, to the step's calls that have none.
// prompt_tokens already includes cached_tokens. Steps marked
// is_copied_context repeat a parent's context and are skipped. A step with
// extra.is_sidechain, and every step of an embedded subagent trajectory, is
// a subagent's; an embedded trajectory's calls follow the call whose result
// references it (a reference may be an array, as the RFC has it, or a single
// object). References to trajectory files (trajectory_path) are not
// followed, nor is continued_trajectory_ref, which is a warning.
//
// A result is marked an error by extra.is_error, extra.status "error" (NeMo
// Relay) or the step's extra.tool_result_is_error (Harbor's Claude Code
// conversion). When a result's extra.tool_result_metadata.raw_tool_result
// holds the tool_result block the agent received, its content is the
// result text, not the annotated content beside it. final_metrics give the
// session's usage when no step has metrics. Unreadable timestamps (a
// redacted copy writes "<redacted>" in every step) are one warning.
//
// The reader streams: it holds one step at a time, so memory grows with the
// number of calls, not with the size of the file. Root keys may come in any
// order.
type ATIF struct{}

// Name returns "atif".
func (ATIF) Name() string { return "atif" }

// Info describes the format.
func (ATIF) Info() FormatInfo {
	return FormatInfo{
		Writer:    "Harbor (any agent it runs), and agents that export ATIF",
		Detection: `a JSON object with a top-level "schema_version" starting "ATIF-v"`,
		Example:   "jobs/<job>/<trial>/agent/trajectory.json",
	}
}

// Detect reports whether prefix starts a JSON object with a top-level
// "schema_version" whose value starts with "ATIF-v", wherever the key sits
// among the root keys.
func (ATIF) Detect(prefix []byte) bool {
	prefix = trimLeading(prefix)
	if len(prefix) == 0 || prefix[0] != '{' || !bytes.Contains(prefix, []byte(`"schema_version"`)) {
		return false
	}
	found := false
	atifWalkObject(prefix, func(key string, dec *json.Decoder) bool {
		if key != "schema_version" {
			return false
		}
		tok, err := dec.Token()
		v, ok := tok.(string)
		found = err == nil && ok && strings.HasPrefix(v, "ATIF-v")
		return true
	})
	return found
}

// atifWalkObject calls visit for each top-level key of the JSON object that
// data starts with, until visit returns true. A visit that returns false
// must not have read the key's value: the walk skips it. Truncated or
// malformed data ends the walk quietly, since detection sees prefixes.
func atifWalkObject(data []byte, visit func(key string, dec *json.Decoder) (stop bool)) {
	atifWalkDecoder(json.NewDecoder(bytes.NewReader(data)), visit)
}

// atifWalkDecoder is atifWalkObject for the object that dec reads next.
func atifWalkDecoder(dec *json.Decoder, visit func(key string, dec *json.Decoder) (stop bool)) {
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return
		}
		key, _ := tok.(string)
		if visit(key, dec) {
			return
		}
		if atifSkipDecoder(dec) != nil {
			return
		}
	}
}

// atifSkipDecoder drops the next value of dec.
func atifSkipDecoder(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth <= 0 {
			return nil
		}
	}
}

// Read reads one ATIF trajectory. A step whose fields have the wrong types
// is skipped with a warning; a syntax error or truncation keeps the steps
// read before it, with a warning naming the line. It returns an error only
// when no step could be read from a broken document, or when the input is
// not a JSON object.
func (ATIF) Read(r io.Reader, opts Options) (*Session, error) {
	return readCut(r, opts, func(r io.Reader) (*Session, error) { return readATIF(r, opts) })
}

func readATIF(r io.Reader, opts Options) (*Session, error) {
	src := opts.Source
	if src == "" {
		src = "-"
	}
	rd := &atifReader{
		s:            &Session{Format: "atif", Source: src},
		st:           newATIFStream(r),
		max:          opts.MaxResultBytes,
		byTrajectory: map[string]*atifTraj{},
		bySession:    map[string]*atifTraj{},
		emitted:      map[*atifTraj]bool{},
	}
	s := rd.s
	root, err := rd.trajectory("", 0)
	if err != nil {
		var shape *atifShapeError
		if errors.As(err, &shape) {
			// The root is not an object: this is not a trajectory at all.
			return nil, fmt.Errorf("%s:%d: %s", src, shape.Line, shape.Msg)
		}
		var se *atifStreamError
		if !errors.As(err, &se) {
			return nil, fmt.Errorf("%s: %w", src, err)
		}
		if root == nil || rd.steps == 0 {
			return nil, fmt.Errorf("%s:%d: reading ATIF trajectory: no step could be read: %w", src, se.Line, se.Err)
		}
		s.Warnf(se.Line, "trajectory is cut short or malformed (%v); kept the %d steps read before it", se.Err, rd.steps)
	} else if root.schema == "" && !root.sawSteps {
		// A JSON object with neither key is some other document (a Claude
		// JSONL line, a config file): reading it as an empty trajectory
		// would hide the mistake when the format was forced.
		return nil, fmt.Errorf("%s:%d: not an ATIF trajectory: the object has neither schema_version nor steps", src, root.line)
	} else if note, line := rd.st.endOfDocument(); note != "" {
		s.Warnf(line, "%s", note)
	}
	rd.warnBadTimes()
	rd.finish(root)
	return s, nil
}

// atifShapeError reports a value that is not the object expected; the value
// has been skipped and the stream is still usable.
type atifShapeError struct {
	Line int
	Msg  string
}

func (e *atifShapeError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// atifMaxDepth bounds how deeply embedded subagent trajectories may nest.
// Real traces nest a few levels; the bound keeps hostile input from
// recursing without end.
const atifMaxDepth = 64

// atifReader holds the state of one Read.
type atifReader struct {
	s   *Session
	st  *atifStream
	max int // Options.MaxResultBytes
	// steps counts the steps decoded, in every trajectory.
	steps int
	// badTimes counts the steps whose timestamp could not be read; the
	// first of them is named in the one warning about them.
	badTimes     int
	firstBadTime string
	firstBadLine int
	// Embedded trajectories by trajectory_id and session_id, for joining
	// subagent_trajectory_ref entries; the first one read wins.
	byTrajectory map[string]*atifTraj
	bySession    map[string]*atifTraj
	emitted      map[*atifTraj]bool
}

// atifTraj is what is kept of one trajectory (the root or an embedded one):
// its metadata and its calls, not its steps.
type atifTraj struct {
	path  string // "" for the root, "subagent_trajectories[0]." for an embedded one
	line  int    // where the trajectory object starts
	depth int

	schema, sessionID, trajectoryID string
	agent                           atifAgent
	cwd                             string // root extra.cwd
	stepCWD                         string // first step extra.cwd
	stepModel                       string // first agent step model_name
	sawSteps                        bool   // the object has a steps key

	entries  []atifEntry
	embedded []*atifTraj
	callByID map[string]int // tool_call_id → index in entries

	// used counts the tokens of this trajectory's agent steps so far, each
	// model message once; usage splits it up. hasUsage is set by the first
	// step with metrics.
	used     int64
	usage    Usage
	hasUsage bool
	// final is the final_metrics totals, nil when absent.
	final *Usage
	// prevMetrics is the metrics of the previous agent step, as a
	// comparable key; empty when that step had none.
	prevMetrics string

	answerNoCalls, answerAny string

	// msgs is the trajectory's conversation, each message placed before
	// an entry (Message.Before indexes entries until emit places it).
	msgs []Message
}

// atifEntry is a call of a trajectory, or an anchor: a place in the
// sequence of calls where a step without a matching call references
// subagent trajectories.
type atifEntry struct {
	call    ToolCall
	anchor  bool
	matched bool // a result has been joined to the call
	// cum is the trajectory's token count up to and including the step of
	// the call; hasCum says whether any step so far had metrics.
	cum    int64
	hasCum bool
	refs   []atifRef
}

type atifAgent struct {
	Name            string           `json:"name"`
	Version         string           `json:"version"`
	ModelName       string           `json:"model_name"`
	ToolDefinitions []atifToolDef    `json:"tool_definitions"`
	Extra           *json.RawMessage `json:"extra"`
}

type atifToolDef struct {
	Name     string `json:"name"`
	Function struct {
		Name string `json:"name"`
	} `json:"function"`
}

// trajectory reads one trajectory object: the root, or an element of
// subagent_trajectories. A stream error is returned as *atifStreamError
// together with whatever was read before it; any other error means the
// value was not an object and has been skipped.
func (rd *atifReader) trajectory(path string, depth int) (*atifTraj, error) {
	line := rd.st.line()
	tok, err := rd.st.token()
	if err != nil {
		return nil, err
	}
	if tok != json.Delim('{') {
		if err := rd.st.skipRest(tok); err != nil {
			return nil, err
		}
		return nil, &atifShapeError{Line: line, Msg: "expected an ATIF trajectory (a JSON object with schema_version), found " + atifTokenKind(tok)}
	}
	t := &atifTraj{path: path, line: line, depth: depth, callByID: map[string]int{}}
	for rd.st.dec.More() {
		tok, err := rd.st.token()
		if err != nil {
			return t, err
		}
		key, _ := tok.(string)
		switch key {
		case "schema_version":
			err = rd.stringValue(t, key, &t.schema)
		case "session_id":
			err = rd.stringValue(t, key, &t.sessionID)
		case "trajectory_id":
			err = rd.stringValue(t, key, &t.trajectoryID)
		case "agent":
			err = rd.agent(t)
		case "extra":
			err = rd.rootExtra(t)
		case "steps":
			t.sawSteps = true
			err = rd.stepList(t)
		case "subagent_trajectories":
			err = rd.embeddedList(t)
		case "final_metrics":
			err = rd.finalMetrics(t)
		case "continued_trajectory_ref":
			line := rd.st.line()
			var ref string
			if err = rd.stringValue(t, key, &ref); err == nil && ref != "" {
				// The run goes on in another file (Harbor writes one after
				// a context summarization); its calls are not in this one.
				rd.s.Warnf(line, "%scontinued_trajectory_ref: the run continues in %q, which is not read; its calls are missing", t.path, ref)
			}
		default:
			err = rd.st.skip()
		}
		if err != nil {
			return t, err
		}
	}
	_, err = rd.st.token()
	return t, err
}

func atifTokenKind(tok json.Token) string {
	switch tok.(type) {
	case json.Delim:
		if tok == json.Delim('[') {
			return "an array"
		}
		return "an object"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return "a number"
}

// stringValue reads a root string field; a value of another type is
// ignored with a warning.
func (rd *atifReader) stringValue(t *atifTraj, key string, dst *string) error {
	line := rd.st.line()
	raw, err := rd.st.raw()
	if err != nil {
		return err
	}
	if string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		rd.s.Warnf(line, "%s%s: expected a string, found %s; ignored", t.path, key, atifJSONKind(raw))
	}
	return nil
}

func (rd *atifReader) agent(t *atifTraj) error {
	line := rd.st.line()
	raw, err := rd.st.raw()
	if err != nil {
		return err
	}
	// json.Unmarshal fills what it can before reporting a type error, so
	// the fields that are right are kept.
	if err := json.Unmarshal(raw, &t.agent); err != nil {
		rd.s.Warnf(line, "%sagent: %s; kept the fields that could be read", t.path, atifTypeMessage(err))
	}
	return nil
}

func (rd *atifReader) rootExtra(t *atifTraj) error {
	raw, err := rd.st.raw()
	if err != nil {
		return err
	}
	t.cwd = atifString(atifExtra(raw), "cwd")
	return nil
}

// finalMetrics reads the run's token totals. They give the session's
// usage when no step records metrics (a writer that only totals, or steps
// whose source is redacted); step metrics, when present, are preferred
// since they also give each call its cumulative count.
func (rd *atifReader) finalMetrics(t *atifTraj) error {
	line := rd.st.line()
	raw, err := rd.st.raw()
	if err != nil {
		return err
	}
	if string(raw) == "null" {
		return nil
	}
	var fm struct {
		Prompt     *atifCount `json:"total_prompt_tokens"`
		Completion *atifCount `json:"total_completion_tokens"`
		Cached     *atifCount `json:"total_cached_tokens"`
	}
	if err := json.Unmarshal(raw, &fm); err != nil {
		rd.s.Warnf(line, "%sfinal_metrics: %s; ignored", t.path, atifTypeMessage(err))
		return nil
	}
	if fm.Prompt != nil || fm.Completion != nil {
		// total_prompt_tokens includes the cached ones, as prompt_tokens does.
		t.final = &Usage{InputTokens: fm.Prompt.value(), OutputTokens: fm.Completion.value(), CacheReadTokens: fm.Cached.value()}
	}
	return nil
}

func (rd *atifReader) stepList(t *atifTraj) error {
	line := rd.st.line()
	tok, err := rd.st.token()
	if err != nil {
		return err
	}
	if tok != json.Delim('[') {
		if tok != nil {
			rd.s.Warnf(line, "%ssteps: expected an array, found %s; no steps read", t.path, atifTokenKind(tok))
		}
		return rd.st.skipRest(tok)
	}
	for i := 0; rd.st.dec.More(); i++ {
		line := rd.st.line()
		raw, err := rd.st.raw()
		if err != nil {
			return err
		}
		rd.step(t, i, line, raw)
	}
	_, err = rd.st.token()
	return err
}
