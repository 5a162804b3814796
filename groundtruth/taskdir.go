package groundtruth

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"path/filepath"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/internal/input"
	"github.com/agentretrieval/agentretrieval/internal/yamlerr"
	"github.com/agentretrieval/agentretrieval/internal/yamllimit"
)

// taskSource is one step of the task-folder chain.
type taskSource struct {
	rel  string // slash-separated, relative to the task folder
	conf Confidence
	load func(name string, data []byte) (*Truth, error)
}

// taskSources is the priority chain of LoadTaskDir, highest first. It
// follows the chain of CodeScaleBench's scripts/csb_metrics/ground_truth.py,
// for whose task folders these files are written.
var taskSources = []taskSource{
	{"tests/ground_truth.json", High, parseBenchTruth},
	{"tests/expected_defects.json", High, parseDefects},
	{"tests/expected_changes.json", High, parseChanges},
	{"tests/reference_fix.patch", High, parsePatchFile},
	{"tests/expected.diff", High, parsePatchFile},
	{"tests/expected.patch", High, parsePatchFile},
	{"solution/solve.sh", Medium, parseSolveScript},
	{"instruction.md", Low, parseInstruction},
}

// LoadTaskDir reads the ground truth of a benchmark task folder from the
// first of these files that names a file, in this order:
//
//  1. tests/ground_truth.json (high confidence unless the file sets its
//     own "confidence": "high", "medium" or "low"). Accepted: a list of
//     paths or file objects, or an object with any of "files",
//     "expected_edit_files", "symbols", "chunks" (this package's own
//     format) and the keys CodeScaleBench task families use:
//     "buggy_files" with "buggy_functions"; "entries" and "steps" (objects
//     naming a "file"); "file_path" with "target_function";
//     "canonical_path"; "file_references" (checklist regexes, whose
//     patterns that read as plain paths once "\." is unescaped are kept,
//     at medium confidence since such patterns are often path suffixes).
//     A file object names its path under "path", "file", "file_path" or
//     "filename" and may grade it under "grade" or "relevance" (an integer
//     >= 0). A chunk is an object with a path and "start"/"end",
//     "line_start"/"line_end", "start_line"/"end_line",
//     "startLine"/"endLine", or one "line". A symbol is {"file", "symbol"}
//     ("path" and "name" are synonyms; "repo" is ignored); a bare function
//     name, as in "buggy_functions", belongs to the only file when there is
//     exactly one and is dropped otherwise.
//  2. tests/expected_defects.json (high): defect annotations, a list or an
//     object holding one under "defects" or "expected_defects". Each
//     defect's path (keys as for file objects) is a file, and its lines
//     (keys as for chunks) a chunk; "symbol" or "function" is a symbol.
//     Defects naming no file are skipped.
//  3. tests/expected_changes.json (high): the files a change touches, as a
//     list or under "expected_files", "files", "changed_files",
//     "files_changed" or "expected_changes". They are files and edit files.
//  4. tests/reference_fix.patch, tests/expected.diff, tests/expected.patch
//     (high), read by [ParseDiff].
//  5. solution/solve.sh (medium): the patches in its here-documents (cat >
//     fix.patch <<'EOF', git apply <<EOF, patch -p1 <<-EOF, ...), read by
//     [ParseDiff] and merged. Here-documents that are not diffs are
//     skipped.
//  6. instruction.md (low): file paths mentioned in the text, in backticks
//     or not, that have a directory and an extension ("src/auth/token.go",
//     "/workspace/pkg/a.py:12"). URLs, domains and paths outside the
//     workspace are left out.
//
// Source is the path of the file used. Keys these files carry besides the
// ground truth are ignored, as are entries that name a directory. A file
// that is present but malformed is an error, not a reason to fall back to
// a less trusted source. A folder where no file names a file gives an
// error wrapping ErrNoGroundTruth that lists what was looked for.
func LoadTaskDir(dir string) (*Truth, error) {
	info, err := input.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s: not a directory: expected a task folder", dir)
	}
	var tried []string
	for _, s := range taskSources {
		name := filepath.Join(dir, filepath.FromSlash(s.rel))
		data, err := input.ReadFile(name, maxInput.Or(input.TruthLimit))
		if errors.Is(err, fs.ErrNotExist) {
			tried = append(tried, s.rel+" (absent)")
			continue
		}
		if err != nil {
			return nil, err
		}
		t, err := s.load(name, data)
		if err != nil {
			return nil, err
		}
		if t == nil || len(t.Paths()) == 0 {
			tried = append(tried, s.rel+" (names no file)")
			continue
		}
		t.Source = name
		if t.Confidence == "" {
			t.Confidence = s.conf
		}
		return t, nil
	}
	return nil, fmt.Errorf("%s: %w: looked for %s", dir, ErrNoGroundTruth, strings.Join(tried, ", "))
}

