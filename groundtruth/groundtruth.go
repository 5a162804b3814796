// Package groundtruth holds what the right answer is for a task: the files
// relevant to it (each with an integer relevance grade), the symbols within
// them, the files a correct solution edits, and line ranges. It loads ground
// truth from the files users and benchmarks write; [Load] picks the loader
// from what it is given.
//
// Every loader normalizes paths the way package events normalizes the paths
// agents touch ([events.PathNormalizer] with its default workspace
// prefixes), so a ground-truth "/testbed/src/a.py" and a Read of "src/a.py"
// compare equal, and merges duplicate files keeping the highest grade.
//
// # Ground-truth files
//
// A ground-truth file is JSON or YAML (JSON is read as YAML, so positions in
// errors are line:column either way). Its simplest form is a list of paths:
//
//	["pkg/auth/token.go", "pkg/auth/token_test.go"]
//
// The full form is a mapping:
//
//	files:
//	  - pkg/auth/token.go                  # grade 1
//	  - {path: pkg/auth/session.go, grade: 2}
//	symbols:
//	  - {file: pkg/auth/token.go, symbol: ParseToken}
//	expected_edit_files: [pkg/auth/token.go]
//	chunks:
//	  - {path: pkg/auth/token.go, start: 40, end: 58}
//
// A file with any other extension is plain text, one path per line; blank
// lines and lines starting with # are ignored. Unknown keys are errors that
// name file:line:col, and so is an entry that names no file (a directory
// such as "pkg/auth/", a glob).
//
// Loading takes about a second and at most eight times the file for a
// million paths. A plain list of paths, the form a large ground truth takes,
// is read without the YAML parser: a JSON list (or an object of files and
// expected_edit_files lists) with encoding/json, and a YAML block list (one
// "- path" a line, at the top or under files: and expected_edit_files:) by
// a reader that takes only what it reads exactly as the parser does. Any
// document those readers do not take whole is read by the YAML parser,
// which names the place of each problem. Through the parser, documents of
// more than 100,000 tokens, nested deeper than 1000 levels, or whose
// aliases expand to more than a million nodes, are refused at the place
// the limit is crossed (package internal/yamllimit): the parser takes
// several hundred bytes of memory a token. A byte-order mark at the start
// of a file is skipped.
//
// # Other sources
//
//   - A unified diff ([ParseDiff]): the files it touches and the line ranges
//     of its hunks, all of them expected edits.
//   - A benchmark task folder ([LoadTaskDir]): the first of a chain of
//     well-known files that names a file, with the confidence of its kind.
//   - A SWE-bench instance ([ParseSWEBench], [LoadSWEBench]): its gold patch.
//   - Line-range and file-path dataset rows ([LoadDataset]), one Truth per
//     case.
//
// Benchmark files carry metadata besides the ground truth, so their loaders
// ignore keys they do not know, unlike [Parse].
package groundtruth

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/internal/input"
	"github.com/agentretrieval/agentretrieval/internal/yamlerr"
	"github.com/agentretrieval/agentretrieval/internal/yamllimit"
)

// Confidence says how much a ground truth can be trusted.
type Confidence string

const (
	High   Confidence = "high"
	Medium Confidence = "medium"
	Low    Confidence = "low"
)

// A File is a relevant file with its relevance grade (1 unless stated;
// higher is more relevant, 0 is judged not relevant).
type File struct {
	Path  string `yaml:"path" json:"path"`
	Grade int    `yaml:"grade" json:"grade"`
}

// Truth is the ground truth of one task.
type Truth struct {
	Files     []File
	Symbols   []events.Symbol
	EditFiles []string
	Chunks    []events.LineRange
	// Source names where the truth came from (a file name).
	Source     string
	Confidence Confidence
}

// Paths returns the relevant file paths (grade above zero) in order.
func (t *Truth) Paths() []string {
	var out []string
	for _, f := range t.Files {
		if f.Grade > 0 {
			out = append(out, f.Path)
		}
	}
	return out
}

// Events returns the ground truth as the retrieval-events document records
// it. It returns nil for a nil Truth.
func (t *Truth) Events() *events.GroundTruth {
	if t == nil {
		return nil
	}
	return &events.GroundTruth{
		Files:             t.Paths(),
		Symbols:           t.Symbols,
		Chunks:            t.Chunks,
		ExpectedEditFiles: t.EditFiles,
	}
}

// add appends a file. Duplicates stay until normalize, which every loader
// calls last, merges them in one pass.
func (t *Truth) add(f File) {
	t.Files = append(t.Files, f)
}

// LoadFile reads a ground-truth file (see the package documentation).
func LoadFile(name string) (*Truth, error) {
	data, err := input.ReadFile(name, maxInput.Or(input.TruthLimit))
	if err != nil {
		return nil, err
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json", ".yaml", ".yml":
		return Parse(name, data)
	}
	return parseText(name, data)
}

