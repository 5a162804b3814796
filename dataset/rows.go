package dataset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentretrieval/agentretrieval/internal/atomicfile"
	"github.com/agentretrieval/agentretrieval/internal/input"
)

// File names of the two datasets in an output folder, as the
// evaluation-data pipeline names them.
const (
	FileA = "dataset_a_file_paths.unvalidated.jsonl"
	FileB = "dataset_b_line_ranges.unvalidated.jsonl"
)

// Header holds the keys every row of both datasets has.
type Header struct {
	CaseID     string `json:"caseId"`
	CaseIndex  int    `json:"caseIndex"`
	Query      string `json:"query"`
	BaseCommit string `json:"baseCommit"`
	// NeedsQuery and NeedsBaseCommit mark an incomplete row: its query or
	// base commit is still to be filled in by hand.
	NeedsQuery      bool `json:"needsQuery"`
	NeedsBaseCommit bool `json:"needsBaseCommit"`
}

// RowA is a Dataset A row: the ranked files of one case.
type RowA struct {
	Header
	FilePaths []FilePath `json:"filePaths"`
}

// RowB is a Dataset B row: the ranked line ranges of one case.
type RowB struct {
	Header
	LineRanges []LineRange `json:"lineRanges"`
}

// Rows returns the case's row of each dataset, numbered index. Empty lists
// are written as [] rather than null.
func (c *Case) Rows(index int) (RowA, RowB) {
	h := Header{
		CaseID: c.ID, CaseIndex: index, Query: c.Query, BaseCommit: c.BaseCommit,
		NeedsQuery: blank(c.Query), NeedsBaseCommit: blank(c.BaseCommit),
	}
	a := RowA{Header: h, FilePaths: c.Files}
	if a.FilePaths == nil {
		a.FilePaths = []FilePath{}
	}
	b := RowB{Header: h, LineRanges: c.Ranges}
	if b.LineRanges == nil {
		b.LineRanges = []LineRange{}
	}
	return a, b
}

func blank(s string) bool { return len(bytes.TrimSpace([]byte(s))) == 0 }

// A WriteResult says what Write did with each case.
type WriteResult struct {
	// Written and Skipped list case ids: a case is skipped when both files
	// already hold a row for it.
	Written, Skipped []string
}

// Write writes the cases into dir as the two dataset files (FileA and
// FileB), one row per case each.
//
// By default the write is incremental: the rows already in a file stay as
// they are, a case whose id the file already holds is skipped there, and
// the new rows are appended, numbered on from the largest caseIndex in
// either file (a case only one file holds, left by a run that stopped
// between the two, keeps its index in the other). With full, both files are rewritten with the cases alone,
// numbered from 0. Each file is replaced atomically (package
// internal/atomicfile): a reader sees the old file or the new one. Rows of
// an existing file that cannot be read as JSON are kept as they are and
// reported through warn as file:line, since they may be a hand edit in
// progress; they hold no case id.
//
// Two cases with the same id are an error, and nothing is written.
func Write(dir string, cases []*Case, full bool, warn func(string)) (*WriteResult, error) {
	seen := map[string]bool{}
	for _, c := range cases {
		if c.ID == "" {
			return nil, errors.New("a case has no id")
		}
		if seen[c.ID] {
			return nil, fmt.Errorf("two cases have the id %q: give each trace its own case id", c.ID)
		}
		seen[c.ID] = true
	}
	files := [2]string{filepath.Join(dir, FileA), filepath.Join(dir, FileB)}
	var existing [2]*existingRows
	next := 0
	for i, f := range files {
		existing[i] = &existingRows{ids: map[string]int{}}
		if full {
			continue
		}
		var err error
		if existing[i], err = readExisting(f, warn); err != nil {
			return nil, err
		}
		next = max(next, existing[i].nextIndex)
	}
	res := &WriteResult{}
	var rows [2][]any
	for _, c := range cases {
		ia, inA := existing[0].ids[c.ID]
		ib, inB := existing[1].ids[c.ID]
		index := next
		switch {
		case inA && inB:
			res.Skipped = append(res.Skipped, c.ID)
			continue
		case inA: // a run that stopped between the two files: the index is taken
			index = ia
		case inB:
			index = ib
		default:
			next++
		}
		a, b := c.Rows(index)
		if !inA {
			rows[0] = append(rows[0], a)
		}
		if !inB {
			rows[1] = append(rows[1], b)
		}
		res.Written = append(res.Written, c.ID)
	}
	for i, f := range files {
		if !full && len(rows[i]) == 0 && existing[i].present {
			continue
		}
		if err := appendRows(f, existing[i], rows[i]); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// existingRows is what an incremental write needs from a file it extends.
type existingRows struct {
	present   bool
	ids       map[string]int // caseId -> caseIndex
	nextIndex int
	// endsOpen is true when the last line has no newline.
	endsOpen bool
}

func readExisting(name string, warn func(string)) (*existingRows, error) {
	e := &existingRows{ids: map[string]int{}}
	f, err := input.Open(name, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return e, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	e.present = true
	err = eachLine(name, f, func(line int, raw []byte) {
		var h struct {
			CaseID    string `json:"caseId"`
			CaseIndex int    `json:"caseIndex"`
		}
		if err := json.Unmarshal(raw, &h); err != nil || h.CaseID == "" {
			if warn != nil {
				warn(fmt.Sprintf("%s:%d: not a dataset row with a caseId; kept as it is", name, line))
			}
			return
		}
		if _, dup := e.ids[h.CaseID]; !dup {
			e.ids[h.CaseID] = h.CaseIndex
		}
		e.nextIndex = max(e.nextIndex, h.CaseIndex+1)
	}, &e.endsOpen)
	return e, err
}

// eachLine calls fn with every non-blank line of r, numbered from 1, and
// reports whether the last line lacked its newline. Lines of any length
// are read.
func eachLine(name string, r io.Reader, fn func(line int, raw []byte), endsOpen *bool) error {
	br := bufio.NewReader(r)
	for line := 1; ; line++ {
		raw, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("%s: %w", name, err)
		}
		if endsOpen != nil && len(raw) > 0 {
			*endsOpen = raw[len(raw)-1] != '\n'
		}
		if len(bytes.TrimSpace(raw)) > 0 {
			fn(line, raw)
		}
		if err != nil {
			return nil
		}
	}
}

// appendRows replaces name with its current content (when e says it has
// one) followed by rows, one JSON object a line.
func appendRows(name string, e *existingRows, rows []any) error {
	return atomicfile.Write(name, func(w io.Writer) error {
		if e.present {
			f, err := os.Open(name)
			if err != nil {
				return err
			}
			defer f.Close()
			if _, err := io.Copy(w, f); err != nil {
				return err
			}
			if e.endsOpen {
				if _, err := io.WriteString(w, "\n"); err != nil {
					return err
				}
			}
		}
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		for _, r := range rows {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	})
}
