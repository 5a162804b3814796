package metrics

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Qrels holds the judgments of a TREC qrels file: query id to the judgments
// of that query.
type Qrels map[string]Judgments

// ScoredDoc is one line of a TREC run file: a retrieved document and its
// score. The rank column of the file is not kept, because trec_eval ignores
// it and ranks by score.
type ScoredDoc struct {
	Doc   string  // document id, compared byte-wise
	Score float64 // higher ranks first
}

// TRECRun holds a TREC run (results) file.
type TRECRun struct {
	// ID is the run id (sixth column) of the last result line, the one
	// trec_eval keeps and prints as runid.
	ID string
	// Results maps a query id to its retrieved documents, in file order.
	Results map[string][]ScoredDoc
}

// Ranking returns the documents retrieved for query in trec_eval's order;
// see RankByScore. It returns nil for a query the run does not contain.
func (r *TRECRun) Ranking(query string) []string {
	return RankByScore(r.Results[query])
}

// RankByScore returns the document ids of docs ranked as trec_eval ranks
// them: by score, highest first, and among equal scores by document id in
// decreasing byte order (strcmp order, reversed). trec_eval breaks ties this
// way so that a ranking never depends on the order of lines in the file; the
// rank column of the file plays no part. It returns nil when docs is empty.
func RankByScore(docs []ScoredDoc) []string {
	if len(docs) == 0 {
		return nil
	}
	sorted := slices.Clone(docs)
	slices.SortFunc(sorted, func(a, b ScoredDoc) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return strings.Compare(b.Doc, a.Doc)
	})
	ids := make([]string, len(sorted))
	for i, d := range sorted {
		ids[i] = d.Doc
	}
	return ids
}

// Errors wrapped by ParseError, for errors.Is.
var (
	// ErrMalformedLine marks a line that is not in the file's format.
	ErrMalformedLine = errors.New("malformed line")
	// ErrDuplicateDocument marks a document listed twice for one query.
	// trec_eval refuses such files ("duplicate docs"), and so do we.
	ErrDuplicateDocument = errors.New("duplicate document")
)

// ParseError reports a problem on one line of a qrels or run file.
type ParseError struct {
	File string // the name given to ParseQrels or ParseTRECRun
	Line int    // 1-based line number
	Err  error  // wraps ErrMalformedLine or ErrDuplicateDocument
}

// Error returns "file:line: problem", the form editors and CI logs link.
func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
}

// Unwrap returns Err, so errors.Is finds ErrMalformedLine and
// ErrDuplicateDocument.
func (e *ParseError) Unwrap() error { return e.Err }

// ParseQrels reads a TREC qrels file. name is used in error messages.
//
// Each line has exactly four fields separated by white space:
//
//	query-id  iteration  document-id  relevance
//
// The iteration field is ignored. The relevance is an integer grade; a grade
// written as a decimal ("1.0") is truncated toward zero, which is what
// trec_eval's atol does with it. A relevance that atol would read otherwise
// than it reads ("1e1", "1_000", "3abc") is refused, wrapping
// ErrTRECNumber, with what trec_eval would have read. Blank lines and lines that start with '#'
// are skipped. A second judgment of the same document for the same query is
// an error (trec_eval stops with "duplicate docs"), and so is any line with
// another number of fields or a relevance that is not a number.
func ParseQrels(r io.Reader, name string) (Qrels, error) {
	qrels := Qrels{}
	firstLine := map[[2]string]int{}
	err := eachLine(r, name, func(n int, fields []string) error {
		if len(fields) != 4 {
			return fmt.Errorf("%w: want 4 fields (query iteration document relevance), got %d", ErrMalformedLine, len(fields))
		}
		query, doc := fields[0], fields[2]
		grade, err := parseGrade(fields[3])
		if err != nil {
			return err
		}
		key := [2]string{query, doc}
		if first, dup := firstLine[key]; dup {
			return fmt.Errorf("%w %q for query %q (first judged on line %d)", ErrDuplicateDocument, doc, query, first)
		}
		firstLine[key] = n
		if qrels[query] == nil {
			qrels[query] = Judgments{}
		}
		qrels[query][doc] = grade
		return nil
	})
	if err != nil {
		return nil, err
	}
	return qrels, nil
}