// fileEntry accepts a bare path or a {path, grade} mapping.
type fileEntry File

func (f *fileEntry) UnmarshalYAML(node ast.Node) error {
	if s, ok := node.(*ast.StringNode); ok {
		*f = fileEntry{Path: s.Value, Grade: 1}
		return nil
	}
	var m struct {
		Path  string `yaml:"path"`
		Grade *int   `yaml:"grade"`
	}
	if err := yaml.NodeToValue(node, &m, yaml.Strict()); err != nil {
		return err
	}
	if m.Path == "" {
		return yamlerr.At("", node, "file entry has no path: expected a path or {path, grade}")
	}
	*f = fileEntry{Path: m.Path, Grade: 1}
	if m.Grade != nil {
		if *m.Grade < 0 {
			return yamlerr.At("", node, "grade %d: expected an integer >= 0", *m.Grade)
		}
		f.Grade = *m.Grade
	}
	return nil
}

// truthFile is a ground-truth document as read, before normalizing.
type truthFile struct {
	Files             []File
	Symbols           []events.Symbol
	ExpectedEditFiles []string
	Chunks            []events.LineRange
}

// yamlTruthFile is the document as the YAML parser decodes it.
type yamlTruthFile struct {
	Files             []fileEntry        `yaml:"files"`
	Symbols           []events.Symbol    `yaml:"symbols"`
	ExpectedEditFiles []string           `yaml:"expected_edit_files"`
	Chunks            []events.LineRange `yaml:"chunks"`
}

// files returns the entries as files.
func files(entries []fileEntry) []File {
	if entries == nil {
		return nil
	}
	out := make([]File, len(entries))
	for i, e := range entries {
		out[i] = File(e)
	}
	return out
}

// Parse parses ground truth in JSON or YAML: a list of paths or a mapping
// with files, symbols, expected_edit_files and chunks.
func Parse(name string, data []byte) (*Truth, error) {
	t := &Truth{Source: name, Confidence: High}
	// Editors on Windows start a file with a byte-order mark.
	data = yamllimit.TrimBOM(data)
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, &yamlerr.Error{File: name, Msg: "empty ground truth: expected a list of paths or a mapping with files"}
	}
	f, fast := jsonPaths(data)
	if !fast {
		f, fast = yamlPaths(data)
	}
	if !fast {
		var err error
		if f, err = decodeYAML(name, data, trimmed); err != nil {
			return nil, err
		}
	}
	t.Files = f.Files
	for i, c := range f.Chunks {
		if c.Path == "" || c.Start < 1 || c.End < c.Start {
			return nil, &yamlerr.Error{File: name, Msg: fmt.Sprintf("chunks[%d]: expected {path, start, end} with 1 <= start <= end, got %+v", i, c)}
		}
	}
	t.Symbols, t.EditFiles, t.Chunks = f.Symbols, f.ExpectedEditFiles, f.Chunks
	if err := t.normalize(false); err != nil {
		return nil, &yamlerr.Error{File: name, Msg: err.Error()}
	}
	return t, nil
}

// truthLimits bound a ground-truth document read by the YAML parser. A
// plain list of paths, which may cover a whole repository, does not reach
// the parser (see yamlPaths and jsonPaths); graded entries, symbols and
// chunks may still be many more than a configuration file's tokens.
var truthLimits = yamllimit.Limits{MaxTokens: yamllimit.GroundTruthMaxTokens}

// decodeYAML decodes a ground-truth file, JSON or YAML, as YAML: a
// document starting with '[' or '-' is a list of files.
func decodeYAML(name string, data, trimmed []byte) (truthFile, error) {
	var f yamlTruthFile
	var err error
	if c := firstContent(trimmed); c == '[' || c == '-' {
		err = yamllimit.Unmarshal(name, data, &f.Files, truthLimits, yaml.Strict())
	} else {
		err = yamllimit.Unmarshal(name, data, &f, truthLimits, yaml.Strict())
	}
	if e := (*yamlerr.Error)(nil); errors.Is(err, yamllimit.ErrTooManyTokens) && errors.As(err, &e) {
		e.Msg += "; a long list of paths can be written as a plain YAML list (one \"- path\" a line, no grades) or a JSON list, which have no such limit"
	}
	return truthFile{Files: files(f.Files), Symbols: f.Symbols, ExpectedEditFiles: f.ExpectedEditFiles, Chunks: f.Chunks}, yamlerr.From(name, err)
}

