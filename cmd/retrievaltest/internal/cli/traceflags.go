package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/blobio"
	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/groundtruth"
	"github.com/agentretrieval/agentretrieval/internal/input"
	"github.com/agentretrieval/agentretrieval/metrics"
	"github.com/agentretrieval/agentretrieval/trace"
)

// EventFlags are the flags that set how tool calls are classified and paths
// normalized, shared by every command that reads traces.
type EventFlags struct {
	Profile, Taxonomy, Prefixes *string
	FoldCase                    *bool
	MaxInput                    *MaxInput
}

// AddEventFlags defines -profile, -taxonomy, -prefixes, -fold-case and
// -max-input-size on fs.
func AddEventFlags(fs *flag.FlagSet) *EventFlags {
	return &EventFlags{
		Profile:  fs.String("profile", "", "taxonomy profiles, comma-separated: "+strings.Join(events.ProfileNames(), ", ")+" (default: all)"),
		Taxonomy: fs.String("taxonomy", "", "a taxonomy `FILE` whose rules override the profiles"),
		Prefixes: fs.String("prefixes", "", "workspace path prefixes to strip, comma-separated (default: "+strings.Join(events.DefaultWorkspacePrefixes, ",")+")"),
		FoldCase: fs.Bool("fold-case", false, "compare paths case-insensitively"),
		MaxInput: AddMaxInput(fs),
	}
}

// Options loads the taxonomy the flags name.
func (f *EventFlags) Options() (events.Options, error) {
	var files []string
	if *f.Taxonomy != "" {
		files = []string{*f.Taxonomy}
	}
	tax, err := events.LoadTaxonomy(SplitList(*f.Profile), files...)
	opts := events.Options{Taxonomy: tax, Paths: events.PathNormalizer{FoldCase: *f.FoldCase}}
	if *f.Prefixes != "" {
		opts.Paths.Prefixes = strings.Split(*f.Prefixes, ",")
	}
	return opts, err
}

// MetricFlags are the metric options of the metrics and run-dir commands.
type MetricFlags struct {
	ks, lineBudgets    *string
	level, fishing     *int
	includeWrites      *bool
	foldCase           *bool // the event flag of the same name
	symbols, textTools *string
}

// AddMetricFlags defines the metric flags on fs; -fold-case is ef's.
func AddMetricFlags(fs *flag.FlagSet, ef *EventFlags) *MetricFlags {
	return &MetricFlags{
		includeWrites: fs.Bool("include-writes", false, "rank files the agent only wrote, at the write (default: a write is not retrieval)"),
		ks:            fs.String("k", "1,3,5,10", "cutoffs of the @k measures, comma-separated `LIST`"),
		lineBudgets:   fs.String("line-budgets", "100,200,500,1000", "budgets N of line_recall@N, in lines read, comma-separated `LIST`"),
		level:         fs.Int("l", metrics.DefaultLevel, "lowest grade that counts as relevant, 1 or more; does not change nDCG (trec_eval -l)"),
		fishing:       fs.Int("fishing-min-run", 5, "index effectiveness: file-level calls in a row, with no semantic call between them, that count as fishing"),
		symbols:       fs.String("symbols", "", "index symbol `FILE` (one identifier a line, or ctags): a text search for one of them is guessing"),
		textTools:     fs.String("text-search-tools", "", "index effectiveness: tool names or globs, comma-separated, whose calls count as text searches for guessing (default: file-level code searches with a query, such as Grep, grep and rg; file-name searches such as Glob and find are not)"),
		foldCase:      ef.FoldCase,
	}
}

