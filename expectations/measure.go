package expectations

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
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
	// ReadDone, when set, is called once the trace file is read (or could
	// not be), before its runs are made into documents and measured;
	// MeasureEach calls the first use's. A caller reading many traces
	// learns when the last is read: check then runs the garbage collector
	// at a lower percent, as what follows holds the events and allocates
	// little.
	ReadDone func()
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
	runs, errs := MeasureEach(traceFile, []MeasureOptions{opts})
	return runs[0], errs[0]
}

// MeasureEach measures one trace for several uses (the scenarios that name
// it, each with its ground truth, taxonomy and symbols) with a single read
// of the file: runs[k] and errs[k] are what Measure(traceFile, opts[k])
// gives. The options of the read itself, Format, TraceID, MaxInputSize,
// KeepResults and FormatSetting, are taken from opts[0] and must be the
// same in every element. The Runs share one Session: its calls are
// dropped only when every use drops them (DropCalls), and a use that
// drops them reads none anyway.
//
// With one use the calls' events are made on a goroutine of their own
// while the file is read (events.NewConcurrentStream); with several, on
// the reading goroutine, so that a caller running many reads at once
// decides how many processors they take.
func MeasureEach(traceFile string, opts []MeasureOptions) (runs []*Run, errs []error) {
	runs, errs = make([]*Run, len(opts)), make([]error, len(opts))
	first := opts[0]
	type use struct {
		k      int
		eopts  events.Options
		stream *events.Stream
	}
	var uses []use
	drop := first.KeepResults == nil
	// Uses of the same taxonomy share it, and then the extraction of
	// each call (events.CallDoneAll).
	type loaded struct {
		tax *events.Taxonomy
		err error
	}
	taxonomies := map[string]loaded{}
	for k, o := range opts {
		var files []string
		if o.Taxonomy != "" {
			files = append(files, o.Taxonomy)
		}
		key := strings.Join(append(slices.Clone(o.Profiles), "\x00"+o.Taxonomy), "\x00")
		l, ok := taxonomies[key]
		switch {
		case ok:
		case len(files) == 0 && len(o.Profiles) == 0:
			// Every built-in profile: the taxonomy every trace shares,
			// and with it the orders Prefer makes of it.
			l.tax = events.DefaultTaxonomy()
			taxonomies[key] = l
		default:
			l.tax, l.err = events.LoadTaxonomy(o.Profiles, files...)
			taxonomies[key] = l
		}
		tax, err := l.tax, l.err
		if err != nil {
			errs[k] = fmt.Errorf("trace %s: taxonomy: %w", traceFile, err)
			continue
		}
		eopts := events.Options{Taxonomy: tax}
		eopts.Paths.CWD = o.CWD
		eopts.Provenance.TaskName = taskName(traceFile)
		if o.Truth != nil {
			eopts.GroundTruth = o.Truth.Events()
		}
		uses = append(uses, use{k: k, eopts: eopts})
		drop = drop && o.DropCalls
	}
	if len(uses) == 0 {
		return runs, errs
	}
	streams := make([]*events.Stream, len(uses))
	for u := range uses {
		if len(uses) == 1 {
			uses[u].stream = events.NewConcurrentStream(uses[u].eopts)
		} else {
			uses[u].stream = events.NewStream(uses[u].eopts)
		}
		streams[u] = uses[u].stream
	}

	// Each call's event is made as the reader finishes the call, and its
	// result is then dropped (see KeepResults), and the whole call unless
	// a use may read it.
	keep := newResultKeeper(first.KeepResults)
	callDone := func(s *trace.Session, i int) bool {
		took := events.CallDoneAll(streams, s, i)
		if took && !drop {
			keep.result(s, i, true)
		}
		return took && drop
	}
	// The calls the streams could not take as they were read are treated
	// alike once the documents are made: a Run has results and arguments
	// only as asked.
	rest := func(s *trace.Session) {
		for k := range s.Calls {
			keep.result(s, s.Calls[k].Index, false)
		}
	}
	if drop {
		rest = func(s *trace.Session) { s.Calls = []trace.ToolCall{} }
	}
	// Extraction reads the first events.ResultBytesRead of a result: the
	// rest need not be kept.
	sess, err := trace.ReadFile(traceFile, trace.Options{Format: first.Format, Source: traceFile, SessionID: first.TraceID, MaxInputSize: first.MaxInputSize, MaxResultBytes: events.ResultBytesRead, CallDone: callDone, DropReleased: drop,
		// Only a report that shows the calls shows the conversation.
		SkipMessages: first.KeepResults == nil})
	for _, u := range uses {
		if werr := u.stream.Wait(); werr != nil && err == nil {
			err = werr
		}
	}
	if first.ReadDone != nil {
		first.ReadDone()
	}
	var multi *trace.MultiSessionError
	if errors.As(err, &multi) && multi.Want == "" {
		err = fmt.Errorf("trace %w; name one with trace_id", err)
	} else if err != nil {
		var fe *trace.FormatError
		if errors.As(err, &fe) && first.FormatSetting != "" {
			fe.Setting = first.FormatSetting
		}
		err = traceError(traceFile, err)
	}
	if err != nil {
		for _, u := range uses {
			errs[u.k] = err
		}
		return runs, errs
	}
	docs := make([]*events.Document, len(uses))
	for j, u := range uses {
		docs[j] = u.stream.Normalize(sess)
	}
	rest(sess)
	// The documents of uses that extract alike (one taxonomy, one working
	// directory) differ only in their ground truth: what their measures
	// find in the events without it is found once (metrics.Prepare).
	type rules struct {
		tax *events.Taxonomy
		cwd string
	}
	alike := map[rules]int{}
	for _, u := range uses {
		alike[rules{u.eopts.Taxonomy, u.eopts.Paths.CWD}]++
	}
	prepared := map[rules]*metrics.Prepared{}
	for j, u := range uses {
		o := opts[u.k]
		mopts := metrics.Options{Index: metrics.IndexOptions{Symbols: o.Symbols}}
		if o.Truth != nil {
			// Grades are keyed by the path as the document spells it: the
			// ground-truth path normalized the way Normalize normalizes it.
			mopts.Grades = o.Truth.Grades(u.eopts.Paths.OrCWD(sess.CWD))
		}
		var res *metrics.Result
		if r := (rules{u.eopts.Taxonomy, u.eopts.Paths.CWD}); alike[r] > 1 {
			if prepared[r] == nil {
				prepared[r] = metrics.Prepare(docs[j], mopts)
			}
			res = prepared[r].Compute(docs[j], mopts)
		} else {
			res = metrics.Compute(docs[j], mopts)
		}
		runs[u.k] = &Run{
			Trace:    traceFile,
			Session:  sess,
			Document: docs[j],
			Metrics:  res,
			Truth:    o.Truth,
		}
	}
	return runs, errs
}

// A resultKeeper replaces each call's result with what keep returns of
// it (nothing when keep is nil), once a call.
type resultKeeper struct {
	keep func(string) string
	done map[*trace.Session][]bool // by session and call: its result is kept
}

func newResultKeeper(keep func(string) string) *resultKeeper {
	return &resultKeeper{keep: keep, done: map[*trace.Session][]bool{}}
}

// result replaces the result of call i of s with what keep returns of it,
// once. lent says the result is the one the reader lent to CallDone
// (trace.Options.CallDone): keep, a caller's function that may keep what
// it is given, is then given a copy.
func (r *resultKeeper) result(s *trace.Session, i int, lent bool) {
	c := s.Call(i)
	if r.keep == nil {
		c.Result = ""
		return
	}
	done := r.done[s]
	for len(done) <= i {
		done = append(done, false)
	}
	if !done[i] {
		result := c.Result
		if lent {
			result = strings.Clone(result)
		}
		c.Result, done[i] = r.keep(result), true
	}
	r.done[s] = done
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
