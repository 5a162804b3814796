package dataset

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/groundtruth"
	"github.com/agentretrieval/agentretrieval/trace"
)

// Sources of dataset entries, the names the evaluation-data pipeline
// writes. The first two mark golden entries: a file the merged diff
// changes, a hunk of that diff.
const (
	SourceReviewMergeDiff = "review_merge_diff"
	SourceGoldenDiff      = "golden_diff"
	SourceToolCallArgs    = "tool_call_args"
	SourceToolCallResult  = "tool_call_result"
)

// A FilePath is one Dataset A entry: a file the case needed, and where it
// was found.
type FilePath struct {
	Path    string   `json:"path"`
	Sources []string `json:"sources"`
}

// A LineRange is one Dataset B entry: lines of a file the case needed
// (1-based, inclusive), and where they were found.
type LineRange struct {
	Path      string   `json:"path"`
	StartLine int      `json:"startLine"`
	EndLine   int      `json:"endLine"`
	Sources   []string `json:"sources"`
}

// A Case is one unit of work: the task it was, the commit it started
// from, and the ranked files and line ranges it needed.
type Case struct {
	ID         string
	Query      string
	BaseCommit string
	Files      []FilePath
	Ranges     []LineRange
}

// Options control how a trace's tool calls become dataset entries.
type Options struct {
	// Events holds the taxonomy (nil: events.DefaultTaxonomy) and the path
	// normalization (an empty CWD: the session's working directory).
	Events events.Options
	// IncludeWrites also records files the agent only wrote. By default a
	// write is not retrieval: the diff already names what was changed.
	IncludeWrites bool
}

// Build ranks what one session needed, as the evaluation-data pipeline
// ranks it. Golden entries come first, from the merged diff: every file it
// touches (source review_merge_diff; both paths of a rename, the old path
// of a deletion) in diff order, and every hunk (source golden_diff; the new
// side, or the old side of a pure deletion). Then, call by call in trace
// order, the files each tool call named and the line ranges it read: from
// its arguments first (tool_call_args), then from its result
// (tool_call_result). An entry seen again gains the new source and keeps
// its place: files are the same file when their normalized paths are,
// ranges when path, start and end all are.
//
// A file counts as found in a result when the result named it or showed
// its lines. Failed calls name their files but read nothing, as in
// package events. golden may be nil (no diff), and s may be nil (no trace).
// Build leaves ID, Query and BaseCommit for the caller.
func Build(golden *groundtruth.Truth, s *trace.Session, opts Options) *Case {
	b := &builder{key: opts.Events.Paths.Key, files: map[string]int{}, ranges: map[string]int{}}
	if golden != nil {
		for _, p := range golden.Paths() {
			b.file(p, SourceReviewMergeDiff)
		}
		for _, r := range golden.Chunks {
			b.lineRange(r, SourceGoldenDiff)
		}
	}
	if s == nil {
		return &b.c
	}
	tax := opts.Events.Taxonomy
	if tax == nil {
		tax = events.DefaultTaxonomy()
	}
	tax = tax.Prefer(events.SessionProfile(s.Format, s.Agent))
	paths := opts.Events.Paths
	if paths.CWD == "" {
		paths.CWD = s.CWD
	}
	for i := range s.Calls {
		rule, _ := tax.ClassifyCall(&s.Calls[i])
		ex, origins := events.ExtractOrigins(&s.Calls[i], rule, paths)
		shown := map[string]bool{}
		for _, r := range origins.Result {
			shown[paths.Key(r.Path)] = true
		}
		var fromResult []string
		for _, f := range ex.Files {
			if f.Written && !f.Read && !opts.IncludeWrites {
				continue
			}
			if !f.FromResult {
				b.file(f.Path, SourceToolCallArgs)
			}
			if f.FromResult || shown[paths.Key(f.Path)] {
				fromResult = append(fromResult, f.Path)
			}
		}
		for _, p := range fromResult {
			b.file(p, SourceToolCallResult)
		}
		for _, r := range origins.Args {
			b.lineRange(r, SourceToolCallArgs)
		}
		for _, r := range origins.Result {
			b.lineRange(r, SourceToolCallResult)
		}
	}
	return &b.c
}

type builder struct {
	c      Case
	key    func(string) string
	files  map[string]int // key -> index in c.Files
	ranges map[string]int // key:start-end -> index in c.Ranges
}

func (b *builder) file(p, source string) {
	k := b.key(p)
	if i, ok := b.files[k]; ok {
		b.c.Files[i].Sources = addSource(b.c.Files[i].Sources, source)
		return
	}
	b.files[k] = len(b.c.Files)
	b.c.Files = append(b.c.Files, FilePath{Path: p, Sources: []string{source}})
}

func (b *builder) lineRange(r events.LineRange, source string) {
	k := b.key(r.Path) + ":" + strconv.Itoa(r.Start) + "-" + strconv.Itoa(r.End)
	if i, ok := b.ranges[k]; ok {
		b.c.Ranges[i].Sources = addSource(b.c.Ranges[i].Sources, source)
		return
	}
	b.ranges[k] = len(b.c.Ranges)
	b.c.Ranges = append(b.c.Ranges, LineRange{Path: r.Path, StartLine: r.Start, EndLine: r.End, Sources: []string{source}})
}

func addSource(sources []string, s string) []string {
	if slices.Contains(sources, s) {
		return sources
	}
	return append(sources, s)
}

// CaseID is the default id of a session's case: its task or session id
// when the trace records one, else the trace's file name without its
// extensions ("fix-auth" for fix-auth.claude.jsonl).
func CaseID(s *trace.Session) string {
	if s.Task != "" || s.ID != "" {
		return s.Name()
	}
	base := filepath.Base(s.Source)
	if i := strings.IndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	return base
}