// Options checks the flags and loads the symbol file.
func (f *MetricFlags) Options() (metrics.Options, error) {
	opts := metrics.Options{Level: *f.level, IncludeWrites: *f.includeWrites, FoldCase: *f.foldCase,
		Index: metrics.IndexOptions{FishingMinRun: *f.fishing}}
	var err error
	if opts.Ks, err = metrics.ParseCutoffs(*f.ks); err != nil {
		return opts, fmt.Errorf("-k %q: %v", *f.ks, err)
	}
	if opts.LineBudgets, err = metrics.ParseCutoffs(*f.lineBudgets); err != nil {
		return opts, fmt.Errorf("-line-budgets %q: %v", *f.lineBudgets, err)
	}
	if *f.level < 1 {
		// Grade 0 means "judged not relevant" in a ground truth; a level of
		// 0 would count those files as relevant.
		return opts, fmt.Errorf("-l %d: the level must be 1 or more", *f.level)
	}
	if *f.fishing < 1 {
		return opts, fmt.Errorf("-fishing-min-run %d: expected 1 or more", *f.fishing)
	}
	if *f.symbols != "" {
		if opts.Index.Symbols, err = metrics.LoadSymbols(*f.symbols); err != nil {
			return opts, fmt.Errorf("-symbols: %v", err)
		}
	}
	opts.Index.TextSearchTools = SplitList(*f.textTools)
	return opts, nil
}

// TraceFlags are the flags that turn a trace into retrieval-events
// documents, shared by events, metrics and trec-export.
type TraceFlags struct {
	*EventFlags
	GT                                 *string
	format, cwd, task, config, traceID *string
}

// AddTraceFlags defines the event flags and -format, -gt, -cwd, -task,
// -config and -trace-id on fs.
func AddTraceFlags(fs *flag.FlagSet) *TraceFlags {
	return &TraceFlags{
		EventFlags: AddEventFlags(fs),
		format:     fs.String("format", "", "trace format: "+strings.Join(trace.DefaultRegistry().Names(), ", ")+" (default: detect; see \"retrievaltest formats\")"),
		GT:         fs.String("gt", "", "ground truth `SPEC`: a ground-truth file (JSON, YAML or one path a line), a task folder, a unified diff or a SWE-bench instance"),
		cwd:        fs.String("cwd", "", "working `DIR` of the agent, to make absolute paths relative (default: from the trace)"),
		task:       fs.String("task", "", "task name for the provenance (default: the task the trace names, else the trace file name)"),
		config:     fs.String("config", "", "configuration name for the provenance"),
		traceID:    fs.String("trace-id", "", "read only the session with this task or session `ID` of a trace that holds several (default: every session)"),
	}
}

// TraceReader is what the flags resolve to once: the taxonomy, the ground
// truth and the normalization options.
type TraceReader struct {
	opts  events.Options
	truth *groundtruth.Truth
	Trace trace.Options // Format, SessionID and Registry (nil: the default)
	stage blobio.Stage  // local copies of traces named by bucket URL
}

// Reader loads the taxonomy and the ground truth the flags name. A task
// folder with no ground truth is not an error: its results are
// non-computable, and a warning says so.
func (f *TraceFlags) Reader(cmd string, stderr io.Writer) (*TraceReader, error) {
	opts, err := f.EventFlags.Options()
	if err != nil {
		return nil, err
	}
	opts.Paths.CWD = *f.cwd
	opts.Provenance.ConfigName, opts.Provenance.TaskName = *f.config, *f.task
	r := &TraceReader{opts: opts, Trace: trace.Options{Format: *f.format, SessionID: *f.traceID, MaxInputSize: f.MaxInput.OrTrace(), MaxResultBytes: events.ResultBytesRead}}
	if *f.GT != "" {
		truth, err := groundtruth.Load(*f.GT)
		switch {
		case errors.Is(err, groundtruth.ErrNoGroundTruth):
			fmt.Fprintf(stderr, "warning: retrievaltest %s: %v; the results are non-computable\n", cmd, err)
		case err != nil:
			return nil, fmt.Errorf("ground truth %s: %w", *f.GT, err)
		default:
			r.truth = truth
			r.opts.GroundTruth = truth.Events()
		}
	}
	return r, nil
}

// LoadedRun is one session of a trace, to be turned into a document, with
// the grades of its ground truth under the document's spelling of the
// paths.
type LoadedRun struct {
	Grades  map[string]int
	pending *events.Pending
	doc     *events.Document
}

// Document makes the run's document once, and returns it. The session
// and the events as the stream kept them are let go then: the document
// holds all that is left to know.
func (r *LoadedRun) Document() *events.Document {
	if r.doc == nil {
		r.doc, r.pending = r.pending.Document(), nil
	}
	return r.doc
}

