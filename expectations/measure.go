package expectations

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/groundtruth"
	"github.com/agentretrieval/agentretrieval/metrics"
	"github.com/agentretrieval/agentretrieval/trace"
)

// MeasureOptions say how to turn one trace into a Run.
type MeasureOptions struct {
	Format string
	// TraceID picks one session of a file that holds several.
	TraceID string
	// CWD is the agent's working directory, for the runs whose trace does
	// not record it or records another ("" keeps the trace's own).
	CWD      string
	Profiles []string
	Taxonomy string
	Truth    *groundtruth.Truth
	// Symbols are identifiers the index knows (for guessing).
	Symbols []string
	// MaxInputSize bounds, in bytes, the trace file (trace.Options's
	// field of the same name); zero means trace.DefaultMaxInputSize.
	MaxInputSize int64
	// KeepResults, when set, keeps in Run.Session what it returns of each
	// call's result, for a report that shows them: htmlreport.ShownResult
	// keeps what a page shows, func(r string) string { return r } all of
	// it. It is called once a result. When nil a result is dropped once
	// its call's event is made: expectations read events, arguments and
	// the answer, not results, and a session then holds one result at a
	// time, whatever its size.
	KeepResults func(result string) string
	// DropCalls drops each call from Run.Session once its event is made
	// (trace.Options.DropReleased), for expectations that read none
	// (Type.ReadsCalls): Session.NumCalls still counts them and
	// Session.CallTokens gives their tokens. A report that shows the
	// calls (KeepResults) keeps them.
	DropCalls bool
	// FormatSetting is how the user forces a format where the trace was
	// named, for the suggestion of a trace in no known format (see
	// trace.FormatError.Setting); "" means the -format flag.
	FormatSetting string
}

// A Run is one trace of a scenario with everything measured from it; it is
// what a validator checks.
type Run struct {
	// Trace is the trace file.
	Trace    string
	Session  *trace.Session
	Document *events.Document
	// Metrics holds the retrieval metrics and, under IndexEffectiveness,
	// the index analysis.
	Metrics *metrics.Result
	Truth   *groundtruth.Truth
}

// Measure reads one trace and measures it: events, retrieval metrics and
// the index analysis.
//
// The ground truth marks the events that touch it and grades the files
// (its paths are normalized against the trace's working directory, as the
// events' paths are). Metrics are computed with the default options (the
// cutoffs of metrics.DefaultKs, level 1, writes not ranked) and the index
// analysis with opts.Symbols; an expectation that needs other options
// measures again from Run.Document.
func Measure(traceFile string, opts MeasureOptions) (*Run, error) {
	var files []string
	if opts.Taxonomy != "" {
		files = append(files, opts.Taxonomy)
	}
	tax, err := events.LoadTaxonomy(opts.Profiles, files...)
	if err != nil {
		return nil, fmt.Errorf("trace %s: taxonomy: %w", traceFile, err)
	}
	eopts := events.Options{Taxonomy: tax}
	eopts.Paths.CWD = opts.CWD
	eopts.Provenance.TaskName = taskName(traceFile)
	if opts.Truth != nil {
		eopts.GroundTruth = opts.Truth.Events()
	}

	// Each call's event is made as the reader finishes the call, on a
	// second goroutine, and its result is then dropped (see KeepResults),
	// and the whole call unless an expectation may read it.
	stream := events.NewConcurrentStream(eopts)
	callDone, rest := stream.KeepResults(opts.KeepResults)
	drop := opts.DropCalls && opts.KeepResults == nil
	if drop {
		// The reader drops the calls the stream takes; those it could
		// not take as they were read go once the document is made.
		callDone = stream.CallDone
		rest = func(s *trace.Session) { s.Calls = []trace.ToolCall{} }
	}
	// Extraction reads the first events.ResultBytesRead of a result: the
	// rest need not be kept.
	sess, err := trace.ReadFile(traceFile, trace.Options{Format: opts.Format, Source: traceFile, SessionID: opts.TraceID, MaxInputSize: opts.MaxInputSize, MaxResultBytes: events.ResultBytesRead, CallDone: callDone, DropReleased: drop})
	if werr := stream.Wait(); werr != nil && err == nil {
		err = werr
	}
	var multi *trace.MultiSessionError
	if errors.As(err, &multi) && multi.Want == "" {
		return nil, fmt.Errorf("trace %w; name one with trace_id", err)
	}
	var fe *trace.FormatError
	if errors.As(err, &fe) && opts.FormatSetting != "" {
		fe.Setting = opts.FormatSetting
	}
	if err != nil {
		return nil, traceError(traceFile, err)
	}
	doc := stream.Normalize(sess)
	// The calls the stream could not take as they were read are treated
	// alike: a Run has results and arguments only as asked.
	rest(sess)
	mopts := metrics.Options{Index: metrics.IndexOptions{Symbols: opts.Symbols}}
	if opts.Truth != nil {
		// Grades are keyed by the path as the document spells it: the
		// ground-truth path normalized the way Normalize normalizes it.
		mopts.Grades = opts.Truth.Grades(eopts.Paths.OrCWD(sess.CWD))
	}
	return &Run{
		Trace:    traceFile,
		Session:  sess,
		Document: doc,
		Metrics:  metrics.Compute(doc, mopts),
		Truth:    opts.Truth,
	}, nil
}

// traceError names the trace in err once: readers' errors often start
// with the file already ("t.json: not a known trace format", "t.jsonl:3:
// invalid JSON").
func traceError(traceFile string, err error) error {
	if strings.HasPrefix(err.Error(), traceFile+":") {
		return fmt.Errorf("trace %w", err)
	}
	return fmt.Errorf("trace %s: %w", traceFile, err)
}

// taskName derives a task name from a trace file name:
// "runs/fix-bug.claude.jsonl" → "fix-bug".
func taskName(file string) string {
	base := filepath.Base(file)
	if i := strings.IndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	return base
}
