package events

import (
	"bytes"
	"encoding/json"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"

	"github.com/agentretrieval/agentretrieval/internal/jsonmap"
	"github.com/agentretrieval/agentretrieval/trace"
)

// Limits that keep extraction linear and bounded on pathological input.
const (
	// maxFilesPerCall caps the files one call can name; a `find /` over a
	// node_modules tree lists hundreds of thousands.
	maxFilesPerCall = 10000
	// maxRangesPerCall caps the line ranges one call can record.
	maxRangesPerCall = 100000
	// maxLineNumber bounds line numbers taken from text; larger numbers are
	// not line numbers of source files.
	maxLineNumber = 100_000_000
)

// Argument keys, by role. Tools name the same thing many ways: Claude Code
// (file_path, notebook_path), SWE-agent and OpenHands (path), Copilot and
// Cursor (filePath, target_file, relative_workspace_path), Gemini CLI
// (absolute_path), MCP servers (file, uri).
var (
	fileArgKeys = []string{
		"file_path", "filePath", "file", "filename", "fileName", "target_file",
		"notebook_path", "absolute_path", "relative_path", "relative_workspace_path", "uri",
	}
	fileListArgKeys = []string{"paths", "files", "file_paths", "filePaths", "absolute_paths"}
	// scopeArgKeys name a file for read and write tools but usually a
	// directory for searches and listings.
	scopeArgKeys  = []string{"path", "dir", "directory", "dir_path", "folder"}
	queryArgKeys  = []string{"query", "pattern", "regex", "q", "search_term", "keyword", "searchQuery", "search"}
	symbolArgKeys = []string{"symbol", "symbolName", "symbol_name", "identifier", "qualifiedName", "symbols"}
	// commandArgKeys hold the command of a shell tool: Claude Code and
	// OpenHands use command, Codex cmd (string or argv), Terminus
	// keystrokes.
	commandArgKeys = []string{"command", "cmd", "keystrokes", "script", "code"}
	workdirArgKeys = []string{"workdir", "cwd", "working_directory", "dir", "dir_path", "directory"}
)

// shellToolNames are tools whose argument is a shell command even when the
// taxonomy rule does not say so.
var shellToolNames = map[string]bool{
	"bash": true, "run": true, "shell": true, "exec_command": true, "execute_bash": true,
	"bash_command": true, "local_shell": true, "run_terminal_cmd": true, "run_in_terminal": true,
	"run_shell_command": true, "execute_command": true, "terminal": true,
}

// Extract reads one tool call for the files it named, the line ranges it
// showed the agent, the symbols it asked about and its query. The rule is
// the taxonomy rule that matched the call's name, applied to the call's
// arguments when it classifies per call (Rule.By); it decides how arguments
// and results are read. Arguments are first read in the agents' own
// conventions (SWE-agent command lines, apply_patch headers, zero-based
// offsets; see callArguments):
//
//   - file_read: file arguments are Read; ranges come from offset/limit,
//     view_range, startLine/endLine and line arguments, or, when the result
//     is line-numbered (Claude Code's "  12→", `cat -n`'s "  12<TAB>",
//     SWE-agent's "[File: ...]" with "12:"), from the numbers it shows.
//   - file_write: file arguments are Written; the result is not read.
//   - searches, listings, navigation, deep search, commit search: the path
//     argument is a scope (kept only when it looks like a file); the result
//     is read as grep output, a listing, a tree, a diff, "File:/Lines:"
//     text, or a JSON document (MCP servers), see the results file.
//   - other: arguments only; results of unknown tools are not trusted.
//
// Shell tools (rule.Shell, or a name such as Bash, run, exec_command) are
// parsed as bash (with mvdan.cc/sh/v3/syntax), or taken word by word when
// the command is an argv array: reading through the shell is reading.
// Their Extraction carries a Category and Class when a recognized command
// decides them.
//
// A call whose result is an error (IsError, or a Claude Code
// "<tool_use_error>") still names its files, but nothing counts as read or
// written and no ranges are recorded. Shell calls are the exception for
// IsError alone: a command that exits non-zero (grep with no match, a
// failing test after a cat) has still shown its output.
//
// Arguments that cannot be used are Warnings, never a silent loss: a
// number out of float64's range leaves the other arguments readable, and
// an offset, limit or line that is not a line number ("abc", -5) credits
// no lines.
//
// Extract never panics and bounds its work: it reads the first 8 MiB and
// 200,000 lines of a result, decodes JSON results of up to 8 MiB and a
// million values, parses the first 1 MiB of a shell command, and records
// at most 10,000 files per call.
func Extract(c *trace.ToolCall, rule Rule, n PathNormalizer) Extraction {
	if c == nil {
		return Extraction{}
	}
	return extract(c, rule, n, false).finish()
}