// Metrics computes the run's metrics. Unless the document is made
// already, its events are decoded again on each pass over them
// (metrics.ComputeEvents) rather than made the document's []Event,
// several times what the stream keeps of each.
func (r *LoadedRun) Metrics(opts metrics.Options) *metrics.Result {
	if r.doc != nil {
		return metrics.Compute(r.doc, opts)
	}
	doc, src := r.pending.Events()
	return metrics.ComputeEvents(doc, src, opts)
}

// WriteJSON writes the run's document without holding its events as a
// []Event (events.Pending.WriteJSON), unless it is made already.
func (r *LoadedRun) WriteJSON(w io.Writer) error {
	if r.doc != nil {
		return r.doc.WriteJSON(w)
	}
	return r.pending.WriteJSON(w)
}

// Load reads and normalizes every session of one trace (a file, a folder,
// or "-" for stdin), or the one -trace-id names. Errors name the file.
func (r *TraceReader) Load(ctx context.Context, name string, stdin io.Reader, stderr io.Writer) ([]*LoadedRun, error) {
	r.stage.Limit = r.Trace.MaxInputSize
	local, err := r.stage.Input(ctx, name)
	topts := r.Trace
	topts.Source = r.stage.Name(local) // a URL without its query
	// Calls are normalized as they are read, on a second goroutine when
	// there is a second CPU, and then dropped, results and all: the
	// stream keeps what the document needs of each.
	stream := events.NewConcurrentStream(r.opts)
	topts.CallDone, topts.DropReleased = stream.CallDone, true
	topts.SkipMessages = true // no document holds the conversation
	var all []*trace.Session
	switch {
	case err != nil:
	case name == "-":
		all, err = trace.ReadAll(input.LimitReader(stdin, name, topts.MaxInputSize), topts)
	default:
		all, err = trace.ReadFileAll(local, topts)
	}
	if werr := stream.Wait(); err == nil && werr != nil {
		err = fmt.Errorf("%s: %w", topts.Source, werr)
	}
	if err != nil {
		return nil, r.stage.Err(err)
	}
	pending := stream.Pending(all, topts.Source)
	runs := make([]*LoadedRun, len(all))
	for i, sess := range all {
		for _, w := range sess.Warnings {
			fmt.Fprintf(stderr, "warning: %s\n", w)
		}
		if more := sess.WarningsSummary(); more != "" {
			fmt.Fprintf(stderr, "warning: %s\n", more)
		}
		runs[i] = &LoadedRun{pending: pending[i]}
		if r.truth != nil {
			// Grades are keyed by the path as the document spells it, which
			// is the ground-truth path normalized the way Normalize does it.
			runs[i].Grades = r.truth.Grades(r.opts.Paths.OrCWD(sess.CWD))
		}
	}
	return runs, nil
}

// EachRun loads every trace in turn and hands each of its runs to write,
// which writes the command's output for it. A trace that cannot be read is
// reported and skipped, and makes the exit status ExitBadInput; an error
// from write stops everything.
func (r *TraceReader) EachRun(ctx context.Context, cmd string, names []string, stdin io.Reader, stderr io.Writer, write func(*LoadedRun) error) int {
	defer r.stage.Close()
	gc := startGCPhases()
	defer gc.done()
	code := ExitOK
	for _, name := range names {
		if ctx.Err() != nil {
			return ExitBadInput
		}
		startRead(gc, name)
		runs, err := r.Load(ctx, name, stdin, stderr)
		gc.made()
		if err != nil {
			fmt.Fprintf(stderr, "retrievaltest %s: %v\n", cmd, err)
			code = ExitBadInput
			continue
		}
		for _, run := range runs {
			if err := write(run); err != nil {
				fmt.Fprintf(stderr, "retrievaltest %s: %v\n", cmd, err)
				return ExitBadInput
			}
		}
	}
	return code
}

// startRead sets the collector's percent for reading the trace name: a
// folder's when it is a folder on this machine, else a file's.
func startRead(gc *gcPhases, name string) {
	if fi, err := os.Stat(name); err == nil && fi.IsDir() {
		gc.readFolder()
		return
	}
	gc.read()
}

// Close removes the local copies of traces read from buckets.
func (r *TraceReader) Close() error { return r.stage.Close() }
