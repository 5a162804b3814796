package events

import (
	"path"
	"slices"
	"strings"
)

// A call failed when the agent recorded it (trace.ToolCall.IsError), and
// also when its output says so where the agent records no exit status: a
// Python program that ended in an uncaught exception exited 1, and an edit
// tool that answers "No replacement was performed" changed nothing. A
// failed call wrote nothing, and names only the files its output shows to
// exist: a file the output says is missing, or any file of a command that
// was not found or printed nothing, is not a target.

// failedEditPhrases are what edit tools answer when the edit was not
// applied: OpenHands' and Anthropic's str_replace_editor, SWE-agent's
// windowed editor and linter, Codex's apply_patch, Claude Code's Edit.
var failedEditPhrases = []string{
	"No replacement was performed",
	"Your changes have NOT been applied",
	"Your proposed edit has introduced new syntax error",
	"Failed to find expected lines",
	"did not appear verbatim in",
	"String to replace not found in file",
	"Found multiple occurrences of",
	"Invalid `insert_line` parameter",
	"No changes to make: old_str and new_str are exactly the same",
	// Gemini CLI's replace.
	"Failed to edit, 0 occurrences found",
	"Failed to edit, expected ",
}

// failedEdit reports an edit tool's answer that the edit was not applied.
func failedEdit(result string) bool {
	head := result
	if len(head) > 64<<10 {
		head = head[:64<<10]
	}
	return containsAny(head, failedEditPhrases)
}

// sweOriginalCode starts the part of SWE-agent's answer to a refused edit
// that shows the file as it is; the part before it shows the file as the
// edit would have made it, which the agent never had.
const sweOriginalCode = "This is the original code before your edit"

// uncaughtTraceback reports output that ends in a Python traceback: the
// program died of an uncaught exception and exited 1. The exception line
// ("ValueError: …", "KeyboardInterrupt") follows the last frame and is
// among the last lines of the output.
func uncaughtTraceback(result string) bool {
	tail := result
	if len(tail) > 16<<10 {
		tail = tail[len(tail)-16<<10:]
	}
	// Looked for forward first, which is fast, and most results have no
	// traceback; the last one is looked for from the first one on.
	const header = "Traceback (most recent call last):"
	first := strings.Index(tail, header)
	if first < 0 {
		return false
	}
	i := first + strings.LastIndex(tail[first:], header)
	lines := strings.Split(strings.TrimRight(tail[i:], "\n\r\t "), "\n")
	// Past the frames (indented), the first line at the margin is the
	// exception; at most a few lines of its message may follow.
	for k := 1; k < len(lines); k++ {
		l := strings.TrimRight(lines[k], "\r")
		if l == "" || strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") {
			continue
		}
		return exceptionLine(l) && len(lines)-k <= 8
	}
	return false
}

// exceptionLine reports "ValueError: x", "pkg.mod.CustomError",
// "KeyboardInterrupt".
func exceptionLine(l string) bool {
	name, _, _ := strings.Cut(l, ":")
	if name == "" || strings.ContainsAny(name, " \t") {
		return false
	}
	base := name[strings.LastIndexByte(name, '.')+1:]
	for _, suffix := range []string{"Error", "Exception", "Interrupt", "Exit", "Failure", "Warning"} {
		if strings.HasSuffix(base, suffix) {
			return true
		}
	}
	return false
}

// missingPhrases say that a file or a command does not exist.
var missingPhrases = []string{
	"No such file or directory", "no such file or directory", "does not exist", "not found",
	"Not found", "cannot access", "can't read", "cannot open", "can't open", "Cannot open", "cannot find",
	"os error 2",
}

func sayMissing(s string) bool {
	if strings.Contains(s, "Permission denied") {
		// "cannot open 'a.ts' for reading: Permission denied": it exists.
		return false
	}
	return containsAny(s, missingPhrases)
}

// containsAny reports whether s contains any of the phrases.
func containsAny(s string, phrases []string) bool {
	for _, p := range phrases {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

// dropMissing forgets the files a call named in its arguments that its
// output says do not exist: a line of an error message
// ("ls: cannot access 'lib/ai': No such file or directory", "ERROR: file
// or directory not found: t.py") that names the file. names are the
// commands the call ran, whose messages start with their name. A file the
// output itself showed (a hit, a listing entry) is kept.
func (c *collector) dropMissing(result string, names []string) {
	if !slices.ContainsFunc(c.files, func(f FileRef) bool { return !f.FromResult && !f.Written }) {
		return // no file of the arguments that a message could be about
	}
	var drop []string
	lines := 0
	for line := range strings.Lines(capResult(result)) {
		line = strings.TrimRight(line, "\r\n")
		if lines++; lines > 2000 {
			break
		}
		who, rest, ok := strings.Cut(strings.TrimSpace(line), ": ")
		if _, after, found := strings.Cut(line, "ERROR: "); found {
			// pytest: "collecting ... ERROR: file or directory not found: t.py"
			who, rest, ok = "ERROR", after, true
		}
		if !ok || !sayMissing(rest) || !errorSpeaker(who, names) {
			continue
		}
		for _, f := range c.files {
			if f.FromResult || f.Written {
				continue
			}
			if base := path.Base(f.Path); strings.Contains(rest, base) {
				drop = append(drop, f.Path)
			}
		}
	}
	for _, p := range drop {
		c.drop(p)
	}
}

// errorSpeaker reports the start of an error message: a command's name
// ("sed", "/bin/ls") or a level ("ERROR", "error", "fatal").
func errorSpeaker(who string, names []string) bool {
	switch strings.ToLower(who) {
	case "error", "fatal", "e", "warning":
		return true
	}
	base := who[strings.LastIndexByte(who, '/')+1:]
	for _, n := range names {
		if base == n {
			return true
		}
	}
	return false
}

// failedTargets keeps, of a failed call's files, those its output shows to
// exist: none when the output is empty or says the command or the file
// was not found, else all but the files it says are missing. Files the
// output itself named stay.
func (c *collector) failedTargets(result string, names []string) {
	if onlyMissing(result) {
		var drop []string
		for _, f := range c.files {
			if !f.FromResult {
				drop = append(drop, f.Path)
			}
		}
		for _, p := range drop {
			c.drop(p)
		}
		return
	}
	c.dropMissing(result, names)
}

// onlyMissing reports output that is empty or holds nothing but messages
// that a command or file was not found.
func onlyMissing(result string) bool {
	lines := 0
	for line := range strings.Lines(capResult(result)) {
		line = strings.TrimRight(line, "\r\n")
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		if lines++; lines > 50 || !sayMissing(t) && !strings.Contains(t, "command not found") {
			return false
		}
	}
	return true
}
