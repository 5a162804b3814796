package events

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
)

// SchemaVersion is the retrieval-events schema version documents are
// written with. 1.0 is the schema of the retrieval-eval framework; this
// package adds only optional fields, which 1.0 consumers ignore. A document
// that carries expected_edit_files (a 1.1 field) declares SchemaVersion11.
const (
	SchemaVersion   = "1.0"
	SchemaVersion11 = "1.1"
)

// A Document is the retrieval events of one trace (one task run in one
// configuration): the retrieval-events schema's single JSON document.
type Document struct {
	SchemaVersion string      `json:"schema_version"`
	Provenance    Provenance  `json:"provenance"`
	Coverage      Coverage    `json:"coverage"`
	GroundTruth   GroundTruth `json:"ground_truth"`
	Events        []Event     `json:"events"`
	Summary       Summary     `json:"summary"`
}

// Provenance identifies the task execution. The first five fields are the
// schema's; the rest say which trace and agent the events came from.
type Provenance struct {
	RunID          string `json:"run_id"`
	BatchTimestamp string `json:"batch_timestamp"`
	TaskName       string `json:"task_name"`
	ConfigName     string `json:"config_name"`
	Benchmark      string `json:"benchmark"`

	TraceFile   string `json:"trace_file,omitempty"`
	TraceFormat string `json:"trace_format,omitempty"`
	SessionID   string `json:"session_id,omitempty"`
	Agent       string `json:"agent,omitempty"`
	Model       string `json:"model,omitempty"`
	Taxonomy    string `json:"taxonomy,omitempty"`
	Generator   string `json:"generator,omitempty"`
	// AvailableTools lists the tools the agent could call, when the trace
	// says (stream-json init line, ATIF tool definitions).
	AvailableTools []string `json:"available_tools,omitempty"`
}

// Trace sources of the coverage section.
const (
	SourceTrajectory = "trajectory"
	SourceTranscript = "transcript"
	SourceMerged     = "merged"
)

// Coverage says explicitly what the document could be built from, so later
// stages mark metrics non-computable instead of reporting misleading zeros.
type Coverage struct {
	HasTrajectory       bool `json:"has_trajectory"`
	HasTranscript       bool `json:"has_transcript"`
	HasGroundTruth      bool `json:"has_ground_truth"`
	HasChunkGroundTruth bool `json:"has_chunk_ground_truth"`
	// TraceSource is "trajectory", "transcript" or "merged"; nil when no
	// usable trace was found (degraded mode).
	TraceSource *string `json:"trace_source"`
	// DegradedReason explains why events are empty or incomplete; nil when
	// they are complete.
	DegradedReason *string `json:"degraded_reason"`
	// Warnings lists what the trace reader skipped, one "file:line: what"
	// per entry.
	Warnings []string `json:"warnings,omitempty"`
}

// GroundTruth is what the right answer is for the task, as the document
// records it. Paths are normalized like event paths.
type GroundTruth struct {
	// Files are the files relevant to the task; always present, empty when
	// the task has no ground truth.
	Files []string `json:"files"`
	// Symbols are functions, types or methods within the files.
	Symbols []Symbol `json:"symbols,omitempty"`
	// Chunks are line ranges within the files.
	Chunks []LineRange `json:"chunks,omitempty"`
	// ExpectedEditFiles are the files a correct solution edits, when known
	// from a high-confidence source (schema 1.1).
	ExpectedEditFiles []string `json:"expected_edit_files,omitempty"`
}

// A Symbol is a named code entity in a file.
type Symbol struct {
	File   string `json:"file"`
	Symbol string `json:"symbol"`
}

// An Event is one tool call as retrieval sees it. The first fields are the
// schema's; the rest are optional additions.
type Event struct {
	// StepIndex is the 0-based index of the call among all tool calls of
	// the trace (trace.ToolCall.Index).
	StepIndex    int      `json:"step_index"`
	ToolName     string   `json:"tool_name"`
	ToolCategory Category `json:"tool_category"`
	IsMCP        bool     `json:"is_mcp"`
	// TargetFiles are the files the call named, in arguments or results,
	// normalized, in order of first mention.
	TargetFiles     []string `json:"target_files"`
	HitsGroundTruth bool     `json:"hits_ground_truth"`
	// CumulativeTokens is the run's token count up to and including the
	// turn that issued the call; nil when the trace has no usage.
	CumulativeTokens *int64 `json:"cumulative_tokens"`
	// ElapsedSeconds is the time from the start of the run to the call;
	// nil when the trace has no timestamps.
	ElapsedSeconds *float64 `json:"elapsed_seconds"`

	// ToolClass is the index-effectiveness class: semantic, file_level,
	// edit or other.
	ToolClass Class  `json:"tool_class"`
	CallID    string `json:"call_id,omitempty"`
	// Unclassified is true when no taxonomy rule matched the tool name.
	Unclassified bool   `json:"unclassified,omitempty"`
	IsError      bool   `json:"is_error,omitempty"`
	IsSubagent   bool   `json:"is_subagent,omitempty"`
	ParentCallID string `json:"parent_call_id,omitempty"`
	// FilesRead are the target files whose content the call showed the agent.
	FilesRead []string `json:"files_read,omitempty"`
	// FilesWritten are the files the call created or changed.
	FilesWritten []string `json:"files_written,omitempty"`
	// LineRanges are the lines the call showed the agent.
	LineRanges []LineRange `json:"line_ranges,omitempty"`
	Symbols    []string    `json:"symbols,omitempty"`
	Query      string      `json:"query,omitempty"`
	// GroundTruthHits are the ground-truth files among TargetFiles.
	GroundTruthHits []string `json:"ground_truth_hits,omitempty"`
}