// benchFile is a file entry of a benchmark file: a path, or an object
// naming one.
type benchFile struct {
	path  string
	grade int
	node  ast.Node
}

func (f *benchFile) UnmarshalYAML(node ast.Node) error {
	*f = benchFile{grade: 1, node: node}
	switch n := node.(type) {
	case *ast.StringNode:
		f.path = n.Value
		return nil
	case *ast.NullNode:
		return nil
	case *ast.MappingNode, *ast.MappingValueNode:
	default:
		return yamlerr.At("", node, "expected a path or an object with a \"path\" or \"file\"")
	}
	var m struct {
		Path      string   `yaml:"path"`
		File      string   `yaml:"file"`
		FilePath  string   `yaml:"file_path"`
		Filename  string   `yaml:"filename"`
		Grade     *float64 `yaml:"grade"`
		Relevance *float64 `yaml:"relevance"`
	}
	if err := yaml.NodeToValue(node, &m); err != nil {
		return err
	}
	f.path = firstNonEmpty(m.Path, m.File, m.FilePath, m.Filename)
	g := m.Grade
	if g == nil {
		g = m.Relevance
	}
	if g != nil {
		if *g < 0 || *g != math.Trunc(*g) || *g > math.MaxInt32 {
			return yamlerr.At("", node, "grade %v: expected an integer >= 0", *g)
		}
		f.grade = int(*g)
	}
	return nil
}

// benchSpan is an entry that names a file and maybe lines in it: a chunk
// or a defect annotation.
type benchSpan struct {
	path, symbol string
	start, end   int // 0 when the entry gives no lines
	node         ast.Node
}

func (s *benchSpan) UnmarshalYAML(node ast.Node) error {
	*s = benchSpan{node: node}
	if n, ok := node.(*ast.StringNode); ok {
		s.path = n.Value
		return nil
	}
	var m struct {
		Path           string `yaml:"path"`
		File           string `yaml:"file"`
		FilePath       string `yaml:"file_path"`
		Filename       string `yaml:"filename"`
		Start          *int   `yaml:"start"`
		LineStart      *int   `yaml:"line_start"`
		StartLine      *int   `yaml:"start_line"`
		StartLineCamel *int   `yaml:"startLine"`
		End            *int   `yaml:"end"`
		LineEnd        *int   `yaml:"line_end"`
		EndLine        *int   `yaml:"end_line"`
		EndLineCamel   *int   `yaml:"endLine"`
		Line           *int   `yaml:"line"`
		Symbol         string `yaml:"symbol"`
		Function       string `yaml:"function"`
	}
	switch node.(type) {
	case *ast.MappingNode, *ast.MappingValueNode:
	default:
		return yamlerr.At("", node, "expected an object with a path and a line range")
	}
	if err := yaml.NodeToValue(node, &m); err != nil {
		return err
	}
	s.path = firstNonEmpty(m.Path, m.File, m.FilePath, m.Filename)
	s.symbol = firstNonEmpty(m.Symbol, m.Function)
	start := firstSet(m.Start, m.LineStart, m.StartLine, m.StartLineCamel, m.Line)
	end := firstSet(m.End, m.LineEnd, m.EndLine, m.EndLineCamel, m.Line)
	switch {
	case start == nil && end == nil:
		return nil
	case start == nil:
		return yamlerr.At("", node, "line range with an end but no start: expected a start line")
	case end == nil:
		end = start // a range given by its first line is that line
	}
	if *start < 1 || *end < *start {
		return yamlerr.At("", node, "lines %d-%d: expected 1 <= start <= end", *start, *end)
	}
	s.start, s.end = *start, *end
	return nil
}

// benchSymbol is a symbol entry: {"file", "symbol"} or a bare name.
type benchSymbol events.Symbol

func (s *benchSymbol) UnmarshalYAML(node ast.Node) error {
	if n, ok := node.(*ast.StringNode); ok {
		*s = benchSymbol{Symbol: n.Value}
		return nil
	}
	var m struct {
		File   string `yaml:"file"`
		Path   string `yaml:"path"`
		Symbol string `yaml:"symbol"`
		Name   string `yaml:"name"`
	}
	if err := yaml.NodeToValue(node, &m); err != nil {
		return err
	}
	*s = benchSymbol{File: firstNonEmpty(m.File, m.Path), Symbol: firstNonEmpty(m.Symbol, m.Name)}
	return nil
}

