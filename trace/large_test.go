package trace

import (
	"bytes"
	"testing"

	"github.com/agentretrieval/agentretrieval/internal/benchcpu"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Helpers of the *_large_test.go files, which generate large inputs of
// each format to measure the readers and to check that they read them
// completely.

// readGenerated reads a generated input, detecting its format, and checks
// that it is read as format, without warnings.
func readGenerated(t *testing.T, data []byte, format string) *Session {
	t.Helper()
	s, err := Read(bytes.NewReader(data), Options{Source: "generated"})
	require.NoError(t, err)
	assert.Equal(t, format, s.Format)
	assert.Empty(t, s.Warnings)
	return s
}

// benchRead measures f reading data with opts; see benchSessions for what
// it checks and reports.
func benchRead(b *testing.B, f Format, data []byte, opts Options, calls int) {
	benchSessions(b, int64(len(data)), calls, func() ([]*Session, error) {
		s, err := f.Read(bytes.NewReader(data), opts)
		return []*Session{s}, err
	})
}

// benchSessions measures read, which reads size bytes, and reports MB/s,
// allocations and cpu-MB/s. Each read must end without an error or a
// warning and hold calls calls in all (with calls < 0, any number but
// none). Call it after the benchmark's setup.
func benchSessions(b *testing.B, size int64, calls int, read func() ([]*Session, error)) {
	b.Helper()
	b.SetBytes(size)
	b.ReportAllocs()
	defer benchcpu.Throughput(b, size)()
	for b.Loop() {
		all, err := read()
		if err != nil {
			b.Fatalf("read failed: %v", err)
		}
		n := 0
		for _, s := range all {
			if len(s.Warnings) > 0 {
				b.Fatalf("read warns: %s (%d warnings)", s.Warnings[0], len(s.Warnings))
			}
			n += len(s.Calls)
		}
		if calls < 0 && n == 0 {
			b.Fatal("read no call")
		}
		if calls >= 0 && n != calls {
			b.Fatalf("read %d calls, want %d", n, calls)
		}
	}
}
