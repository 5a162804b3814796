package htmlreport

import (
	"bufio"
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeTaskRow writes what the page's template "taskrow" writes, byte for
// byte: every character html/template escapes (and NUL, and bytes that
// are not UTF-8) in every field, with and without a reason and values.
func TestWriteTaskRowIsTheTemplate(t *testing.T) {
	t.Parallel()
	parts := []string{"a", "é", "日本", `"`, "'", "&", "<", ">", "+", "\x00", "\xff", "\xe6\x97", " ", "\n", "\t", "=", "`", "&amp;", "</td>", "\u2028", "{{.}}"}
	r := rand.New(rand.NewPCG(7, 8))
	text := func() string {
		var b bytes.Buffer
		for range r.IntN(6) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		return b.String()
	}
	rows := []taskRow{
		{},
		{Name: "a", Status: "computable", Reward: "—"},
		{Name: "a<b>", Status: "non-computable", Reason: "no task folder: 'x' & \"y\" + z", Reward: "0.50", Values: []string{"n/a", "1.00"}},
		{Values: []string{""}},
	}
	for range 2000 {
		tr := taskRow{Name: text(), Status: text(), Reason: text(), Reward: text()}
		for range r.IntN(4) {
			tr.Values = append(tr.Values, text())
		}
		rows = append(rows, tr)
	}
	for _, tr := range rows {
		var want, got bytes.Buffer
		require.NoError(t, tmpl().ExecuteTemplate(&want, "taskrow", tr))
		w := bufio.NewWriter(&got)
		writeTaskRow(w, tr)
		require.NoError(t, w.Flush())
		assert.Equal(t, want.String(), got.String(), "%q", tr)
	}
}