// benchTruth is tests/ground_truth.json in the shapes LoadTaskDir accepts.
type benchTruth struct {
	Files             []benchFile   `yaml:"files"`
	ExpectedEditFiles []benchFile   `yaml:"expected_edit_files"`
	Symbols           []benchSymbol `yaml:"symbols"`
	Chunks            []benchSpan   `yaml:"chunks"`
	// Confidence is any: some files hold a number here (a curator's score),
	// which is not one of ours and is ignored.
	Confidence     any           `yaml:"confidence"`
	BuggyFiles     []benchFile   `yaml:"buggy_files"`
	BuggyFunctions []benchSymbol `yaml:"buggy_functions"`
	Entries        []benchFile   `yaml:"entries"`
	Steps          []benchFile   `yaml:"steps"`
	FilePath       string        `yaml:"file_path"`
	TargetFunction string        `yaml:"target_function"`
	CanonicalPath  string        `yaml:"canonical_path"`
	FileReferences []struct {
		Patterns []string `yaml:"patterns"`
	} `yaml:"file_references"`
}

// decodeLenient decodes JSON or YAML, ignoring unknown keys: a document
// starting with '[' or '-' into list, any other into obj. Errors name
// file:line:col.
func decodeLenient(name string, data []byte, list, obj any) error {
	data = yamllimit.TrimBOM(data)
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return &yamlerr.Error{File: name, Msg: "empty file: expected JSON"}
	}
	v := obj
	if trimmed[0] == '[' || trimmed[0] == '-' {
		v = list
	}
	return yamlerr.From(name, yamllimit.Unmarshal(name, data, v, truthLimits))
}

func parseBenchTruth(name string, data []byte) (*Truth, error) {
	var b benchTruth
	if err := decodeLenient(name, data, &b.Files, &b); err != nil {
		return nil, err
	}
	t := &Truth{}
	// seen are the paths added, as written: duplicates are merged only by
	// normalize.
	seen := map[string]bool{}
	add := func(f File) {
		t.add(f)
		seen[f.Path] = true
	}
	for _, list := range [][]benchFile{b.Files, b.BuggyFiles} {
		for _, f := range list {
			if f.path == "" {
				return nil, yamlerr.From(name, yamlerr.At("", f.node, "file entry has no path: expected a path or an object with \"path\" or \"file\""))
			}
			add(File{Path: f.path, Grade: f.grade})
		}
	}
	for _, list := range [][]benchFile{b.Entries, b.Steps} {
		for _, f := range list {
			if f.path != "" {
				add(File{Path: f.path, Grade: f.grade})
			}
		}
	}
	for _, p := range []string{b.FilePath, b.CanonicalPath} {
		if p != "" {
			add(File{Path: p, Grade: 1})
		}
	}
	if b.FilePath != "" && b.TargetFunction != "" {
		t.Symbols = append(t.Symbols, events.Symbol{File: b.FilePath, Symbol: b.TargetFunction})
	}
	fromRefs := false
	for _, r := range b.FileReferences {
		for _, pat := range r.Patterns {
			if p, ok := pathFromPattern(pat); ok && !seen[p] {
				add(File{Path: p, Grade: 1})
				fromRefs = true
			}
		}
	}
	for _, e := range b.ExpectedEditFiles {
		if e.path != "" {
			t.EditFiles = append(t.EditFiles, e.path)
		}
	}
	for _, c := range b.Chunks {
		if c.path == "" || c.start == 0 {
			return nil, yamlerr.From(name, yamlerr.At("", c.node, "chunk: expected a path and a line range (\"start\"/\"end\" or \"line_start\"/\"line_end\")"))
		}
		t.Chunks = append(t.Chunks, events.LineRange{Path: c.path, Start: c.start, End: c.end})
	}
	for _, list := range [][]benchSymbol{b.Symbols, b.BuggyFunctions} {
		for _, s := range list {
			t.addSymbol(events.Symbol(s), len(seen) == 1)
		}
	}

	switch c, _ := b.Confidence.(string); Confidence(strings.ToLower(c)) {
	case High, Medium, Low:
		t.Confidence = Confidence(strings.ToLower(c))
	default:
		if fromRefs {
			t.Confidence = Medium
		}
	}
	if err := t.normalize(true); err != nil {
		return nil, err
	}
	return t, nil
}

// addSymbol records a symbol, giving a symbol without a file the only file
// there is (oneFile: t.Files names one path, however often); with several
// files its file is unknown and it is dropped.
func (t *Truth) addSymbol(s events.Symbol, oneFile bool) {
	if s.Symbol == "" {
		return
	}
	if s.File == "" {
		if !oneFile {
			return
		}
		s.File = t.Files[0].Path
	}
	t.Symbols = append(t.Symbols, s)
}