// ParseTRECRun reads a TREC run (results) file. name is used in error messages.
//
// Each line has at least six fields separated by white space:
//
//	query-id  iteration  document-id  rank  score  run-id
//
// Fields after the sixth are ignored, as are the iteration and the rank: the
// ranking comes from the score (see RankByScore). The score is a decimal
// floating-point number, or inf; a score that trec_eval's atof would read
// only in part ("1_000", "1,5") or otherwise than Go ("0x10") is refused,
// wrapping ErrTRECNumber. The run id of the last line becomes the run's ID.
// Blank lines and lines that start with '#' are skipped. A document listed
// twice for the same query is an error, as it is for trec_eval.
func ParseTRECRun(r io.Reader, name string) (*TRECRun, error) {
	// A run of millions of lines is read without a string per line: the
	// fields are slices of the read buffer, and only the document ids are
	// kept. Repeats are looked for within the query the line belongs to:
	// a query's lines usually come together, so the set holds one query's
	// documents, and is rebuilt from what was kept when a query comes back.
	type runQuery struct {
		name  string
		docs  []ScoredDoc
		lines []int // of each document, for the message of a repeat
	}
	queries := map[string]*runQuery{}
	var cur *runQuery
	seen := map[string]int{} // the line of each document of cur
	var id string
	err := eachFields(r, name, func(n int, fields [][]byte) error {
		if len(fields) < 6 {
			return fmt.Errorf("%w: want 6 fields (query iteration document rank score run-id), got %d", ErrMalformedLine, len(fields))
		}
		score, err := parseTRECFloat("score", string(fields[4]))
		if err != nil {
			return fmt.Errorf("%w: %w", ErrMalformedLine, err)
		}
		if cur == nil || string(fields[0]) != cur.name {
			cur = queries[string(fields[0])]
			if cur == nil {
				cur = &runQuery{name: string(fields[0])}
				queries[cur.name] = cur
			}
			clear(seen)
			for i, d := range cur.docs {
				seen[d.Doc] = cur.lines[i]
			}
		}
		if first, dup := seen[string(fields[2])]; dup {
			return fmt.Errorf("%w %q for query %q (first listed on line %d)", ErrDuplicateDocument, fields[2], cur.name, first)
		}
		doc := string(fields[2])
		seen[doc] = n
		cur.docs = append(cur.docs, ScoredDoc{Doc: doc, Score: score})
		cur.lines = append(cur.lines, n)
		if string(fields[5]) != id {
			id = string(fields[5])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	run := &TRECRun{ID: id, Results: make(map[string][]ScoredDoc, len(queries))}
	for q, rq := range queries {
		run.Results[q] = rq.docs
	}
	return run, nil
}

// eachFields is eachLine for a reader that keeps little of each line:
// fields are slices of a buffer that the next line reuses.
func eachFields(r io.Reader, name string, fn func(n int, fields [][]byte) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var fields [][]byte
	var long []byte // a line longer than the buffer
	for n := 1; ; n++ {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("%s:%d: %w", name, n, err)
		}
		if len(line) == 0 && err != nil {
			return nil
		}
		fields = appendFields(fields[:0], line)
		if len(fields) > 0 && fields[0][0] != '#' {
			if ferr := fn(n, fields); ferr != nil {
				return &ParseError{File: name, Line: n, Err: ferr}
			}
		}
		if err != nil {
			return nil
		}
	}
}

// appendFields appends the fields of line, split on C's isspace as
// eachLine splits them, to fields.
func appendFields(fields [][]byte, line []byte) [][]byte {
	start := -1
	for i, c := range line {
		if isCSpace(rune(c)) {
			if start >= 0 {
				fields = append(fields, line[start:i])
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		fields = append(fields, line[start:])
	}
	return fields
}

// eachLine calls fn with the 1-based number and the fields of every line of
// r that is neither blank nor a comment, and turns fn's error into a
// ParseError. Lines may be of any length.
func eachLine(r io.Reader, name string, fn func(n int, fields []string) error) error {
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, err := br.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("%s:%d: %w", name, n, err)
		}
		if line == "" && err != nil {
			return nil
		}
		// Fields are split on C's isspace, as trec_eval splits them, so that
		// a document id with a non-ASCII space in it stays one field.
		fields := strings.FieldsFunc(line, isCSpace)
		if len(fields) > 0 && !strings.HasPrefix(fields[0], "#") {
			if ferr := fn(n, fields); ferr != nil {
				return &ParseError{File: name, Line: n, Err: ferr}
			}
		}
		if err != nil {
			return nil
		}
	}
}

func isCSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return true
	}
	return false
}
