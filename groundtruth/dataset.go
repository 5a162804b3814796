package groundtruth

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/internal/input"
)

// Sources that mark the golden entries of dataset rows: files edited by the
// diff a reviewer approved for merge, and that diff's hunks.
const (
	goldenFileSource  = "review_merge_diff"
	goldenRangeSource = "golden_diff"
)

// datasetRow holds the keys of an evaluation-data row the loader uses; the
// others (workspaceId, query, baseCommit, needsQuery, ...) are ignored.
type datasetRow struct {
	CaseID     string         `json:"caseId"`
	FilePaths  []datasetPath  `json:"filePaths"`
	LineRanges []datasetRange `json:"lineRanges"`
}

type datasetPath struct {
	Path    string   `json:"path"`
	Sources []string `json:"sources"`
}

type datasetRange struct {
	Path      string   `json:"path"`
	StartLine int      `json:"startLine"`
	EndLine   int      `json:"endLine"`
	Sources   []string `json:"sources"`
}

// LoadDataset reads evaluation-data rows (JSON Lines, one case a row) and
// returns one Truth per "caseId". path is a file, or a folder whose *.jsonl
// files are all read (in name order), so that a file-path dataset and a
// line-range dataset written side by side merge.
//
// A row's "filePaths" entries ({path, sources}) whose sources include
// "review_merge_diff" are golden: they become files and edit files. When no
// entry of the row is golden, all its paths become files, and the case's
// confidence drops to medium since they include files an agent merely
// looked at. A row's "lineRanges" entries ({path, startLine, endLine,
// sources}) whose sources include "golden_diff" become chunks, and their
// paths files and edit files; the other ranges (what some agent read) are
// not ground truth and are skipped. Rows with the same caseId merge, in
// file then line order. Confidence is high otherwise; Source lists the
// files read.
//
// Ranges are taken as written, never widened or narrowed: the extractor
// that wrote these datasets recorded a read of line ± window as
// line ± window/2, and correcting for that is the writer's job, not a
// reader's guess. It concerns the ranges of reads, which are not golden.
//
// A row that is not a JSON object, has no caseId, or has a golden range
// outside 1 <= startLine <= endLine is a *ParseError naming file:line.
// A case whose rows name no golden file gets a Truth with no files.
func LoadDataset(path string) (map[string]*Truth, error) {
	files := []string{path}
	info, err := input.Stat(path)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		files, err = filepath.Glob(filepath.Join(path, "*.jsonl"))
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("%s: no *.jsonl files: expected evaluation-data rows", path)
		}
		slices.Sort(files)
	}
	d := &dataset{cases: map[string]*Truth{}, sources: map[string][]string{}, fallback: map[string]bool{}}
	for _, f := range files {
		if err := d.read(f); err != nil {
			return nil, err
		}
	}
	for id, t := range d.cases {
		t.Source = strings.Join(d.sources[id], ", ")
		t.Confidence = High
		if d.fallback[id] {
			t.Confidence = Medium
		}
		if err := t.normalize(false); err != nil {
			return nil, fmt.Errorf("%s: case %q: %w", t.Source, id, err)
		}
	}
	return d.cases, nil
}

type dataset struct {
	cases    map[string]*Truth
	sources  map[string][]string // files each case's rows came from
	fallback map[string]bool     // cases with a row that had no golden file path
	n        events.PathNormalizer
}

func (d *dataset) read(name string) error {
	f, err := input.Open(name, maxInput.Or(input.DataLimit))
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	for line := 1; ; line++ {
		raw, err := r.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("%s: %w", name, err)
		}
		if len(bytes.TrimSpace(raw)) > 0 {
			if rerr := d.row(name, line, raw); rerr != nil {
				return rerr
			}
		}
		if err != nil {
			return nil
		}
	}
}

func (d *dataset) row(name string, line int, raw []byte) error {
	var row datasetRow
	if err := json.Unmarshal(raw, &row); err != nil {
		return jsonLineError(name, line, err)
	}
	if row.CaseID == "" {
		return &ParseError{File: name, Line: line, Msg: "row has no \"caseId\": expected evaluation-data rows"}
	}
	t := d.cases[row.CaseID]
	if t == nil {
		t = &Truth{}
		d.cases[row.CaseID] = t
	}
	if !slices.Contains(d.sources[row.CaseID], name) {
		d.sources[row.CaseID] = append(d.sources[row.CaseID], name)
	}
	path := func(p string) (string, error) {
		q, ok := d.n.File(p, events.FromArgument)
		if !ok {
			return "", &ParseError{File: name, Line: line, Msg: fmt.Sprintf("path %q: expected a repository file path", p)}
		}
		return q, nil
	}

	golden := slices.ContainsFunc(row.FilePaths, func(e datasetPath) bool {
		return slices.Contains(e.Sources, goldenFileSource)
	})
	if len(row.FilePaths) > 0 && !golden {
		d.fallback[row.CaseID] = true
	}
	for _, e := range row.FilePaths {
		if golden && !slices.Contains(e.Sources, goldenFileSource) {
			continue
		}
		p, err := path(e.Path)
		if err != nil {
			return err
		}
		t.add(File{Path: p, Grade: 1})
		if golden {
			t.EditFiles = append(t.EditFiles, p)
		}
	}
	for _, r := range row.LineRanges {
		if !slices.Contains(r.Sources, goldenRangeSource) {
			continue
		}
		p, err := path(r.Path)
		if err != nil {
			return err
		}
		if r.StartLine < 1 || r.EndLine < r.StartLine {
			return &ParseError{File: name, Line: line, Msg: fmt.Sprintf("range %s:%d-%d: expected 1 <= startLine <= endLine", r.Path, r.StartLine, r.EndLine)}
		}
		t.add(File{Path: p, Grade: 1})
		t.EditFiles = append(t.EditFiles, p)
		t.Chunks = append(t.Chunks, events.LineRange{Path: p, Start: r.StartLine, End: r.EndLine})
	}
	return nil
}

// isDatasetFile reports whether the first non-blank line of a .jsonl file
// is an evaluation-data row (an object with a "caseId"). A file that cannot
// be read is left to the SWE-bench loader, whose errors say why.
func isDatasetFile(name string) bool {
	f, err := input.Open(name, maxInput.Or(input.DataLimit))
	if err != nil {
		return false
	}
	defer f.Close()
	r := bufio.NewReader(f)
	for {
		raw, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(raw)) > 0 {
			var row struct {
				CaseID *string `json:"caseId"`
			}
			return json.Unmarshal(raw, &row) == nil && row.CaseID != nil
		}
		if err != nil {
			return false
		}
	}
}

// loadDatasetCase loads a dataset file that holds exactly one case.
func loadDatasetCase(name string) (*Truth, error) {
	cases, err := LoadDataset(name)
	if err != nil {
		return nil, err
	}
	if len(cases) != 1 {
		ids := slices.Sorted(maps.Keys(cases))
		if len(ids) > 5 {
			ids = append(ids[:5], "...")
		}
		return nil, fmt.Errorf("%s: holds %d cases (%s): expected one; LoadDataset reads them all", name, len(cases), strings.Join(ids, ", "))
	}
	for _, t := range cases {
		return t, nil
	}
	return nil, nil
}
