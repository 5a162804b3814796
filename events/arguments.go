package events

import (
	"strings"
)

// maxPatchBytes bounds the part of a patch read for file headers.
const maxPatchBytes = 8 << 20

// callArguments rewrites the decoded arguments of one call into the keys
// and conventions extraction and per-call classification read, for the
// agents whose arguments say the same thing differently:
//
//   - SWE-agent commands, as a command line or structured (sweAgentArguments);
//   - an editor view recorded by OpenHands V0 without its command;
//   - patches in the apply_patch format of Codex and Copilot ("*** Update
//     File: x"), and codex exec's file_change list ({"changes": [{"path"}]}):
//     the files they touch become a "files" list;
//   - a zero-based offset (Rule.ZeroBasedOffset) becomes the 1-based offset
//     Claude Code's Read uses.
//
// It returns args itself when nothing applies.
func callArguments(name string, rule Rule, args map[string]any) map[string]any {
	if args == nil {
		return nil
	}
	if a := sweAgentArguments(name, args); a != nil {
		args = a
	}
	// OpenHands V0 records an editor's view as a read action whose
	// arguments keep the range (start, end, view_range) but not the command.
	if isEditorTool(name) && args["command"] == nil && (args["view_range"] != nil || args["start"] != nil && args["end"] != nil) {
		args["command"] = "view"
	}
	if files := patchFiles(args); len(files) > 0 {
		if _, taken := args["files"]; !taken {
			args["files"] = files
		}
	}
	if rule.ZeroBasedOffset {
		if off, ok := intValue(args["offset"]); ok && off >= 0 {
			args["offset"] = float64(off + 1)
		}
	}
	return args
}

// patchFiles returns the files a patch argument names: the headers of the
// apply_patch format ("*** Add File: ", "*** Update File: ", "*** Delete
// File: ", "*** Move to: ") in "input" or "patch", or the paths of a
// "changes" list.
func patchFiles(args map[string]any) []any {
	var files []any
	for _, k := range []string{"input", "patch"} {
		text, _ := args[k].(string)
		if !strings.Contains(text, "*** Begin Patch") {
			continue
		}
		if len(text) > maxPatchBytes {
			text = text[:maxPatchBytes]
		}
		for line := range strings.Lines(text) {
			line = strings.TrimRight(line, "\r\n")
			for _, h := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
				if p, ok := strings.CutPrefix(line, h); ok && strings.TrimSpace(p) != "" {
					files = append(files, strings.TrimSpace(p))
				}
			}
		}
	}
	if changes, ok := args["changes"].([]any); ok {
		for _, c := range changes {
			if m, ok := c.(map[string]any); ok {
				if p, ok := m["path"].(string); ok && strings.TrimSpace(p) != "" {
					files = append(files, p)
				}
			}
		}
	}
	return files
}
