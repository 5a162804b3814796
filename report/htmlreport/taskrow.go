package htmlreport

import (
	"bufio"
	"strings"
)

// htmlText escapes a string in the text of an element as html/template
// does ({{.}} there): the same characters, the same entities.
var htmlText = strings.NewReplacer("\x00", "\uFFFD", `"`, "&#34;", "&", "&amp;", "'", "&#39;", "+", "&#43;", "<", "&lt;", ">", "&gt;")

// writeTaskRow writes a task row as the page's template "taskrow" does,
// byte for byte, without the template's reflection (a row per trial).
func writeTaskRow(w *bufio.Writer, tr taskRow) {
	w.WriteString(`<tr><td class="mono">`)
	htmlText.WriteString(w, tr.Name)
	w.WriteString(`</td><td>`)
	htmlText.WriteString(w, tr.Status)
	if tr.Reason != "" {
		w.WriteString(`<br><span class="desc">`)
		htmlText.WriteString(w, tr.Reason)
		w.WriteString(`</span>`)
	}
	w.WriteString(`</td><td class="num">`)
	htmlText.WriteString(w, tr.Reward)
	w.WriteString(`</td>`)
	for _, v := range tr.Values {
		w.WriteString(`<td class="num">`)
		htmlText.WriteString(w, v)
		w.WriteString(`</td>`)
	}
	w.WriteString("</tr>\n")
}
