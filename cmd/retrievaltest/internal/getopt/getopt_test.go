package getopt

import (
	"flag"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		args       []string
		positional []string
		q, c       bool
		l          int
		m          []string
	}{
		{"flags after the positional arguments", []string{"qrels", "run", "-q"}, []string{"qrels", "run"}, true, false, 1, nil},
		{"a value glued to its flag", []string{"-l2", "-mP.5,10", "qrels", "run"}, []string{"qrels", "run"}, false, false, 2, []string{"P.5,10"}},
		{"a cluster of switches", []string{"-qc", "qrels", "run"}, []string{"qrels", "run"}, true, true, 1, nil},
		{"a cluster ending with a valued flag", []string{"-qcl3", "qrels", "run"}, []string{"qrels", "run"}, true, true, 3, nil},
		{"the flag package's own spellings", []string{"-l", "2", "-m", "map", "-q=true", "qrels", "run"}, []string{"qrels", "run"}, true, false, 2, []string{"map"}},
		{"everything after -- is positional", []string{"-q", "--", "-c", "run"}, []string{"-c", "run"}, true, false, 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fs := flag.NewFlagSet("trec", flag.ContinueOnError)
			q, c, l := fs.Bool("q", false, ""), fs.Bool("c", false, ""), fs.Int("l", 1, "")
			var m []string
			fs.Func("m", "", func(v string) error { m = append(m, v); return nil })
			pos, err := Parse(fs, tt.args, "qc", "lm")
			require.NoError(t, err)
			assert.Equal(t, tt.positional, pos)
			assert.Equal(t, tt.q, *q)
			assert.Equal(t, tt.c, *c)
			assert.Equal(t, tt.l, *l)
			assert.Equal(t, tt.m, m)
		})
	}
}

func TestParseReportsAnUnknownFlag(t *testing.T) {
	t.Parallel()
	fs := flag.NewFlagSet("trec", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Bool("q", false, "")
	_, err := Parse(fs, []string{"qrels", "-qx", "run"}, "q", "")
	assert.ErrorContains(t, err, "flag provided but not defined: -qx", "an unknown letter leaves the cluster whole")
}

func TestParseReadsALongFlagThatStartsWithAValuedLetter(t *testing.T) {
	t.Parallel()
	fs := flag.NewFlagSet("trec", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var m []string
	fs.Func("m", "", func(v string) error { m = append(m, v); return nil })
	size := fs.String("max-input-size", "", "")
	pos, err := Parse(fs, []string{"qrels", "-max-input-size", "1GiB", "run", "-mmap"}, "", "m")
	require.NoError(t, err)
	assert.Equal(t, []string{"qrels", "run"}, pos)
	assert.Equal(t, "1GiB", *size)
	assert.Equal(t, []string{"map"}, m)
}
