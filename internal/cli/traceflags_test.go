package cli

import (
	"bytes"
	"context"
	"flag"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestALoadedRunWritesTheDocumentItMakes(t *testing.T) {
	fs := flag.NewFlagSet("events", flag.ContinueOnError)
	tf := AddTraceFlags(fs)
	require.NoError(t, fs.Parse(nil))
	r, err := tf.Reader("events", io.Discard)
	require.NoError(t, err)
	defer r.Close()
	load := func() *LoadedRun {
		runs, err := r.Load(context.Background(), "../../testdata/examples/fix-token-expiry.claude.jsonl", nil, io.Discard)
		require.NoError(t, err)
		require.Len(t, runs, 1)
		return runs[0]
	}

	var written bytes.Buffer
	require.NoError(t, load().WriteJSON(&written), "written from the stream's events")

	run := load()
	doc := run.Document()
	require.NotEmpty(t, doc.Events)
	assert.Same(t, doc, run.Document(), "made once")
	assert.Nil(t, run.pending, "the stream's events are let go once the document is made")
	var made, again bytes.Buffer
	require.NoError(t, doc.WriteJSON(&made))
	require.NoError(t, run.WriteJSON(&again))
	assert.Equal(t, written.String(), made.String())
	assert.Equal(t, made.String(), again.String())
}
