package htmlreport

import (
	"errors"
	"fmt"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/expectations"
	"github.com/agentretrieval/agentretrieval/groundtruth"
	"github.com/agentretrieval/agentretrieval/metrics"
	"github.com/agentretrieval/agentretrieval/trace"
)

// LoadOptions say how Load reads and measures traces.
type LoadOptions struct {
	// GroundTruth is a ground-truth spec for groundtruth.Load (a file, a
	// task folder, a diff); empty for none.
	GroundTruth string
	// Format forces a trace format; empty detects it.
	Format string
	// Profiles are the taxonomy profiles; nil means all of them.
	Profiles []string
	// MaxInputSize bounds each trace file; zero keeps the trace package's
	// default.
	MaxInputSize int64
	// Warn receives each warning (a skipped trace line, a ground truth
	// with no file); nil drops them.
	Warn func(string)
	// Name, when set, says how the page and the errors name a trace path:
	// a command that copied a trace from a bucket names the URL.
	Name func(path string) string
}

// Load reads each trace (a file, or a folder for the formats stored as
// folders) and measures every session in it the way a scenario run is
// measured (expectations.Measure), for WriteTraces. An error names the
// trace that could not be read.
func Load(paths []string, opts LoadOptions) ([]*expectations.Run, error) {
	warn := opts.Warn
	if warn == nil {
		warn = func(string) {}
	}
	var truth *groundtruth.Truth
	if opts.GroundTruth != "" {
		t, err := groundtruth.Load(opts.GroundTruth)
		switch {
		case errors.Is(err, groundtruth.ErrNoGroundTruth):
			warn(fmt.Sprintf("%v; retrieval is non-computable", err))
		case err != nil:
			return nil, fmt.Errorf("ground truth %s: %w", opts.GroundTruth, err)
		default:
			truth = t
		}
	}
	tax, err := events.LoadTaxonomy(opts.Profiles)
	if err != nil {
		return nil, err
	}
	var out []*expectations.Run
	for _, file := range paths {
		path := file
		if opts.Name != nil {
			path = opts.Name(file)
		}
		eopts := events.Options{Taxonomy: tax}
		if truth != nil {
			eopts.GroundTruth = truth.Events()
		}
		// Each call's event is made as its result is read, and the call
		// keeps only what the page shows of the result.
		stream := events.NewConcurrentStream(eopts)
		callDone, rest := stream.KeepResults(ShownResult)
		sessions, err := trace.ReadFileAll(file, trace.Options{Format: opts.Format, Source: path, MaxInputSize: opts.MaxInputSize, MaxResultBytes: events.ResultBytesRead, CallDone: callDone})
		if werr := stream.Wait(); err == nil && werr != nil {
			err = fmt.Errorf("%s: %w", path, werr)
		}
		if err != nil {
			return nil, err
		}
		docs := stream.NormalizeAll(sessions, path)
		for _, sess := range sessions {
			rest(sess)
		}
		for i, sess := range sessions {
			for _, w := range sess.Warnings {
				warn(w.String())
			}
			if more := sess.WarningsSummary(); more != "" {
				warn(more)
			}
			var mopts metrics.Options
			if truth != nil {
				paths := eopts.Paths
				paths.CWD = sess.CWD
				mopts.Grades = truth.Grades(paths)
			}
			name := path
			if len(sessions) > 1 {
				name = fmt.Sprintf("%s (session %d of %d: %s)", path, i+1, len(sessions), docs[i].Provenance.TaskName)
			}
			out = append(out, &expectations.Run{Trace: name, Session: sess, Document: docs[i], Metrics: metrics.Compute(docs[i], mopts), Truth: truth})
		}
	}
	return out, nil
}
