package events

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentretrieval/agentretrieval/trace"
)

// NormalizeAll normalizes every session read from one trace input
// (trace.ReadAll, trace.ReadFileAll), one document each, in order.
//
// A document's task name is opts.Provenance.TaskName when set, else the
// session's Task, else the input's name without its folders and extensions
// ("runs/fix-bug.claude.jsonl" → "fix-bug"; none for "-", standard input),
// with the session's id (or its position, from 1) appended after a "/"
// when the input held several sessions.
func NormalizeAll(sessions []*trace.Session, input string, opts Options) []*Document {
	return normalizeAll(sessions, input, opts, Normalize)
}

func normalizeAll(sessions []*trace.Session, input string, opts Options, normalize func(*trace.Session, Options) *Document) []*Document {
	docs := make([]*Document, len(sessions))
	for i, s := range sessions {
		docs[i] = normalize(s, taskOptions(opts, s, input, i, len(sessions)))
	}
	return docs
}

// taskOptions are opts for session i of the n an input held: with the
// task name NormalizeAll gives it, unless opts names one.
func taskOptions(opts Options, s *trace.Session, input string, i, n int) Options {
	if opts.Provenance.TaskName == "" {
		opts.Provenance.TaskName = sessionTask(s, input, i, n)
	}
	return opts
}

func sessionTask(s *trace.Session, input string, i, n int) string {
	if s.Task != "" {
		return s.Task
	}
	base := ""
	if input != "-" {
		base = filepath.Base(input)
		if i := strings.IndexByte(base, '.'); i > 0 {
			base = base[:i]
		}
	}
	if n == 1 {
		return base
	}
	id := s.ID
	if id == "" {
		id = strconv.Itoa(i + 1)
	}
	if base == "" {
		return id
	}
	return base + "/" + id
}
