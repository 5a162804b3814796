package events

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"mvdan.cc/sh/v3/syntax"
)

// word reads a word of one literal or one quoted string without an
// escape straight from the parser's string; every word must read as
// built part by part.
func TestAWordReadsAsItsPartsDo(t *testing.T) {
	t.Parallel()
	src := strings.Join([]string{
		`cat a.go 'b c.go' "d e.go" src/*.go 'x*.go' "y?.go" f[12].go`,
		`grep -n "fo\"o" a\ b.go 'it'"'"'s' "$HOME/a.go" "a\$b" a\\b.go`,
		`echo "" '' $'a\nb' "x\ny" +(a|b) "p\q" "$(cat z.go)" a"b"c`,
		`FOO=bar sed -n '10,40p' x.go | head -n 5`,
	}, "\n")
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	require.NoError(t, err)
	budget := maxShellCommands
	c := &shellConv{budget: &budget, parses: maxShellParses}
	words := 0
	syntax.Walk(f, func(n syntax.Node) bool {
		if w, ok := n.(*syntax.Word); ok {
			assert.Equal(t, c.wordParts(w), c.word(w), "%q", wordSource(src, w))
			words++
		}
		return true
	})
	assert.Greater(t, words, 30)
	assert.Equal(t, shellWord{}, c.word(nil))
}

func wordSource(src string, w *syntax.Word) string {
	return src[w.Pos().Offset():w.End().Offset()]
}