// duplicates reports, of n entries, which have the key of an earlier one,
// and calls merge(first, i) for each such entry i with the first entry of
// its key. It sorts indexes rather than filling a map: four bytes an entry
// instead of thirty, for ground truths of millions of paths.
func duplicates(n int, key func(int) string, merge func(first, i int)) []bool {
	dup := make([]bool, n)
	if n < 2 {
		return dup
	}
	// A ground truth is read whole within input.TruthLimit, far below
	// 2^31 entries.
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := strings.Compare(key(int(a)), key(int(b))); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	first := int(order[0])
	for _, o := range order[1:] {
		i := int(o)
		if key(i) != key(first) {
			first = i
			continue
		}
		dup[i] = true
		if merge != nil {
			merge(first, i)
		}
	}
	return dup
}

// compact keeps the entries of s that are not duplicates, in order, in
// place.
func compact[T any](s []T, dup []bool) []T {
	out := s[:0]
	for i, v := range s {
		if !dup[i] {
			out = append(out, v)
		}
	}
	clear(s[len(out):])
	return out
}

// firstContent returns the first byte of a YAML document that is not
// white space or part of a comment line, or 0.
func firstContent(data []byte) byte {
	for len(data) > 0 {
		data = bytes.TrimLeft(data, " \t\r\n")
		if len(data) == 0 || data[0] != '#' {
			break
		}
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		} else {
			data = nil
		}
	}
	if len(data) == 0 {
		return 0
	}
	return data[0]
}

func parseText(name string, data []byte) (*Truth, error) {
	t := &Truth{Source: name, Confidence: High}
	data = yamllimit.TrimBOM(data)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		t.add(File{Path: line, Grade: 1})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := t.normalize(false); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return t, nil
}

// normalize rewrites every path of t with the zero events.PathNormalizer
// (default workspace prefixes, no working directory), then merges duplicate
// files keeping the highest grade and drops repeated edit files, symbols
// and chunks, keeping first-seen order. Paths are normalized as arguments,
// never as diff paths: a leading "a/" here is a real folder (diff loaders
// strip git's prefixes themselves, where they know a path is one).
//
// An entry that names no file (a directory, a glob) is an error naming the
// entry, unless lenient is set: benchmark files mix directories into their
// file lists, and those entries are dropped.
func (t *Truth) normalize(lenient bool) error {
	var n events.PathNormalizer
	var bad error
	norm := func(field string, i int, p string) (string, bool) {
		q, ok := n.File(p, events.FromArgument)
		if !ok && bad == nil && !lenient {
			bad = fmt.Errorf("%s[%d] %s: expected a repository file path, not a directory, glob or URL", field, i, input.Excerpt(p))
		}
		return q, ok
	}

	// Normalized in place: a ground truth may list millions of paths.
	files := t.Files[:0]
	for i, f := range t.Files {
		if p, ok := norm("files", i, f.Path); ok {
			files = append(files, File{Path: p, Grade: f.Grade})
		}
	}
	dup := duplicates(len(files), func(i int) string { return files[i].Path }, func(first, i int) {
		files[first].Grade = max(files[first].Grade, files[i].Grade)
	})
	t.Files = compact(files, dup)

	edits := t.EditFiles[:0]
	for i, e := range t.EditFiles {
		if p, ok := norm("expected_edit_files", i, e); ok {
			edits = append(edits, p)
		}
	}
	dup = duplicates(len(edits), func(i int) string { return n.Key(edits[i]) }, nil)
	if t.EditFiles = compact(edits, dup); len(t.EditFiles) == 0 {
		t.EditFiles = nil
	}

	var syms []events.Symbol
	seenSym := map[events.Symbol]bool{}
	for i, s := range t.Symbols {
		if p, ok := norm("symbols", i, s.File); ok {
			s.File = p
			if !seenSym[s] {
				seenSym[s] = true
				syms = append(syms, s)
			}
		}
	}
	t.Symbols = syms

	var chunks []events.LineRange
	seenChunk := map[events.LineRange]bool{}
	for i, c := range t.Chunks {
		if p, ok := norm("chunks", i, c.Path); ok {
			c.Path = p
			if !seenChunk[c] {
				seenChunk[c] = true
				chunks = append(chunks, c)
			}
		}
	}
	t.Chunks = chunks
	return bad
}

// Grades returns each file's grade keyed by the path as a retrieval-events
// document spells it: the ground-truth path normalized by paths, the way
// events.Normalize normalizes it (set paths.CWD to the session's working
// directory when the document was built with it). metrics.Options.Grades
// takes this map. Files that normalize to one path keep the highest grade.
func (t *Truth) Grades(paths events.PathNormalizer) map[string]int {
	if t == nil {
		return map[string]int{}
	}
	out := make(map[string]int, len(t.Files))
	for _, f := range t.Files {
		if p, ok := paths.File(f.Path, events.FromArgument); ok {
			out[p] = max(out[p], f.Grade)
		}
	}
	return out
}
