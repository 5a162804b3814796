package metrics

import (
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
