package metrics

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	inputfile "github.com/agentretrieval/agentretrieval/internal/input"
)

// maxInput is the caller's override of the input size limit.
var maxInput inputfile.Max

// SetMaxInputSize sets, in bytes, the largest symbol file LoadSymbols
// reads; a larger one is an error. Zero restores the default, 1 GiB. It is
// safe to call concurrently with loading. (Qrels and run files are read by
// the caller, from any io.Reader.)
func SetMaxInputSize(n int64) { maxInput.Set(n) }

// LoadSymbols reads an index symbol file: the identifiers the semantic
// index knows, which a text search should not have to guess. Two forms are
// accepted, line by line:
//
//   - one symbol per line (blank lines and lines starting with # ignored);
//   - a ctags file (Universal or Exuberant ctags `tags` output): the symbol
//     is the first tab-separated field, and `!_TAG_` header lines are skipped.
//
// Duplicates are dropped; order is kept. The file must be a regular file (a
// named pipe, a device or a socket is refused) of at most 1 GiB; see
// SetMaxInputSize.
func LoadSymbols(name string) ([]string, error) {
	f, err := inputfile.Open(name, maxInput.Or(inputfile.DataLimit))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	syms, err := ReadSymbols(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return syms, nil
}

// ReadSymbols reads the symbol-file forms of LoadSymbols from r.
func ReadSymbols(r io.Reader) ([]string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	seen := map[string]bool{}
	var out []string
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.HasPrefix(text, "!_TAG_") || strings.HasPrefix(strings.TrimSpace(text), "#") {
			continue
		}
		name, _, _ := strings.Cut(text, "\t")
		name = strings.TrimSpace(name)
		if name == "" || seen[name] {
			continue
		}
		if strings.ContainsAny(name, " ") {
			return nil, fmt.Errorf("line %d: %q is not a symbol: expected one identifier per line, or a ctags line (name<TAB>file<TAB>address)", line, name)
		}
		seen[name] = true
		out = append(out, name)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %w", line+1, err)
	}
	return out, nil
}