// RangeOrigins keeps apart the two origins of a call's line ranges: the
// ranges its arguments asked for (a Read's offset and limit, a sed -n
// script, a read window) and the ranges its result showed (numbered lines,
// grep hits, "File:/Lines:" headers). Each is coalesced per file and
// ordered like Extraction.Ranges, which takes, per file, the result's
// ranges when it showed any, else the arguments'.
type RangeOrigins struct {
	Args, Result []LineRange
}

// ExtractOrigins is Extract that also returns the ranges by origin, for
// writers of line-range datasets, which record each range with where it
// came from.
func ExtractOrigins(c *trace.ToolCall, rule Rule, n PathNormalizer) (Extraction, RangeOrigins) {
	if c == nil {
		return Extraction{}, RangeOrigins{}
	}
	col := extract(c, rule, n, false)
	return col.finish(), col.origins()
}

// extract collects what Extract reports of a call. With checked, the
// reader checked the call's arguments as JSON as it read them
// (trace.Session.ArgumentsChecked).
func extract(c *trace.ToolCall, rule Rule, n PathNormalizer, checked bool) *collector {
	col := newCollector(n)
	args, raw, problems := decodeArguments(c.Arguments, rule.By, checked)
	// Nothing the collector keeps refers to the map: its strings are
	// taken out, and it can fill the next call's arguments.
	defer jsonmap.Recycle(args)
	for _, p := range problems {
		col.warnf("arguments: %s", p)
	}
	args = callArguments(c.Name, rule, args)
	toolError := strings.HasPrefix(strings.TrimSpace(c.Result), "<tool_use_error>")
	if cmd, ok := shellCommand(c.Name, rule, args, raw); ok {
		failed := c.IsError || c.HasResult && uncaughtTraceback(c.Result)
		a := extractShell(col, cmd, c.Result, toolError, failed)
		if !c.HasResult {
			// No output was recorded: nothing was shown.
			col.clearReads()
		}
		if toolError {
			col.clearEffects()
		}
		col.failed = failed && !c.IsError
		if toolError || failed {
			col.clearWrites()
			col.failedTargets(c.Result, a.names)
		} else if c.HasResult {
			col.dropMissing(c.Result, a.names)
		}
		return col
	}
	// A rule that classifies per call (By) is applied to this call's
	// arguments; the Extraction reports the outcome when it differs.
	perCall := rule.ForCall(args)
	col.category, col.class = changedFrom(perCall.Category, rule.Category), changedFrom(perCall.Class, rule.Class)
	extractTool(col, c, perCall, args, toolError || c.IsError)
	if toolError || c.IsError {
		col.clearEffects()
	}
	if toolError || c.IsError || col.failed {
		col.clearWrites()
		col.failedTargets(c.Result, nil)
	}
	return col
}

// changedFrom returns v when it differs from base, else the zero value.
func changedFrom[T comparable](v, base T) T {
	var zero T
	if v == base {
		return zero
	}
	return v
}

// unreadArgKeys name arguments extraction never reads: the text a write
// or an edit puts in a file (Claude Code's Write, Edit and MultiEdit,
// Gemini CLI's write_file, the str_replace_editor family, NotebookEdit)
// and Claude Code's todo list. They are most of the bytes of a session's
// arguments, so decodeArguments checks their values but leaves them out:
// they read as nil. A rule whose By names one of them still sees its
// value.
var unreadArgKeys = map[string]bool{
	"content": true, "old_string": true, "new_string": true, "edits": true, "file_text": true,
	"old_str": true, "new_str": true, "new_source": true, "todos": true,
}

