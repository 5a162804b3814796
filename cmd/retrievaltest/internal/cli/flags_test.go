package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPrintErrorsPutsEachJoinedErrorOnALineOfItsOwn(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	PrintErrors(&b, "tool run", errors.Join(errors.New("a: bad"), errors.New("b: worse")))
	PrintErrors(&b, "tool run", errors.New("c: alone"))
	assert.Equal(t, "tool run: a: bad\ntool run: b: worse\ntool run: c: alone\n", b.String())
}

func TestIntFuncReadsTheFlagWithItsOwnParser(t *testing.T) {
	t.Parallel()
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	decimal := func(s string) (int, error) {
		var n int
		_, err := fmt.Sscanf(s, "%d", &n) // "010" is 10, not 8
		return n, err
	}
	l := IntFunc(fs, "l", 1, "level", decimal)
	assert.Equal(t, 1, *l, "the default holds until the flag is given")
	require.NoError(t, fs.Parse([]string{"-l", "010"}))
	assert.Equal(t, 10, *l)
	assert.Error(t, fs.Parse([]string{"-l", "x"}), "the parser's error is the flag's")
	assert.Equal(t, "1", fs.Lookup("l").DefValue)
}

func TestSizeTakesUnitsAndRefusesZero(t *testing.T) {
	t.Parallel()
	var s Size
	require.NoError(t, s.Set("4MiB"))
	assert.Equal(t, Size(4<<20), s)
	assert.Equal(t, "4 MiB", s.String())
	assert.ErrorContains(t, s.Set("0"), "must be more than 0")
	assert.Error(t, s.Set("lots"))
	assert.Equal(t, Size(4<<20), s, "a refused value leaves the flag as it was")
}