// Summary holds counts pre-computed from the events.
type Summary struct {
	TotalEvents             int              `json:"total_events"`
	MCPEvents               int              `json:"mcp_events"`
	LocalEvents             int              `json:"local_events"`
	UniqueFilesAccessed     int              `json:"unique_files_accessed"`
	GroundTruthFilesHit     int              `json:"ground_truth_files_hit"`
	FirstGroundTruthHitStep *int             `json:"first_ground_truth_hit_step"`
	EventsByCategory        map[Category]int `json:"events_by_category"`

	EventsByClass     map[Class]int  `json:"events_by_class"`
	SubagentEvents    int            `json:"subagent_events"`
	ErrorEvents       int            `json:"error_events"`
	UnclassifiedTools map[string]int `json:"unclassified_tools,omitempty"`
}

// WriteJSON writes the document as indented JSON followed by a newline.
//
// The bytes are those of a json.Encoder with two-space indentation and no
// HTML escaping, but the events are encoded one at a time: a document of
// a million events is not held a second time as text.
func (d *Document) WriteJSON(w io.Writer) error {
	return d.writeJSON(w, d.Events == nil, len(d.Events), func(j int) *Event { return &d.Events[j] })
}

// writeJSON is WriteJSON with n events, the j-th of which event returns
// (it may reuse one Event), in place of d.Events; noEvents writes them as
// null.
func (d *Document) writeJSON(w io.Writer, noEvents bool, n int, event func(j int) *Event) error {
	bw := writers.Get().(*bufio.Writer)
	bw.Reset(w)
	// Not kept pointing at w once returned; on an error bw may hold
	// unwritten bytes, which Reset drops.
	defer func() {
		bw.Reset(nil)
		writers.Put(bw)
	}()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	// value writes v indented as a member of the top-level object (or an
	// element of its events array, one level deeper).
	value := func(v any, prefix string) error {
		buf.Reset()
		enc.SetIndent(prefix, "  ")
		if err := enc.Encode(v); err != nil {
			return err
		}
		_, err := bw.Write(bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}))
		return err
	}
	fields := []struct {
		name string
		v    any
	}{
		{"schema_version", d.SchemaVersion},
		{"provenance", d.Provenance},
		{"coverage", d.Coverage},
		{"ground_truth", d.GroundTruth},
		{"events", nil},
		{"summary", d.Summary},
	}
	bw.WriteString("{\n")
	for i, f := range fields {
		if i > 0 {
			bw.WriteString(",\n")
		}
		fmt.Fprintf(bw, "  %q: ", f.name)
		if f.name != "events" {
			if err := value(f.v, "  "); err != nil {
				return err
			}
			continue
		}
		switch {
		case noEvents:
			bw.WriteString("null")
		case n == 0:
			bw.WriteString("[]")
		default:
			bw.WriteString("[")
			var b []byte
			for j := range n {
				if j > 0 {
					bw.WriteString(",")
				}
				bw.WriteString("\n    ")
				var err error
				if b, err = appendEvent(b[:0], event(j), "    "); err != nil {
					return err
				}
				bw.Write(b)
			}
			bw.WriteString("\n  ]")
		}
	}
	bw.WriteString("\n}\n")
	return bw.Flush()
}

// writers are WriteJSON's buffers, kept for the next document: run-dir
// writes one small document per trial, and a fresh 64 KiB buffer each
// time was a quarter of the memory it allocated.
var writers = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 64<<10) }}

// ReadDocument decodes a retrieval-events document, rejecting schema
// versions of an unknown major version.
func ReadDocument(r io.Reader) (*Document, error) {
	var d Document
	dec := json.NewDecoder(r)
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("retrieval-events document: %w", err)
	}
	major, _, _ := strings.Cut(d.SchemaVersion, ".")
	if major != "1" {
		return nil, fmt.Errorf("retrieval-events document: unsupported schema_version %q (this version reads 1.x)", d.SchemaVersion)
	}
	return &d, nil
}

//go:embed retrieval_events.schema.json
var schemaJSON []byte

// Schema returns the JSON Schema (draft 2020-12) of retrieval-events
// documents.
func Schema() []byte { return append([]byte(nil), schemaJSON...) }
