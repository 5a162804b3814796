package trace

import (
	"bytes"
	"strconv"
)

// This file reads what Gemini CLI's tools tell the model, as its own source
// (packages/core/src/tools/shell.ts and the tool scheduler) writes it:
// which part of a shell tool's text is the command's output, and which
// texts recorded under status "success" say that the call failed.

// geminiShellTool is the name of Gemini CLI's shell tool in chat
// recordings (recordings began after it was renamed from
// execute_bash_command).
const geminiShellTool = "run_shell_command"

// geminiShellOutput finds the command output in the text Gemini CLI's shell
// tool gave the model, and whether the text says the command failed. ok is
// false for a text of no shape it knows, which is then kept as it is; a
// failure message that shows no output (a command blocked or cancelled
// before it printed anything) is not ok but failed. command is the call's
// command argument ("" when unknown). out may share memory with text.
//
// The shapes, by Gemini CLI version:
//
//   - until January 2026, every field on a line of its own: "Command: "
//     and the command, "Directory: " and the directory or "(root)",
//     "Output: " and the output or "(empty)", then "Error: ", "Exit Code:
//     ", "Signal: ", "Background PIDs: " and "Process Group PGID: ", each
//     with its value or "(none)";
//   - since, "Output: <output or (empty)>" first and then only the fields
//     that say something: Exit Code when not 0, Signal when there was one,
//     Background PIDs, Process Group PGID. Error is written only with a
//     process error, which Gemini CLI records as the call's error, never
//     under status success, so a line "Error: …" there is output;
//   - since June 2026, either one between "<untrusted_context>\n" and
//     "\n</untrusted_context>", with "</untrusted_context>" in the output
//     escaped as "&lt;/untrusted_context&gt;";
//   - a text longer than the scheduler's threshold (40,000 characters
//     since 2026) is cut in the middle under a first line "Output too
//     large. Showing …", or (in 2025) a preamble ending "Truncated part of
//     the output:"; what is left of the output keeps the cut marker;
//   - a command cancelled by the user or by the inactivity timeout, or
//     blocked before it ran, is a sentence, followed by the output printed
//     before it was cancelled ("Below is the output before it was
//     cancelled:\n…"); a command moved to the background shows its initial
//     output after "Initial output:\n".
//
// The output may itself hold lines like "Exit Code: 1", so the fields are
// read from the end, each at most once and in their order; an output whose
// last lines look like the fields that follow it cannot be told from them.
func geminiShellOutput(text []byte, command string) (out []byte, failed, ok bool) {
	body := text
	wrapped := false
	if inner, found := geminiUntrusted(body); found {
		body, wrapped = inner, true
	}
	cut := false
	if rest, found := geminiCutPreamble(body); found {
		// The scheduler cut the wrapped text: each end of the wrapper is
		// left on its side of the cut.
		body, cut = rest, true
		if inner, found := bytes.CutPrefix(body, []byte("<untrusted_context>\n")); found {
			body, wrapped = inner, true
		}
		if inner, found := bytes.CutSuffix(body, []byte("\n</untrusted_context>")); found {
			body, wrapped = inner, true
		}
	}
	if out, failed, ok, known := geminiShellMessage(body); known {
		return geminiUnescape(out, wrapped), failed, ok
	}
	var rest []byte
	full := false // every field is written, in the older shape
	switch {
	case bytes.HasPrefix(body, []byte("Command: ")):
		if rest, ok = geminiAfterDirectory(body, command); !ok {
			return nil, false, false
		}
		full = true
	case bytes.HasPrefix(body, []byte("Output: ")):
		rest = body[len("Output: "):]
	case cut:
		// Only the end of a cut output was kept: no header, the fields
		// still at its end.
		rest = body
	default:
		return nil, false, false
	}
	out, fields := geminiShellFields(rest, full)
	if len(rest) == len(body) && !fields.written() {
		return nil, false, false // the end of a cut text that is not the shell's
	}
	if string(out) == "(empty)" {
		out = out[:0]
	}
	return geminiUnescape(out, wrapped), fields.failed(), true
}

// geminiFields are the fields Gemini CLI writes after a command's output;
// a field not written is nil.
type geminiFields struct {
	err, exit, signal, background, pgid []byte
}

// geminiFieldKeys are the fields in the order Gemini CLI writes them.
var geminiFieldKeys = [...]string{"Error: ", "Exit Code: ", "Signal: ", "Background PIDs: ", "Process Group PGID: "}

func (f *geminiFields) set(i int, v []byte) {
	switch i {
	case 0:
		f.err = v
	case 1:
		f.exit = v
	case 2:
		f.signal = v
	case 3:
		f.background = v
	default:
		f.pgid = v
	}
}

// written reports whether any field was written.
func (f geminiFields) written() bool {
	return f.err != nil || f.exit != nil || f.signal != nil || f.background != nil || f.pgid != nil
}

// failed reports whether the fields say the command failed: an error, a
// non-zero exit code, or a signal ("(none)" and 0 stand for none).
func (f geminiFields) failed() bool {
	if f.err != nil && string(f.err) != "(none)" {
		return true
	}
	if n, err := strconv.ParseInt(string(bytes.TrimSpace(f.exit)), 10, 64); err == nil && n != 0 {
		return true
	}
	switch s := string(bytes.TrimSpace(f.signal)); s {
	case "", "(none)", "0", "null":
	default:
		return true
	}
	return false
}