// pathFromPattern recovers a path from a checklist regex such as
// "pkg/server/handler\\.go": it unescapes "\." "\-" "\/" "\_" and keeps the
// result only when no regex syntax is left and it has a directory.
func pathFromPattern(pat string) (string, bool) {
	p := strings.NewReplacer(`\.`, ".", `\-`, "-", `\/`, "/", `\_`, "_").Replace(pat)
	if strings.ContainsAny(p, `\^$|()[]{}*+?`) || !strings.Contains(strings.Trim(p, "/"), "/") {
		return "", false
	}
	return p, true
}

func parseDefects(name string, data []byte) (*Truth, error) {
	var list []benchSpan
	var obj struct {
		Defects         []benchSpan `yaml:"defects"`
		ExpectedDefects []benchSpan `yaml:"expected_defects"`
	}
	if err := decodeLenient(name, data, &list, &obj); err != nil {
		return nil, err
	}
	list = append(list, obj.Defects...)
	list = append(list, obj.ExpectedDefects...)
	t := &Truth{}
	for _, d := range list {
		if d.path == "" {
			continue
		}
		t.add(File{Path: d.path, Grade: 1})
		if d.start > 0 {
			t.Chunks = append(t.Chunks, events.LineRange{Path: d.path, Start: d.start, End: d.end})
		}
		if d.symbol != "" {
			t.Symbols = append(t.Symbols, events.Symbol{File: d.path, Symbol: d.symbol})
		}
	}
	if err := t.normalize(true); err != nil {
		return nil, err
	}
	return t, nil
}

func parseChanges(name string, data []byte) (*Truth, error) {
	var list []benchFile
	var obj struct {
		ExpectedFiles   []benchFile `yaml:"expected_files"`
		Files           []benchFile `yaml:"files"`
		ChangedFiles    []benchFile `yaml:"changed_files"`
		FilesChanged    []benchFile `yaml:"files_changed"`
		ExpectedChanges []benchFile `yaml:"expected_changes"`
	}
	if err := decodeLenient(name, data, &list, &obj); err != nil {
		return nil, err
	}
	for _, l := range [][]benchFile{obj.ExpectedFiles, obj.Files, obj.ChangedFiles, obj.FilesChanged, obj.ExpectedChanges} {
		list = append(list, l...)
	}
	t := &Truth{}
	for _, f := range list {
		if f.path == "" {
			continue
		}
		t.add(File{Path: f.path, Grade: f.grade})
		t.EditFiles = append(t.EditFiles, f.path)
	}
	if err := t.normalize(true); err != nil {
		return nil, err
	}
	return t, nil
}

func parsePatchFile(name string, data []byte) (*Truth, error) {
	t, err := ParseDiff(name, bytes.NewReader(data))
	if errors.Is(err, errNoChanges) {
		return nil, nil
	}
	return t, err
}

