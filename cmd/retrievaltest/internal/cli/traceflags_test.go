package cli

import (
	"bytes"
	"context"
	"flag"
	"io"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/metrics"
)

func TestALoadedRunWritesTheDocumentItMakes(t *testing.T) {
	fs := flag.NewFlagSet("events", flag.ContinueOnError)
	tf := AddTraceFlags(fs)
	require.NoError(t, fs.Parse(nil))
	r, err := tf.Reader("events", io.Discard)
	require.NoError(t, err)
	defer r.Close()
	load := func() *LoadedRun {
		runs, err := r.Load(context.Background(), "../../../../testdata/examples/fix-token-expiry.claude.jsonl", nil, io.Discard)
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

func TestALoadedRunMeasuresItsEventsWithoutMakingTheDocument(t *testing.T) {
	fs := flag.NewFlagSet("metrics", flag.ContinueOnError)
	tf := AddTraceFlags(fs)
	require.NoError(t, fs.Parse([]string{"-gt", "../../../../testdata/examples/fix-token-expiry.groundtruth.json"}))
	r, err := tf.Reader("metrics", io.Discard)
	require.NoError(t, err)
	defer r.Close()
	runs, err := r.Load(context.Background(), "../../../../testdata/examples/fix-token-expiry.claude.jsonl", nil, io.Discard)
	require.NoError(t, err)
	require.Len(t, runs, 1)
	run := runs[0]

	var streamed, made bytes.Buffer
	require.NoError(t, run.Metrics(metrics.Options{}).WriteJSON(&streamed))
	assert.Nil(t, run.doc, "no document is made")
	require.NotNil(t, run.pending)
	want := metrics.Compute(run.Document(), metrics.Options{})
	require.True(t, want.Computable, "the example has its ground truth")
	require.NoError(t, run.Metrics(metrics.Options{}).WriteJSON(&made))
	var direct bytes.Buffer
	require.NoError(t, want.WriteJSON(&direct))
	assert.Equal(t, direct.String(), streamed.String())
	assert.Equal(t, direct.String(), made.String(), "from the document once it is made")
}

// gcPercent returns the garbage collector's percent, leaving it as it is.
func gcPercent() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}

func TestEachRunCollectsMoreOftenOnceATraceIsReadUnlessGOGCIsSet(t *testing.T) {
	const file = "../../../../testdata/examples/fix-token-expiry.claude.jsonl"
	lowerAtAnyHeap(t)
	before := gcPercent()
	for _, tt := range []struct {
		name, gogc string
		want       int
	}{
		{"without GOGC", "", min(before, afterReadGCPercent)},
		{"with GOGC", "100", before},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.gogc != "" {
				t.Setenv("GOGC", tt.gogc)
			}
			fs := flag.NewFlagSet("metrics", flag.ContinueOnError)
			tf := AddTraceFlags(fs)
			require.NoError(t, fs.Parse(nil))
			r, err := tf.Reader("metrics", io.Discard)
			require.NoError(t, err)
			var seen []int
			code := r.EachRun(context.Background(), "metrics", []string{file, file}, nil, io.Discard, func(*LoadedRun) error {
				seen = append(seen, gcPercent())
				return nil
			})
			require.Equal(t, ExitOK, code)
			assert.Equal(t, []int{tt.want, tt.want}, seen, "while the runs are made")
			assert.Equal(t, before, gcPercent(), "put back at the end")
		})
	}
}
