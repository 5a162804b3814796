package steps

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNoColorsHonoursNO_COLORAndNonTerminals(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	file, err := os.Create(filepath.Join(t.TempDir(), "log"))
	require.NoError(t, err)
	defer file.Close()

	assert.True(t, noColors("", w), "a pipe is not a terminal")
	assert.True(t, noColors("", file), "nor is a file")
	assert.True(t, noColors("1", w), "NO_COLOR set")
	assert.True(t, noColors("", nil), "no output at all")
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		assert.False(t, noColors("", tty), "a terminal without NO_COLOR has colours")
		assert.True(t, noColors("1", tty), "a terminal with NO_COLOR has none")
	}
}
