package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentretrieval/agentretrieval/internal/printable"
	"github.com/agentretrieval/agentretrieval/metrics"
)

// Escape makes s safe as plain text in a cell of a GitHub-flavoured markdown
// table: the text shows as written and cannot end the cell, the row or the
// table, nor start a code span, a link, emphasis, math or raw HTML.
//
//   - "|" becomes "\|": GFM splits a row on unescaped pipes before it parses
//     anything else in the cell.
//   - A line break ("\n", "\r\n" or "\r") becomes "<br>": a real newline ends
//     the table row. A tab becomes a space. Other control characters show
//     escaped (printable.Text): "\u001b", "\u009b".
//   - Backslashes, backticks, "*", "[", "]", "<", "~" and "$" (GitHub math)
//     are backslash-escaped, and "&" when it could start an entity.
//   - "_" is escaped only where it could open or close emphasis: GFM never
//     treats a run of underscores between two letters or digits as emphasis,
//     so tool names such as mcp__sourcegraph__keyword_search stay readable.
func Escape(s string) string {
	s = printable.Text(strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n"))
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		c := s[i]
		switch c {
		case '\r':
			b.WriteString("<br>")
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
		case '\n':
			b.WriteString("<br>")
		case '\t':
			b.WriteByte(' ')
		case '|', '\\', '`', '*', '[', ']', '<', '~', '$':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '&':
			if i+1 < len(s) && (s[i+1] == '#' || isASCIILetter(s[i+1])) {
				b.WriteByte('\\')
			}
			b.WriteByte('&')
		case '_':
			j := i
			for j < len(s) && s[j] == '_' {
				j++
			}
			run := s[i:j]
			if !wordBefore(s, i) || !wordAfter(s, j) {
				run = strings.ReplaceAll(run, "_", `\_`)
			}
			b.WriteString(run)
			i = j
			continue
		default:
			b.WriteByte(c)
		}
		i++
	}
	return b.String()
}

func isASCIILetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// wordBefore reports whether the rune that ends at s[:i] is a letter or digit.
func wordBefore(s string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return i > 0 && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// wordAfter reports whether the rune that starts at s[j:] is a letter or digit.
func wordAfter(s string, j int) bool {
	r, _ := utf8.DecodeRuneInString(s[j:])
	return j < len(s) && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// Code renders s as inline code in a table cell, for paths, tool names and
// other identifiers that should show exactly as written.
//
// The fence is one backtick longer than the longest run of backticks in s,
// so no backtick inside can close the span early, and a space pads each side
// when s starts or ends with a backtick or a space (GFM strips one padding
// space from each side). A "|" becomes "\|", which GFM turns back into "|"
// even inside code. A code span cannot hold a line break ("<br>" in it shows
// literally), so each line of a multi-line s becomes its own span, joined by
// "<br>". Other control characters show escaped (printable.Line).
func Code(s string) string {
	if s == "" {
		return ""
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	lines := strings.Split(s, "\n")
	out := make([]string, 0, len(lines))
	for _, line := range lines {
		if line == "" {
			continue
		}
		out = append(out, codeSpan(line))
	}
	return strings.Join(out, "<br>")
}

func codeSpan(s string) string {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	body := strings.ReplaceAll(printable.Line(strings.ReplaceAll(s, "\t", " ")), "|", `\|`)
	if strings.Trim(s, " ") != "" && (s[0] == '`' || s[len(s)-1] == '`' || s[0] == ' ' || s[len(s)-1] == ' ') {
		body = " " + body + " "
	}
	return fence + body + fence
}

// writeTable renders a GFM table. Cells must already be escaped (Escape,
// Code, or markup this package writes): the table only lays them out. Each
// row is written as it is, a cell between "| " and " |", under a header
// row and a delimiter row that left-aligns every column (":--"); an empty
// cell is one space, so that a cell never closes on its opening bar. No
// cell is wrapped, since a wrapped cell would become two rows, and a row
// with fewer cells than the header gets empty ones.
//
// Cells are not padded to their column's width: the padding does not
// render, and a table with one long cell would otherwise carry hundreds of
// spaces on every row into a pull-request comment.
func writeTable(w io.Writer, header []string, rows [][]string) error {
	var b strings.Builder
	writeRow := func(cells []string) {
		b.WriteString("|")
		for i := range max(len(header), len(cells)) {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			if c == "" {
				c = " "
			}
			b.WriteString(" " + c + " |")
		}
		b.WriteString("\n")
	}
	writeRow(header)
	b.WriteString("|" + strings.Repeat(":--|", len(header)) + "\n")
	for _, r := range rows {
		writeRow(r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// FormatValue formats the figure named name for a report: figures that lie
// in [0, 1] (see metrics.Definition.Bounded) with two decimals, whole
// counts, steps and tokens as integers, anything else with one decimal.
// The format is fixed so that reports are the same on every run.
func FormatValue(name string, v float64) string {
	return fixed(v, decimals(name, v))
}

// FormatDelta formats a change of the figure named name with its sign, in
// the precision FormatValue uses for the figure ("+0.08", "-2", "±0.00").
func FormatDelta(name string, base, cur float64) string {
	d := cur - base
	prec := decimals(name, cur)
	if p := decimals(name, base); p > prec {
		prec = p
	}
	s := fixed(d, prec)
	switch {
	case s == fixed(0, prec):
		return "±" + s
	case !strings.HasPrefix(s, "-"):
		return "+" + s
	}
	return s
}

// decimals is the number of decimals FormatValue uses. The verifier reward
// is not a metric of metrics.Definitions but lies in [0, 1] too.
func decimals(name string, v float64) int {
	if d, ok := metrics.Define(name); (ok && d.Bounded) || name == RewardName {
		return 2
	}
	if v == math.Trunc(v) {
		return 0
	}
	return 1
}

// fixed formats v with prec decimals, never as "-0.00".
func fixed(v float64, prec int) string {
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.HasPrefix(s, "-") && strings.Trim(s, "-0.") == "" {
		s = s[1:]
	}
	return s
}

// percent formats a ratio in [0, 1] as a percentage with one decimal.
func percent(r float64) string { return fixed(100*r, 1) + "%" }

// percentTrim formats a ratio as a percentage without trailing zeros, for
// thresholds a person wrote ("60%", "62.5%").
func percentTrim(r float64) string {
	return strconv.FormatFloat(math.Round(100*r*1e6)/1e6, 'f', -1, 64) + "%"
}

// superscript writes n with Unicode superscript digits, the footnote marker
// of report tables: GFM footnotes ("[^1]") are numbered per document and
// collide when two tables share one, and plain markers survive every
// renderer.
func superscript(n int) string {
	const digits = "⁰¹²³⁴⁵⁶⁷⁸⁹"
	var b strings.Builder
	for _, c := range strconv.Itoa(n) {
		r := []rune(digits)[c-'0']
		b.WriteRune(r)
	}
	return b.String()
}

// footnotes numbers distinct reasons in order of first use.
type footnotes struct {
	order []string
	index map[string]int
}

func (f *footnotes) mark(reason string) string {
	if f.index == nil {
		f.index = map[string]int{}
	}
	n, ok := f.index[reason]
	if !ok {
		f.order = append(f.order, reason)
		n = len(f.order)
		f.index[reason] = n
	}
	return superscript(n)
}

func (f *footnotes) write(w io.Writer) error {
	if len(f.order) == 0 {
		return nil
	}
	if _, err := fmt.Fprintln(w); err != nil {
		return err
	}
	for i, r := range f.order {
		// Two trailing spaces end a line in markdown, so each note shows on
		// its own line without making a list.
		if _, err := fmt.Fprintf(w, "%s %s  \n", superscript(i+1), Escape(r)); err != nil {
			return err
		}
	}
	return nil
}
