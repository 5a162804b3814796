package events

import (
	"encoding/json"
	"path"
	"strconv"
	"strings"
)

// Results of the read and search tools of editor agents (VS Code's Copilot
// Chat), which wrap file text in markup of their own rather than number
// its lines.

// fencedLines counts the lines of the one fenced code block a read tool
// answered with (Copilot's read_file: "```plaintext\n…\n```"); the empty
// line that stands for the file's final newline is not a line. ok is false
// for a result that is not a single fenced block.
func fencedLines(result string) (n int, ok bool) {
	t := strings.TrimSpace(capResult(result))
	if !strings.HasPrefix(t, "```") || !strings.HasSuffix(t, "\n```") {
		return 0, false
	}
	open, body, found := strings.Cut(t, "\n")
	if !found || strings.Contains(open[3:], "`") {
		return 0, false
	}
	body = strings.TrimSuffix(body, "```")
	if strings.Contains(body, "\n```") {
		return 0, false
	}
	body = strings.TrimSuffix(body, "\n")
	body = strings.TrimSuffix(body, "\n")
	if body == "" {
		return 0, true
	}
	return strings.Count(body, "\n") + 1, true
}

// matchTagOpen starts a hit of Copilot's text search (grep_search):
//
//	<match path="/w/src/a.ts" line=12>
//	the text of line 12
//	</match>
const matchTagOpen = `<match path="`

// matchTags records the files and lines of a result made of match tags. It
// returns false when the result holds none.
func (c *collector) matchTags(result string) bool {
	found := false
	file, line := "", 0 // the open hit's file and the number of its next line
	lines := 0
	for l := range strings.Lines(capResult(result)) {
		if lines++; lines > maxResultLines {
			break
		}
		l = strings.TrimRight(l, "\r\n")
		// A tag may follow other text on its line ("1 match<match …>"): the
		// pieces of a rendered prompt are not always split by line breaks.
		if i := strings.Index(l, matchTagOpen); i >= 0 {
			rest := l[i+len(matchTagOpen):]
			p, attrs, ok := strings.Cut(rest, `"`)
			if !ok {
				continue
			}
			found = true
			file, line = "", 0
			np, ok := c.n.File(p, FromArgument)
			if !ok {
				continue
			}
			c.addFile(np, false, false, true)
			file = np
			if v, ok := strings.CutPrefix(strings.TrimSpace(attrs), "line="); ok {
				v = strings.Trim(strings.TrimSuffix(v, ">"), `"`)
				if n, err := strconv.Atoi(v); err == nil && n >= 1 {
					line = n
				}
			}
			continue
		}
		if l == "</match>" {
			file, line = "", 0
			continue
		}
		if file != "" {
			c.addFile(file, true, false, true)
			if line > 0 {
				c.addResultRange(file, line, line)
				line++
			}
		}
	}
	return found
}

// folderListing reads the answer of a read tool that was given a folder
// (Amp's Read: {"absolutePath": "/w/src", "isDirectory": true,
// "directoryEntries": ["a.ts", "lib/"]}): the call lists the folder, whose
// file entries it names. It returns false for any other result.
func (c *collector) folderListing(primary, result string) bool {
	t := strings.TrimSpace(result)
	if primary == "" || !strings.HasPrefix(t, "{") || !strings.Contains(t[:min(len(t), 4096)], `"isDirectory"`) {
		return false
	}
	var r struct {
		IsDirectory bool     `json:"isDirectory"`
		Entries     []string `json:"directoryEntries"`
	}
	if json.Unmarshal([]byte(t), &r) != nil || !r.IsDirectory {
		return false
	}
	c.drop(primary)
	c.category = FileSearch
	for _, e := range r.Entries {
		if e == "" || strings.HasSuffix(e, "/") {
			continue // a folder
		}
		if p, ok := c.n.File(path.Join(primary, e), FromArgument); ok {
			c.addFile(p, false, false, true)
		}
	}
	return true
}

// clineSearchHits reads the answer of Cline's search_files, ripgrep's hits
// grouped by file, each hit's lines behind a bar and without line numbers:
//
//	Found 2 results.
//
//	cart/retry.go
//	│----
//	│const maxRetries = 3
//	│----
//
// The file names are relative to the working directory (Cline prints them
// so, whatever folder was searched). A file whose lines are shown is read,
// at no known line. It returns false for any other result.
func (c *collector) clineSearchHits(result string) bool {
	t := strings.TrimSpace(capResult(result))
	if !strings.HasPrefix(t, "Found ") || !strings.Contains(t, "\n│----") {
		return false
	}
	file := ""
	lines := 0
	for l := range strings.Lines(t) {
		if lines++; lines > maxResultLines {
			break
		}
		l = strings.TrimRight(l, "\r\n")
		switch {
		case lines == 1 || l == "" || l == "│----":
		case strings.HasPrefix(l, "│"):
			if file != "" {
				c.addFile(file, true, false, true)
			}
		default:
			file = ""
			if p, ok := c.resolve(l, "", FromArgument, false); ok {
				c.addFile(p, false, false, true)
				file = p
			}
		}
	}
	return true
}