// decodeArguments returns the arguments as an object, or, for traces that
// only record a command line, the JSON string itself. problems says what
// of an object could not be decoded (trace.DecodeArguments). The values
// of unreadArgKeys read as nil, but for by, the key of the rule's By.
// checked says the reader checked a as JSON already
// (trace.Session.ArgumentsChecked): the strings of those values are then
// not checked again.
func decodeArguments(a json.RawMessage, by string, checked bool) (args map[string]any, raw string, problems []string) {
	// Trimmed in place: arguments can be large (a Write's content), and
	// a copy to a string and back would cost more than the decoding.
	trimmed := bytes.TrimSpace(a)
	if len(trimmed) == 0 {
		return nil, "", nil
	}
	switch trimmed[0] {
	case '{':
		unread := func(k string) bool { return unreadArgKeys[k] && k != by }
		decode := jsonmap.Decode
		if checked {
			decode = jsonmap.DecodeChecked
		}
		if m, ok := decode(trimmed, unread); ok {
			return m, "", nil
		}
		// Arguments encoding/json refuses, or with a number float64
		// cannot hold: the path that says what is wrong.
		m, problems := trace.DecodeArguments(json.RawMessage(trimmed))
		for k := range m {
			if unread(k) {
				m[k] = nil
			}
		}
		return m, "", problems
	case '"':
		var s string
		if json.Unmarshal(trimmed, &s) == nil {
			return nil, s, nil
		}
	}
	return nil, "", nil
}

// shellCommand returns the command of a shell tool call: a script, or an
// argv array (Codex's shell and local_shell calls), which runs without a
// shell: each element is one word.
func shellCommand(name string, rule Rule, args map[string]any, raw string) (shellInput, bool) {
	if !rule.Shell && !shellToolNames[strings.ToLower(name)] {
		return shellInput{}, false
	}
	if args == nil {
		return shellInput{script: raw}, raw != ""
	}
	var in shellInput
keys:
	for _, k := range commandArgKeys {
		v, present := args[k]
		if !present {
			continue
		}
		if k == "code" {
			// "code" holds a script only for bash-flavoured tools; an
			// execute tool with a language other than shell runs a program.
			if lang, _ := args["language"].(string); lang != "" && !isShellLanguage(lang) {
				continue
			}
		}
		switch v := v.(type) {
		case string:
			if v != "" {
				in.script = v
				break keys
			}
		case []any:
			if argv, ok := stringArray(v); ok {
				in.argv = argv
				break keys
			}
		}
	}
	for _, k := range workdirArgKeys {
		if s, _ := args[k].(string); s != "" {
			in.workdir = s
			break
		}
	}
	// A tool named like a shell but given no command (a "run" tool of
	// some other kind) is read like any other tool.
	return in, in.script != "" || len(in.argv) > 0
}

