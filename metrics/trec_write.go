package metrics

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"
)

// TRECRunTag is the run id (sixth column) of the run lines WriteTRECRun
// writes.
const TRECRunTag = "agentretrieval"

// WriteTRECRun writes a ranked list of one query as TREC run lines,
// "QUERY Q0 DOC RANK SCORE agentretrieval". The score N - rank + 1 of a
// list of N decreases strictly, so trec_eval, which ranks by score and
// ignores the rank column, sees the list's order. A query id or document
// that a TREC file cannot hold (empty, with white space, a query id
// starting with '#') is an error, and nothing is written for it.
func WriteTRECRun(w io.Writer, query string, ranked []string) error {
	if err := checkTRECField("task name", query); err != nil {
		return err
	}
	for _, doc := range ranked {
		if err := checkTRECField("path", doc); err != nil {
			return err
		}
	}
	n := len(ranked)
	for i, doc := range ranked {
		if _, err := fmt.Fprintf(w, "%s Q0 %s %d %d %s\n", query, doc, i+1, n-i, TRECRunTag); err != nil {
			return err
		}
	}
	return nil
}

// WriteQrels writes the judgments of one query as TREC qrels lines,
// "QUERY 0 DOC GRADE", sorted by document. Fields are checked as by
// WriteTRECRun.
func WriteQrels(w io.Writer, query string, rel Judgments) error {
	if err := checkTRECField("task name", query); err != nil {
		return err
	}
	docs := make([]string, 0, len(rel))
	for d := range rel {
		if err := checkTRECField("path", d); err != nil {
			return err
		}
		docs = append(docs, d)
	}
	slices.Sort(docs)
	for _, doc := range docs {
		if _, err := fmt.Fprintf(w, "%s 0 %s %d\n", query, doc, rel[doc]); err != nil {
			return err
		}
	}
	return nil
}

// checkTRECField rejects what a TREC file cannot hold: TREC files split
// fields on white space, and a line whose first field starts with '#' is a
// comment.
func checkTRECField(what, s string) error {
	switch {
	case s == "":
		return fmt.Errorf("empty %s: TREC files cannot hold it", what)
	case strings.IndexFunc(s, unicode.IsSpace) >= 0:
		return fmt.Errorf("%s %q contains white space, which TREC files cannot hold", what, s)
	case what == "task name" && strings.HasPrefix(s, "#"):
		return fmt.Errorf("%s %q starts with '#', which TREC readers take for a comment", what, s)
	}
	return nil
}

// ErrDuplicateQuery is returned, wrapped, by TRECExport.Add for a query id
// added twice.
var ErrDuplicateQuery = errors.New("would be one query")

// A TRECExport collects the results of several queries as one TREC run and
// one qrels file, so that trec_eval can check every figure of them. The
// zero value exports the surfaced view.
type TRECExport struct {
	// View is the ranked list exported; empty means Surfaced.
	View View
	// Run and Qrels hold the files' lines, in the order queries were added.
	Run, Qrels bytes.Buffer
	sources    map[string]string
}

// Add exports a result as query id: its ranked list (WriteTRECRun) and its
// judgments (WriteQrels). source names where the result came from, in the
// error for a query id added twice (two results would be one query). On
// error nothing of the result is added.
func (e *TRECExport) Add(id string, r *Result, source string) error {
	if first, dup := e.sources[id]; dup {
		return fmt.Errorf("%s and %s have the same task name %q, which %w", first, source, id, ErrDuplicateQuery)
	}
	view := e.View
	if view == "" {
		view = Surfaced
	}
	var run, qrels bytes.Buffer
	if err := WriteTRECRun(&run, id, r.Ranked.List(view)); err != nil {
		return fmt.Errorf("%s: %w", source, err)
	}
	if err := WriteQrels(&qrels, id, r.Judgments); err != nil {
		return fmt.Errorf("%s: %w", source, err)
	}
	if e.sources == nil {
		e.sources = map[string]string{}
	}
	e.sources[id] = source
	e.Run.Write(run.Bytes())
	e.Qrels.Write(qrels.Bytes())
	return nil
}