// parseSolveScript reads the patches embedded in a solution script.
func parseSolveScript(name string, data []byte) (*Truth, error) {
	var out *Truth
	for _, h := range heredocs(string(data)) {
		t, err := parseDiff(name, strings.NewReader(h.body), h.line)
		if errors.Is(err, errNoChanges) {
			continue
		}
		if err != nil {
			if !looksLikeDiff(h.body) {
				continue // a script or a file body that happens to trip the parser
			}
			return nil, err
		}
		if out == nil {
			out = &Truth{}
		}
		out.merge(t)
	}
	if out != nil {
		if err := out.normalize(true); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// merge adds everything in u to t.
func (t *Truth) merge(u *Truth) {
	for _, f := range u.Files {
		t.add(f)
	}
	t.Symbols = append(t.Symbols, u.Symbols...)
	t.EditFiles = append(t.EditFiles, u.EditFiles...)
	t.Chunks = append(t.Chunks, u.Chunks...)
}

func looksLikeDiff(s string) bool {
	return strings.HasPrefix(s, "diff --git ") || strings.Contains(s, "\ndiff --git ") ||
		strings.HasPrefix(s, "@@ -") || strings.Contains(s, "\n@@ -")
}

// A heredoc is the body of a shell here-document and the line it starts on.
type heredoc struct {
	line int
	body string
}

// heredocs returns the here-documents of a shell script in order. It knows
// the forms that embed patches: <<WORD, <<'WORD', <<"WORD", <<\WORD and the
// tab-stripping <<-WORD. A body runs to the line holding only WORD, or to
// the end of the script, as bash reads an unterminated one.
func heredocs(script string) []heredoc {
	lines := strings.Split(script, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	var out []heredoc
	for i := 0; i < len(lines); i++ {
		for _, d := range heredocWords(lines[i]) {
			start := i + 1
			j := start
			for ; j < len(lines); j++ {
				l := lines[j]
				if d.dash {
					l = strings.TrimLeft(l, "\t")
				}
				if l == d.word {
					break
				}
			}
			body := lines[start:min(j, len(lines))]
			if d.dash {
				for k, l := range body {
					body[k] = strings.TrimLeft(l, "\t")
				}
			}
			out = append(out, heredoc{line: start + 1, body: strings.Join(body, "\n") + "\n"})
			i = j
		}
	}
	return out
}

type heredocWord struct {
	word string
	dash bool
}

// heredocWords returns the here-document delimiters a command line opens.
func heredocWords(line string) []heredocWord {
	if strings.HasPrefix(strings.TrimSpace(line), "#") {
		return nil
	}
	var out []heredocWord
	for {
		i := strings.Index(line, "<<")
		if i < 0 {
			return out
		}
		line = line[i+2:]
		if strings.HasPrefix(line, "<") { // <<< is a here-string
			line = strings.TrimLeft(line, "<")
			continue
		}
		var d heredocWord
		if strings.HasPrefix(line, "-") {
			d.dash, line = true, line[1:]
		}
		line = strings.TrimLeft(line, " \t")
		switch {
		case strings.HasPrefix(line, "'") || strings.HasPrefix(line, `"`):
			q := line[:1]
			if end := strings.Index(line[1:], q); end > 0 {
				d.word, line = line[1:1+end], line[2+end:]
			}
		default:
			line = strings.TrimPrefix(line, `\`)
			n := 0
			for n < len(line) && (isWordByte(line[n]) || n > 0 && line[n] >= '0' && line[n] <= '9') {
				n++
			}
			d.word, line = line[:n], line[n:]
		}
		if d.word != "" {
			out = append(out, d)
		}
	}
}

func isWordByte(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// parseInstruction collects the file paths an instruction mentions.
func parseInstruction(name string, data []byte) (*Truth, error) {
	t := &Truth{}
	var n events.PathNormalizer
	for _, tok := range strings.FieldsFunc(string(data), isInstructionSeparator) {
		if p, ok := instructionPath(n, tok); ok {
			t.add(File{Path: p, Grade: 1})
		}
	}
	if err := t.normalize(true); err != nil {
		return nil, err
	}
	return t, nil
}

// isInstructionSeparator splits prose into candidate paths: white space,
// Markdown's backticks, emphasis and link brackets, quotes and list
// punctuation never belong to the paths worth finding.
func isInstructionSeparator(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '`', '"', '\'', '(', ')', '[', ']', '<', '>', ',', ';', '|', '*', '{', '}', '!', '?':
		return true
	}
	return false
}

// instructionPath reports whether a token of an instruction is a file path
// in the repository: it has a directory and an extension with a letter in
// it, is no URL or domain, and stays inside the workspace once normalized.
// Trailing sentence punctuation and a ":line" or "#L12" suffix are dropped.
func instructionPath(n events.PathNormalizer, tok string) (string, bool) {
	tok = strings.TrimRight(tok, ".:")
	if i := strings.Index(tok, "#L"); i > 0 {
		tok = tok[:i]
	}
	// "a.go:12" and "a.go:12:5" name a file at a line.
	for {
		i := strings.LastIndexByte(tok, ':')
		if i < 0 || i == len(tok)-1 || strings.Trim(tok[i+1:], "0123456789") != "" {
			break
		}
		tok = tok[:i]
	}
	if strings.Contains(tok, "://") || strings.ContainsAny(tok, "@=") || strings.HasPrefix(tok, "-") {
		return "", false
	}
	first, _, hasDir := strings.Cut(strings.TrimPrefix(tok, "/"), "/")
	// A first element with a dot inside ("github.com") is a domain, not a
	// folder; "./x" and dotfolders (".github") are folders.
	if !hasDir || strings.Contains(strings.TrimLeft(first, "."), ".") {
		return "", false
	}
	base := path.Base(tok)
	if dot := strings.LastIndexByte(base, '.'); dot <= 0 || dot == len(base)-1 {
		return "", false
	}
	p, ok := n.File(tok, events.FromText)
	if !ok || strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") || len(p) > 1 && p[1] == ':' {
		return "", false
	}
	return p, true
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func firstSet(ps ...*int) *int {
	for _, p := range ps {
		if p != nil {
			return p
		}
	}
	return nil
}
