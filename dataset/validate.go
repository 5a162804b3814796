package dataset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/agentretrieval/agentretrieval/internal/atomicfile"
	"github.com/agentretrieval/agentretrieval/internal/input"
)

// A Problem is what makes one row incomplete or unreadable.
type Problem struct {
	File string
	Line int
	// CaseID is the row's caseId, when it has one.
	CaseID string
	// Missing lists what the row lacks, in words ("query",
	// "baseCommit", "a path in lineRanges[2]").
	Missing []string
}

func (p Problem) String() string {
	id := ""
	if p.CaseID != "" {
		id = fmt.Sprintf(" case %q:", p.CaseID)
	}
	return fmt.Sprintf("%s:%d:%s missing %s", p.File, p.Line, id, strings.Join(p.Missing, ", "))
}

// A Report is the outcome of Validate: how many rows a file has and which
// of them are incomplete.
type Report struct {
	Rows     int
	Problems []Problem
}

// Complete is the number of rows with no problem.
func (r *Report) Complete() int { return r.Rows - len(r.Problems) }

// Validate reads a dataset file (either dataset; JSON Lines) and reports
// every incomplete row, as the evaluation-data validator judges them: a
// row needs a caseId, a non-blank query and baseCommit, and a filePaths or
// lineRanges list whose entries each name a path (and, for line ranges,
// 1 <= startLine <= endLine). The needsQuery and needsBaseCommit markers
// are not trusted either way: the fields themselves are checked. A line
// that is not a JSON object is a problem of its own.
func Validate(name string) (*Report, error) {
	rep := &Report{}
	err := eachRow(name, func(line int, raw []byte, row *orderedRow) {
		rep.Rows++
		if p := check(name, line, row); len(p.Missing) > 0 {
			rep.Problems = append(rep.Problems, p)
		}
	})
	return rep, err
}

// Export writes the complete rows of the dataset file name to out, without
// the needsQuery and needsBaseCommit markers (every exported row is
// complete) and with every other key as it was, in its order. Incomplete
// rows are left out and returned in the report: an export never carries a
// row with a missing field. out is replaced atomically.
func Export(name, out string) (*Report, error) {
	rep := &Report{}
	err := atomicfile.Write(out, func(w io.Writer) error {
		var werr error
		var buf bytes.Buffer
		err := eachRow(name, func(line int, raw []byte, row *orderedRow) {
			rep.Rows++
			if p := check(name, line, row); len(p.Missing) > 0 {
				rep.Problems = append(rep.Problems, p)
				return
			}
			buf.Reset()
			row.write(&buf, "needsQuery", "needsBaseCommit")
			if _, err := w.Write(buf.Bytes()); err != nil && werr == nil {
				werr = err
			}
		})
		if err != nil {
			return err
		}
		return werr
	})
	return rep, err
}

func check(name string, line int, row *orderedRow) Problem {
	p := Problem{File: name, Line: line}
	if row == nil {
		p.Missing = []string{"a JSON object (the line is not one)"}
		return p
	}
	var h Header
	var lists struct {
		FilePaths  *[]FilePath  `json:"filePaths"`
		LineRanges *[]LineRange `json:"lineRanges"`
	}
	str := func(key string, dst *string) {
		if v, ok := row.get(key); ok && json.Unmarshal(v, dst) != nil {
			p.Missing = append(p.Missing, key+" as a string")
		}
	}
	str("caseId", &h.CaseID)
	str("query", &h.Query)
	str("baseCommit", &h.BaseCommit)
	p.CaseID = h.CaseID
	if h.CaseID == "" {
		p.Missing = append(p.Missing, "caseId")
	}
	if blank(h.Query) {
		p.Missing = append(p.Missing, "query")
	}
	if blank(h.BaseCommit) {
		p.Missing = append(p.Missing, "baseCommit")
	}
	if v, ok := row.get("filePaths"); ok && json.Unmarshal(v, &lists.FilePaths) != nil {
		p.Missing = append(p.Missing, "filePaths as a list of {path, sources}")
	}
	if v, ok := row.get("lineRanges"); ok && json.Unmarshal(v, &lists.LineRanges) != nil {
		p.Missing = append(p.Missing, "lineRanges as a list of {path, startLine, endLine, sources}")
	}
	if lists.FilePaths == nil && lists.LineRanges == nil {
		p.Missing = append(p.Missing, "filePaths or lineRanges")
	}
	if lists.FilePaths != nil {
		for i, f := range *lists.FilePaths {
			if blank(f.Path) {
				p.Missing = append(p.Missing, fmt.Sprintf("a path in filePaths[%d]", i))
			}
		}
	}
	if lists.LineRanges != nil {
		for i, r := range *lists.LineRanges {
			if blank(r.Path) {
				p.Missing = append(p.Missing, fmt.Sprintf("a path in lineRanges[%d]", i))
			}
			if r.StartLine < 1 || r.EndLine < r.StartLine {
				p.Missing = append(p.Missing, fmt.Sprintf("1 <= startLine <= endLine in lineRanges[%d] (%d-%d)", i, r.StartLine, r.EndLine))
			}
		}
	}
	return p
}

// orderedRow is a JSON object with its keys in file order, so that an
// export keeps keys this package does not know (a workspaceId, a taskId)
// where they were.
type orderedRow struct {
	keys []string
	vals []json.RawMessage
}

func (r *orderedRow) get(key string) (json.RawMessage, bool) {
	for i, k := range r.keys {
		if k == key {
			return r.vals[i], true
		}
	}
	return nil, false
}

func (r *orderedRow) write(w *bytes.Buffer, drop ...string) {
	w.WriteByte('{')
	n := 0
	for i, k := range r.keys {
		if contains(drop, k) {
			continue
		}
		if n > 0 {
			w.WriteByte(',')
		}
		n++
		key, _ := json.Marshal(k)
		w.Write(key)
		w.WriteByte(':')
		_ = json.Compact(w, r.vals[i])
	}
	w.WriteString("}\n")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// eachRow calls fn with every non-blank line of the file as an object;
// row is nil for a line that is not a JSON object.
func eachRow(name string, fn func(line int, raw []byte, row *orderedRow)) error {
	f, err := input.Open(name, input.DataLimit)
	if err != nil {
		return err
	}
	defer f.Close()
	return eachLine(name, f, func(line int, raw []byte) {
		fn(line, raw, decodeObject(raw))
	}, nil)
}

// decodeObject decodes one JSON object keeping its key order; nil when raw
// is not exactly one object.
func decodeObject(raw []byte) *orderedRow {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	row := &orderedRow{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil
		}
		row.keys = append(row.keys, k)
		row.vals = append(row.vals, v)
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return nil
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil
	}
	return row
}

// Check validates the dataset file name, and with export set also writes
// its complete rows there (Export).
func Check(name, export string) (*Report, error) {
	if export != "" {
		return Export(name, export)
	}
	return Validate(name)
}

// WriteText writes one line per problem, then a count of complete rows.
func (r *Report) WriteText(w io.Writer) error {
	for _, p := range r.Problems {
		if _, err := fmt.Fprintln(w, p); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "rows: %d, complete: %d\n", r.Rows, r.Complete())
	return err
}
