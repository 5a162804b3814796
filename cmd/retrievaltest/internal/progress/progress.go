// Package progress reports how far a batch of items has got: on a
// terminal, one counter line rewritten in place; elsewhere (a CI log), one
// plain line per item. A terminal gets colour unless NO_COLOR is set.
package progress

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/agentretrieval/agentretrieval/internal/printable"
)

// A Printer reports finished items. It is safe for concurrent use.
type Printer struct {
	mu              sync.Mutex
	w               io.Writer
	prefix          string
	total, n        int
	terminal, color bool
}

// New returns a Printer of total items on w; prefix starts each plain
// line ("check [3/9] fix-bug: pass").
//
// A w that escapes what it is given (printable.Writer) is looked through:
// the Printer writes its own control sequences and escapes the names.
func New(w io.Writer, prefix string, total int) *Printer {
	if u, ok := w.(interface{ Unwrap() io.Writer }); ok {
		w = u.Unwrap()
	}
	p := &Printer{w: w, prefix: prefix, total: total}
	if f, ok := w.(*os.File); ok {
		if info, err := f.Stat(); err == nil && info.Mode()&os.ModeCharDevice != 0 {
			p.terminal = true
			p.color = os.Getenv("NO_COLOR") == ""
		}
	}
	return p
}

// SetTotal sets the number of items, for a batch whose size is known only
// once it starts.
func (p *Printer) SetTotal(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total = n
}

// Done reports one finished item and its status; a bad status is shown in
// red on a colour terminal.
func (p *Printer) Done(name, status string, bad bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	name, status = printable.Line(name), printable.Line(status)
	if p.color && bad {
		status = "\x1b[31m" + status + "\x1b[0m"
	}
	if p.terminal {
		fmt.Fprintf(p.w, "\r\x1b[K[%d/%d] %s %s", p.n, p.total, name, status)
		return
	}
	fmt.Fprintf(p.w, "%s [%d/%d] %s: %s\n", p.prefix, p.n, p.total, name, status)
}

// Finish ends the counter line on a terminal.
func (p *Printer) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.terminal && p.n > 0 {
		fmt.Fprintln(p.w)
	}
}
