package jsonscan

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAppendEscapedReadsBackAsTheText(t *testing.T) {
	for _, text := range []string{"", "plain", "q\" bs\\ nl\n cr\r tab\t bell\x07 nul\x00 esc\x1f", "é 日本 🙂 \u2028 / <>&"} {
		got := AppendEscaped([]byte("x"), []byte(text))
		require.True(t, bytes.HasPrefix(got, []byte("x")), "appends")
		var back string
		require.NoError(t, json.Unmarshal(append(append([]byte{'"'}, got[1:]...), '"'), &back), "%s", got)
		assert.Equal(t, text, back)
	}
	assert.Equal(t, `a\"b\\c\n\r\t\u0001\u001f`, string(AppendEscaped(nil, []byte("a\"b\\c\n\r\t\x01\x1f"))))
}