// geminiShellFields splits rest, the text after "Output: ", into the
// output and the fields after it, read from the end. full says every field
// is written (the older shape), where Error may span lines and always
// comes.
func geminiShellFields(rest []byte, full bool) (out []byte, f geminiFields) {
	next := len(geminiFieldKeys) // fields before this one may still come
	first := 1                   // Error is a field of the older shape only
	if full {
		first = 0
	}
	for next > first {
		i := bytes.LastIndexByte(rest, '\n')
		if i < 0 {
			break
		}
		line := rest[i+1:]
		k := -1
		for j := next - 1; j >= first; j-- {
			if bytes.HasPrefix(line, []byte(geminiFieldKeys[j])) {
				k = j
				break
			}
		}
		if k < 0 {
			break
		}
		f.set(k, line[len(geminiFieldKeys[k]):])
		rest, next = rest[:i], k
	}
	if full && next > 0 {
		// An error message of several lines: its first line is the last
		// one that starts the field.
		if i := bytes.LastIndex(rest, []byte("\nError: ")); i >= 0 {
			f.err = rest[i+len("\nError: "):]
			rest = rest[:i]
		}
	}
	return rest, f
}

// geminiAfterDirectory returns what follows "Output: " in the older shape,
// whose first two lines are the command and its directory. The command may
// span lines, so it is matched against the call's argument when that is
// known, else the first "Directory: " line ends it.
func geminiAfterDirectory(body []byte, command string) ([]byte, bool) {
	var after []byte
	if command != "" {
		if rest, ok := bytes.CutPrefix(body, []byte("Command: "+command+"\n")); ok && bytes.HasPrefix(rest, []byte("Directory: ")) {
			after = rest
		}
	}
	if after == nil {
		i := bytes.Index(body, []byte("\nDirectory: "))
		if i < 0 {
			return nil, false
		}
		after = body[i+1:]
	}
	j := bytes.IndexByte(after, '\n')
	if j < 0 {
		return nil, false
	}
	return bytes.CutPrefix(after[j+1:], []byte("Output: "))
}

// geminiUntrusted returns the text inside an <untrusted_context> wrapper.
func geminiUntrusted(text []byte) ([]byte, bool) {
	inner, ok := bytes.CutPrefix(text, []byte("<untrusted_context>\n"))
	if !ok {
		return text, false
	}
	return bytes.CutSuffix(inner, []byte("\n</untrusted_context>"))
}

// geminiUnescape undoes the one escape the <untrusted_context> wrapper
// makes in what it wraps.
func geminiUnescape(out []byte, wrapped bool) []byte {
	const escaped = "&lt;/untrusted_context&gt;"
	if !wrapped || !bytes.Contains(out, []byte(escaped)) {
		return out
	}
	return bytes.ReplaceAll(out, []byte(escaped), []byte("</untrusted_context>"))
}

// geminiCutPreamble returns what follows the note the tool scheduler puts
// above an output it cut.
func geminiCutPreamble(text []byte) ([]byte, bool) {
	if bytes.HasPrefix(text, []byte("Output too large. Showing ")) {
		i := bytes.IndexByte(text, '\n')
		if i < 0 {
			return nil, false
		}
		return text[i+1:], true
	}
	if bytes.HasPrefix(text, []byte("Tool output was too large and has been truncated.\n")) {
		const mark = "\nTruncated part of the output:\n"
		if i := bytes.Index(text, []byte(mark)); i >= 0 {
			return text[i+len(mark):], true
		}
	}
	return nil, false
}

// geminiShellMessages are the sentences the shell tool answers with instead
// of the fields: whether the command failed, and what introduces the output
// it printed.
var geminiShellMessages = []struct {
	prefix string
	failed bool
}{
	{"Command was cancelled by user before it could start.", true},
	{"Command was cancelled by user before it could complete.", true},
	{"Command was automatically cancelled because it exceeded the timeout of ", true},
	{"Command cancelled by user.", true},
	{"Command injection detected: ", true},
	{"Command is running in background. PID: ", false},
}

// geminiShellOutputIntros introduce the output printed before a command was
// cancelled or moved to the background.
var geminiShellOutputIntros = []string{
	" Below is the output before it was cancelled:\n",
	" Below is the output (on stdout and stderr) before it was cancelled:\n",
	" Initial output:\n",
}

// geminiShellMessage reads the sentences of geminiShellMessages: known
// reports whether text is one; ok whether it shows output, which is out.
func geminiShellMessage(text []byte) (out []byte, failed, ok, known bool) {
	for _, m := range geminiShellMessages {
		if !bytes.HasPrefix(text, []byte(m.prefix)) {
			continue
		}
		first, _, _ := bytes.Cut(text, []byte{'\n'})
		for _, intro := range geminiShellOutputIntros {
			if i := bytes.Index(text, []byte(intro)); i >= 0 && i < len(first) {
				return text[i+len(intro):], m.failed, true, true
			}
		}
		return nil, m.failed, false, true
	}
	return nil, false, false, false
}

// geminiFailureTexts start the texts that Gemini CLI's tools return under
// status success to say they failed (the grep tool's, in every version
// since recordings began).
var geminiFailureTexts = []string{
	"Error during grep search operation: ",
	"Failed to access path stats for ",
}

// geminiTextFailed reports whether a tool's output text is one of
// geminiFailureTexts.
func geminiTextFailed(text []byte) bool {
	for _, p := range geminiFailureTexts {
		if bytes.HasPrefix(text, []byte(p)) {
			return true
		}
	}
	return false
}
