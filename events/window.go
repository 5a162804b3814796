package events

// windowArgs reads the read windows of a file_read call whose arguments
// list the lines to show rather than a range, the form of Sidekick's
// read_file_lines:
//
//	{"file_lines": [{"file_path": "pkg/a.go", "line_number": 42}],
//	 "window_size": 10}
//
// Each entry shows line ± window, so it is recorded as the arguments'
// range [line-window, line+window] (the first line at least 1). The
// evaluation-data extractor that first read these calls credited only
// line ± window/2, half of what the agent saw. A window may also be given
// per entry; without one, only the named line is credited, since the tool's
// default is not recorded in the trace. Entries name their file with any
// of the usual file keys.
func (c *collector) windowArgs(args map[string]any) {
	list, _ := args["file_lines"].([]any)
	if len(list) == 0 {
		return
	}
	window, hasWindow, _ := c.windowSize(args)
	for _, e := range list {
		entry, ok := e.(map[string]any)
		if !ok {
			c.warnf("file_lines entry %s is not an object; no lines credited from it", argText(e))
			continue
		}
		p := firstString(entry, append([]string{"path"}, fileArgKeys...))
		np, ok := c.n.File(p, FromArgument)
		if !ok || !c.addFile(np, true, false, false) {
			continue
		}
		w, has := window, hasWindow
		if ew, ok, bad := c.windowSize(entry); ok || bad {
			w, has = ew, ok
		}
		line, ok, bad := c.lineArg(entry, "line_number")
		if !ok && !bad {
			line, ok, _ = c.lineArg(entry, "line")
		}
		if !ok || line < 1 {
			continue
		}
		if !has {
			w = 0
		}
		c.addArgRange(np, max(line-w, 1), line+w)
	}
}

// windowSize reads a window_size (or window) argument: lines shown on
// each side of the named line.
func (c *collector) windowSize(args map[string]any) (n int, ok, bad bool) {
	if n, ok, bad = c.lineArg(args, "window_size"); ok || bad {
		return n, ok, bad
	}
	return c.lineArg(args, "window")
}