// stringArray returns an array of strings; false when it is empty or
// holds anything else.
func stringArray(v []any) ([]string, bool) {
	out := make([]string, 0, len(v))
	for _, e := range v {
		s, ok := e.(string)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, len(out) > 0
}

func isShellLanguage(l string) bool {
	switch strings.ToLower(l) {
	case "bash", "sh", "shell", "zsh", "console":
		return true
	}
	return false
}

// extractTool handles every non-shell tool.
func extractTool(col *collector, c *trace.ToolCall, rule Rule, args map[string]any, failed bool) {
	cat, class := rule.Category, rule.Class
	// The str_replace_editor family (SWE-agent, OpenHands, Anthropic's text
	// editor tool) is one tool for viewing and editing; its command argument
	// says which.
	listing := false
	// A rule with By has already classified the call; a view of a
	// directory is still a listing.
	if isEditorTool(c.Name) {
		if command, _ := args["command"].(string); command != "" {
			switch command {
			case "view":
				p, _ := args["path"].(string)
				if strings.HasPrefix(strings.TrimSpace(c.Result), "Here's the files and directories") || (p != "" && !looksFile(p)) {
					cat, class, listing = FileSearch, FileLevel, true
				} else if rule.By == "" {
					cat, class = FileRead, FileLevel
				}
			case "create", "str_replace", "insert", "undo_edit", "write", "edit":
				if rule.By == "" {
					cat, class = FileWrite, Edit
				}
			}
		}
	}
	if cat != rule.Category {
		col.category = cat
	}
	if class != rule.Class {
		col.class = class
	}
	read := cat == FileRead
	write := cat == FileWrite

	var primary string // the file a read is about
	addArg := func(p string, origin PathOrigin) {
		np, ok := col.n.File(p, origin)
		if !ok {
			return
		}
		col.addFile(np, read, write, false)
		if primary == "" {
			primary = np
		}
	}
	for _, k := range fileArgKeys {
		for p := range stringValues(args[k]) {
			addArg(p, FromArgument)
		}
	}
	for _, k := range fileListArgKeys {
		for p := range stringValues(args[k]) {
			addArg(p, FromArgument)
		}
	}
	if read {
		col.windowArgs(args)
	}
	scope := ""
	for _, k := range scopeArgKeys {
		for p := range stringValues(args[k]) {
			if (read || write) && !listing {
				addArg(p, FromArgument)
				continue
			}
			addArg(p, FromText)
			if scope == "" && !looksFile(p) {
				scope = strings.TrimSpace(p)
			}
		}
	}
	if !write {
		// An edit's "search" or "pattern" is text to replace, not a query.
		col.setQuery(firstString(args, queryArgKeys))
	}
	for _, k := range symbolArgKeys {
		for s := range stringValues(args[k]) {
			col.addSymbol(s)
		}
	}
	if cat == SymbolNavigation || class == Semantic {
		for s := range stringValues(args["name"]) {
			col.addSymbol(s)
		}
	}

	result := c.Result
	if write && !failed && failedEdit(result) {
		col.failed = true
	}
	if failed || strings.TrimSpace(result) == "" && !read {
		return
	}
	switch {
	case read && !listing && col.folderListing(primary, result):
		// A read of a folder lists it.
	case read && !listing && manyFiles(result):
		col.manyFilesRead(result)
	case read && !listing:
		result = dropFinalNewlineLine(result)
		if primary != "" {
			col.argRanges(primary, args, lastNumberedLine(result))
		}
		col.scanResult(result, resultScan{forms: formNumbered | formFileLines | formJSON, single: primary, read: true, strictJSON: true})
		if primary != "" && len(col.resRng[col.n.Key(primary)]) == 0 {
			if n, ok := fencedLines(result); ok {
				if n > 0 {
					start := 1
					if rs := col.argRng[col.n.Key(primary)]; len(rs) > 0 {
						start = rs[0].Start
					}
					col.addResultRange(primary, start, start+n-1)
				}
			} else if first, last, ok := consecutiveNumbered(result); ok {
				col.addResultRange(primary, first, last)
			} else if len(col.argRng[col.n.Key(primary)]) == 0 && !hasRangeArgs(args) {
				col.plainRead(primary, result)
			}
		}
	case write:
		// SWE-agent's edit has no file argument: it edits the open file,
		// which its result names in a header.
		if primary == "" && !col.failed {
			col.editedFileHeader(result)
		}
		// An editor that answers with numbered lines of the file (SWE-agent's
		// window, a cat -n snippet) shows them. Of a refused edit, only the
		// file as it is counts, not as the edit would have made it.
		shown := result
		if i := strings.Index(result, sweOriginalCode); i >= 0 {
			shown = result[i:]
		} else if strings.Contains(result, "This is how your edit would have looked") {
			shown = ""
		}
		forms := formNumbered | formFileLines
		if strings.HasPrefix(shown, "```diff\n") && unifiedDiff(shown) {
			// An editor that answers the model with the diff of its change,
			// fenced as markdown (Amp's edit_file), shows the diff's new
			// side. (A diff kept beside the result for display, as
			// OpenHands keeps one, is not shown.)
			forms |= formDiff
		}
		col.scanResult(shown, resultScan{forms: forms, single: primary, read: true})
	case cat == OtherCategory || cat == "":
		// Results of unknown tools (Task summaries, todo lists) mention
		// files in prose; trusting them would invent retrievals. A unified
		// diff (SWE-agent's submit, a review tool) shows its new side.
		if unifiedDiff(result) {
			col.scanResult(result, resultScan{forms: formDiff, read: true})
		}
	case col.matchTags(result):
		// Copilot's text search answered with match tags.
	case col.clineSearchHits(result):
		// Cline's search_files grouped its hits by file.
	default:
		s := resultScan{forms: formPaths | formGrep | formLsLong | formTree | formDiff | formFileLines | formJSON}
		if listing {
			s.forms = formPaths | formTree | formLsLong
		}
		// A search scoped to one file prints hits without the file name.
		if primary != "" && len(col.files) == 1 {
			s.single = primary
		}
		// A listing tool (list_dir) prints the bare names of the entries
		// of the directory it was given; paths with a slash in them are
		// already relative to the working directory.
		if cat == FileSearch && !strings.Contains(strings.ToLower(c.Name), "grep") {
			s.joinBare, s.bareDir, s.treeRoot = true, scope, scope
		}
		col.scanResult(result, s)
	}
}

// isEditorTool reports the str_replace_editor family of tools.
func isEditorTool(name string) bool {
	l := strings.ToLower(name)
	return strings.Contains(l, "str_replace") || l == "file_editor" || l == "text_editor"
}

// argRanges records the line ranges a read's arguments ask for. lastLine is
// the last line number shown in the result (0 when unknown); it resolves a
// view_range ending at -1.
func (c *collector) argRanges(file string, args map[string]any, lastLine int) {
	if args == nil {
		return
	}
	// Claude Code Read: offset is the 1-based first line, limit a count.
	// One that is not a line number leaves the range unknown: crediting
	// lines 1 to limit would be a guess.
	offset, hasOffset, badOffset := c.lineArg(args, "offset")
	limit, hasLimit, badLimit := c.lineArg(args, "limit")
	switch {
	case badOffset || badLimit:
	case hasOffset && hasLimit && limit > 0:
		start := max(offset, 1)
		c.addArgRange(file, start, start+limit-1)
	case hasLimit && limit > 0:
		c.addArgRange(file, 1, limit)
	}
	if v, ok := args["view_range"]; ok && v != nil {
		vr, _ := v.([]any)
		var start, end int
		var ok1, ok2 bool
		if len(vr) == 2 {
			start, ok1 = intValue(vr[0])
			end, ok2 = intValue(vr[1])
		}
		if ok1 && ok2 && start >= 0 && end >= -1 {
			if end == -1 {
				end = lastLine
			}
			c.addArgRange(file, max(start, 1), end)
		} else {
			c.warnf("view_range %s is not a [start, end] pair of line numbers; no lines credited from it", argText(v))
		}
	}
	for _, pair := range [][2]string{{"startLine", "endLine"}, {"start_line", "end_line"}, {"lineStart", "lineEnd"}, {"start_line_one_indexed", "end_line_one_indexed_inclusive"}} {
		start, ok1, bad1 := c.lineArg(args, pair[0])
		end, ok2, bad2 := c.endLineArg(args, pair[1])
		switch {
		case bad1 || bad2:
		case ok1 && ok2:
			if end == -1 {
				end = lastLine
			}
			c.addArgRange(file, start, end)
		case ok1 && lastLine >= start:
			c.addArgRange(file, start, lastLine)
		}
	}
	if line, ok, _ := c.lineArg(args, "line"); ok {
		c.addArgRange(file, line, line)
	}
}

// lineArg reads a line number or count argument. ok is false when the
// argument is absent (or null); bad is true, with a warning, when it is
// present but not a whole number of 0 or more ("abc", -5, true).
func (c *collector) lineArg(args map[string]any, key string) (n int, ok, bad bool) {
	v, present := args[key]
	if !present || v == nil {
		return 0, false, false
	}
	n, ok = intValue(v)
	if !ok || n < 0 {
		c.warnf("%s %s is not a line number; no lines credited from it", key, argText(v))
		return 0, false, true
	}
	return n, true, false
}

// endLineArg is lineArg for the end of a range, where -1 means the end of
// the file.
func (c *collector) endLineArg(args map[string]any, key string) (n int, ok, bad bool) {
	if n, ok := intValue(args[key]); ok && n == -1 {
		return n, true, false
	}
	return c.lineArg(args, key)
}

// argText shows an argument's value in a warning, as JSON, cut short.
func argText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}

// warnf records a problem with the call's arguments.
func (c *collector) warnf(format string, args ...any) {
	c.warnings = append(c.warnings, fmt.Sprintf(format, args...))
}

// stringValues yields the strings held by an argument: a string, or the
// strings of an array; blank ones are left out.
func stringValues(v any) iter.Seq[string] {
	// A sequence rather than a slice: most values are one string, and a
	// slice of it would be made for each argument of each call.
	return func(yield func(string) bool) {
		switch v := v.(type) {
		case string:
			if strings.TrimSpace(v) != "" {
				yield(v)
			}
		case []any:
			for _, e := range v {
				if s, ok := e.(string); ok && strings.TrimSpace(s) != "" {
					if !yield(s) {
						return
					}
				}
			}
		}
	}
}

func firstString(m map[string]any, keys []string) string {
	for _, k := range keys {
		if s, ok := m[k].(string); ok && strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// intValue reads a JSON number or a numeric string.
func intValue(v any) (int, bool) {
	switch v := v.(type) {
	case json.Number:
		// Only a number out of float64's range is left a json.Number
		// (trace.DecodeArguments): never a line number.
		return 0, false
	case float64:
		if v != v || v > maxLineNumber || v < -maxLineNumber {
			return 0, false
		}
		return int(v), true
	case string:
		i, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || i > maxLineNumber || i < -maxLineNumber {
			return 0, false
		}
		return i, true
	}
	return 0, false
}

// collector accumulates one call's extraction: files in order of first
// mention, ranges from arguments and from results, symbols and the query.
type collector struct {
	n        PathNormalizer
	files    []FileRef
	index    map[string]int         // by key; nil while lookup compares paths
	argRng   map[string][]LineRange // by key
	resRng   map[string][]LineRange // by key
	nRanges  int
	symbols  []string
	seenSym  map[string]bool
	query    string
	category Category
	class    Class
	// failed is set when the call's output shows it failed.
	failed bool
	// noRelative is the current result scan's resultScan.noRelative.
	noRelative bool
	// warnings are problems with the call's arguments.
	warnings []string
}

// addFile records a normalized path. Flags merge: Read and Written are
// OR-ed; FromResult stays true only while the file has never been named
// outside a result. It reports whether the file is (now) known.
func (c *collector) addFile(p string, read, written, fromResult bool) bool {
	if p == "" {
		return false
	}
	k := c.n.Key(p)
	if i, ok := c.lookup(k); ok {
		f := &c.files[i]
		f.Read = f.Read || read
		f.Written = f.Written || written
		f.FromResult = f.FromResult && fromResult
		return true
	}
	if len(c.files) >= maxFilesPerCall {
		return false
	}
	if c.index == nil && (c.n.FoldCase || len(c.files) >= linearFiles) {
		c.index = make(map[string]int, len(c.files)+1)
		for i, f := range c.files {
			c.index[c.n.Key(f.Path)] = i
		}
	}
	if c.index != nil {
		c.index[k] = len(c.files)
	}
	c.files = append(c.files, FileRef{Path: p, Read: read, Written: written, FromResult: fromResult})
	return true
}

// linearFiles is how many files a collector finds by comparing their
// paths, before it indexes them: most calls name one file or a few.
const linearFiles = 8

// lookup returns the index in c.files of the file whose key is k. Without
// an index, which only a collector that does not fold case and holds
// fewer than linearFiles files lacks, a file's key is its path.
func (c *collector) lookup(k string) (int, bool) {
	if c.index != nil {
		i, ok := c.index[k]
		return i, ok
	}
	for i := range c.files {
		if c.files[i].Path == k {
			return i, true
		}
	}
	return 0, false
}

func (c *collector) known(p string) bool {
	_, ok := c.lookup(c.n.Key(p))
	return ok
}

// addArgRange records a range the call's arguments asked for. It is used
// only when the result shows no line numbers for the file.
func (c *collector) addArgRange(p string, start, end int) {
	c.addRange(&c.argRng, p, start, end)
}

// addResultRange records a range the result showed.
func (c *collector) addResultRange(p string, start, end int) {
	c.addRange(&c.resRng, p, start, end)
}

func (c *collector) addRange(to *map[string][]LineRange, p string, start, end int) {
	if start < 1 || end < start || end > maxLineNumber || c.nRanges >= maxRangesPerCall {
		return
	}
	if !c.known(p) && !c.addFile(p, true, false, true) {
		return
	}
	k := c.n.Key(p)
	c.nRanges++
	if *to == nil {
		*to = map[string][]LineRange{}
	}
	into := *to
	rs := into[k]
	if n := len(rs); n > 0 && rs[n-1].Start <= start && start <= rs[n-1].End+1 {
		// Numbered output gives one range per line: a range that
		// continues the last one extends it. coalesce would merge the two
		// anyway; the count above still sees every range.
		rs[n-1].End = max(rs[n-1].End, end)
		return
	}
	i, _ := c.lookup(k)
	into[k] = append(rs, LineRange{Path: c.files[i].Path, Start: start, End: end})
}

// setQuery keeps the first query; blanks inside it are meaningful ("def ").
func (c *collector) setQuery(q string) {
	if c.query == "" && strings.TrimSpace(q) != "" {
		c.query = q
	}
}

func (c *collector) addSymbol(s string) {
	s = strings.TrimSpace(s)
	if s == "" || c.seenSym[s] {
		return
	}
	if c.seenSym == nil {
		c.seenSym = map[string]bool{}
	}
	c.seenSym[s] = true
	c.symbols = append(c.symbols, s)
}

// clearReads forgets that anything was read: the call showed nothing.
func (c *collector) clearReads() {
	for i := range c.files {
		c.files[i].Read = false
	}
	clear(c.argRng)
	clear(c.resRng)
}

// clearWrites forgets that anything was written: the call failed.
func (c *collector) clearWrites() {
	for i := range c.files {
		c.files[i].Written = false
	}
}

// unread forgets that p was read, and the lines of it.
func (c *collector) unread(p string) {
	k := c.n.Key(p)
	if i, ok := c.lookup(k); ok {
		c.files[i].Read = false
	}
	delete(c.argRng, k)
	delete(c.resRng, k)
}

// setArgRanges replaces the ranges the arguments asked of p by the ones
// the output showed.
func (c *collector) setArgRanges(p string, rs []LineRange) {
	delete(c.argRng, c.n.Key(p))
	for _, r := range rs {
		c.addArgRange(p, r.Start, r.End)
	}
}

// drop forgets file p altogether.
func (c *collector) drop(p string) {
	k := c.n.Key(p)
	i, ok := c.lookup(k)
	if !ok {
		return
	}
	c.files = append(c.files[:i], c.files[i+1:]...)
	if c.index != nil {
		delete(c.index, k)
		for j := i; j < len(c.files); j++ {
			c.index[c.n.Key(c.files[j].Path)] = j
		}
	}
	delete(c.argRng, k)
	delete(c.resRng, k)
}

// dropFolders forgets the names that other names of the call live under:
// `rg -n foo .deepwiki` printing ".deepwiki/a.md:3:…" shows .deepwiki is a
// folder, not a file the search read.
func (c *collector) dropFolders() {
	if len(c.files) < 2 || len(c.files) > 1000 {
		return
	}
	// The keys are made once and sorted: the names under f's key k all
	// start with k+"/", and sort together from the first name that is not
	// less than it.
	var keyBuf [16]string
	keys := keyBuf[:0]
	for _, f := range c.files {
		keys = append(keys, c.n.Key(f.Path))
	}
	sorted := slices.Clone(keys)
	slices.Sort(sorted)
	var drop []string
	var prefix []byte
	for i, f := range c.files {
		prefix = append(append(prefix[:0], keys[i]...), '/')
		// The first name not less than the prefix, searched with
		// comparisons that read the prefix's bytes in place.
		lo, hi := 0, len(sorted)
		for lo < hi {
			if m := int(uint(lo+hi) >> 1); sorted[m] < string(prefix) {
				lo = m + 1
			} else {
				hi = m
			}
		}
		if lo < len(sorted) && len(sorted[lo]) >= len(prefix) && sorted[lo][:len(prefix)] == string(prefix) {
			drop = append(drop, f.Path)
		}
	}
	for _, p := range drop {
		c.drop(p)
	}
}

// clearEffects forgets that anything was read or written: the call failed.
func (c *collector) clearEffects() {
	for i := range c.files {
		c.files[i].Read = false
		c.files[i].Written = false
	}
	clear(c.argRng)
	clear(c.resRng)
}

// finish builds the Extraction: per file, result ranges when the result
// showed any, else argument ranges; coalesced and ordered by the file's
// first mention, then start line.
func (c *collector) finish() Extraction {
	e := Extraction{Query: c.query, Category: c.category, Class: c.class, Warnings: c.warnings, Failed: c.failed}
	if len(c.files) > 0 {
		e.Files = c.files
	}
	if len(c.symbols) > 0 {
		e.Symbols = c.symbols
	}
	for _, f := range c.files {
		k := c.n.Key(f.Path)
		rs := c.resRng[k]
		if len(rs) == 0 {
			rs = c.argRng[k]
		}
		e.Ranges = append(e.Ranges, coalesce(rs)...)
	}
	return e
}

// origins returns the ranges by origin, in the order finish uses.
func (c *collector) origins() RangeOrigins {
	var o RangeOrigins
	for _, f := range c.files {
		k := c.n.Key(f.Path)
		o.Args = append(o.Args, coalesce(c.argRng[k])...)
		o.Result = append(o.Result, coalesce(c.resRng[k])...)
	}
	return o
}

// coalesce sorts one file's ranges and merges overlapping or adjacent ones.
func coalesce(rs []LineRange) []LineRange {
	if len(rs) == 0 {
		return nil
	}
	rs = slices.Clone(rs)
	slices.SortFunc(rs, func(a, b LineRange) int {
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		return a.End - b.End
	})
	out := rs[:1]
	for _, r := range rs[1:] {
		last := &out[len(out)-1]
		if r.Start <= last.End+1 {
			last.End = max(last.End, r.End)
			continue
		}
		out = append(out, r)
	}
	return out
}

// dropFinalNewlineLine removes the last line of Claude Code's numbered
// Read output when it is empty: "    29→" after line 28 stands for the
// file's final newline, not for a line of the file.
func dropFinalNewlineLine(result string) string {
	t := result
	// Claude Code appends a <system-reminder> block after the file. Only
	// the end of the result is looked at: a read can be megabytes long.
	if strings.HasSuffix(strings.TrimSpace(t[max(0, len(t)-64):]), "</system-reminder>") {
		from := max(0, len(t)-8<<10)
		if i := strings.LastIndex(t[from:], "\n<system-reminder>"); i >= 0 {
			t = t[:from+i]
		}
	}
	t = strings.TrimRight(t, "\n")
	i := strings.LastIndexByte(t, '\n')
	if i < 0 {
		return result
	}
	last := strings.TrimLeft(t[i+1:], " ")
	if n, j := leadingInt(last); j > 0 && n > 1 && last[j:] == "→" {
		return t[:i+1]
	}
	return result
}

// plainRead records the lines of a read tool's result that is the file's
// text without line numbers (Gemini CLI's read_file): the whole file, or
// the lines a truncation notice says it shows ("Showing lines 1-2000 of
// 5000 total lines").
func (c *collector) plainRead(file, result string) {
	t := strings.TrimSpace(result)
	if t == "" || t[0] == '[' || strings.HasPrefix(t, "Cannot ") || strings.HasPrefix(t, "Binary") {
		return
	}
	if i := strings.Index(result, "Showing lines "); i >= 0 && i < 512 {
		spec := result[i+len("Showing lines "):]
		a, j := leadingInt(spec)
		if j > 0 && strings.HasPrefix(spec[j:], "-") {
			if b, k := leadingInt(spec[j+1:]); k > 0 && b >= a {
				c.addResultRange(file, a, b)
			}
		}
		return
	}
	if strings.Contains(t[:min(len(t), 512)], "truncated") {
		return
	}
	if n := countLines(result); n > 0 {
		c.addResultRange(file, 1, n)
	}
}

// unifiedDiff reports a result that holds a unified diff: a "+++ " file
// header and a hunk header.
func unifiedDiff(result string) bool {
	head := result[:min(len(result), 64<<10)]
	return strings.Contains(head, "\n+++ ") && strings.Contains(head, "\n@@ -")
}

// hasRangeArgs reports arguments that ask for part of a file, usable or
// not: a read that asked for a part it could not be given did not show
// the whole file.
func hasRangeArgs(args map[string]any) bool {
	for _, k := range []string{"offset", "limit", "view_range", "startLine", "endLine", "start_line", "end_line", "lineStart", "lineEnd", "line", "start_line_one_indexed"} {
		if _, ok := args[k]; ok {
			return true
		}
	}
	return false
}

// manyFilesEnd closes Gemini CLI's read_many_files output, whose files
// each follow a "--- path ---" line.
const manyFilesEnd = "--- End of content ---"

// manyFiles reports a read_many_files result.
func manyFiles(result string) bool {
	return strings.HasPrefix(result, "--- ") && strings.Contains(result[:min(len(result), 8<<10)], " ---\n")
}

// manyFilesRead records the files of a read_many_files result, each shown
// whole: "--- path ---", a blank line, the file's text, a blank line.
func (c *collector) manyFilesRead(result string) {
	cur := ""
	n, blanks := 0, 0 // lines of the file so far; blank lines not yet counted
	afterHeader := false
	flush := func() {
		if cur != "" && n > 0 {
			c.addResultRange(cur, 1, n)
		}
	}
	lines := 0
	for line := range strings.Lines(capResult(result)) {
		if lines++; lines > maxResultLines {
			break
		}
		line = strings.TrimRight(line, "\r\n")
		if strings.HasPrefix(line, "--- ") && strings.HasSuffix(line, " ---") && len(line) > 8 {
			flush()
			cur, n, blanks, afterHeader = "", 0, 0, true
			if line == manyFilesEnd {
				continue
			}
			if p, ok := c.n.File(line[4:len(line)-4], FromArgument); ok {
				c.addFile(p, true, false, true)
				cur = p
			}
			continue
		}
		switch {
		case cur == "":
		case afterHeader && line == "":
			// The blank line after a header is not the file's.
		case line == "":
			// Counted once a line of the file follows: the blank line
			// before the next header is not the file's either.
			blanks++
		default:
			n += blanks + 1
			blanks = 0
		}
		afterHeader = false
	}
	flush()
}
