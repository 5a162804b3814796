package runs

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recCases are records with every member set, and with none.
func recCases() []trialRec {
	return []trialRec{
		{config: "mcp", path: "mcp/b/t__1", entry: TaskEntry{Name: "t__1", Task: "t", Trial: "t__1", Batch: "b", Status: Computable,
			Reason: "r", Reward: ptr(0.25), Model: "m", TraceSource: ptr(""), Warnings: []string{"w1", ""}, EventsFile: "mcp/t__1" + EventsSuffix,
			MetricsFile: "mcp/t__1" + MetricsSuffix}, values: []idValue{{0, math.SmallestNonzeroFloat64}, {2, -0.0}, {1, 1e300}}, curve: []float64{0, 0.5, 1}},
		{entry: TaskEntry{Status: Failed}},
	}
}

// A record reads back as it was written, every float to its last bit.
func TestATrialRecordReadsBackAsWritten(t *testing.T) {
	t.Parallel()
	for _, want := range recCases() {
		b, err := appendRec(nil, &want)
		require.NoError(t, err)
		var got trialRec
		require.NoError(t, decodeRec(b, &got, 3))
		assert.Equal(t, want, got)
		for i, v := range want.values {
			assert.Equal(t, math.Float64bits(v.v), math.Float64bits(got.values[i].v))
		}
	}
}

// A record that is cut, that goes on past its end, or whose members are
// out of range is an error, never a panic.
func TestADamagedTrialRecordIsRefused(t *testing.T) {
	t.Parallel()
	r := recCases()[0]
	good, err := appendRec(nil, &r)
	require.NoError(t, err)
	var got trialRec
	for n := range len(good) {
		assert.Error(t, decodeRec(good[:n], &got, 3), "cut at %d of %d bytes", n, len(good))
	}
	assert.ErrorContains(t, decodeRec(append(good, 0), &got, 3), "1 bytes after the record's last member")
	assert.ErrorContains(t, decodeRec(good, &got, 2), "a count or number of 2, more than the 1 it may be")
	assert.ErrorContains(t, decodeRec(good, &got, 0), "a value without any metric name")
	nan := recCases()[1]
	nan.curve = []float64{math.NaN()}
	b, err := appendRec(nil, &nan)
	require.NoError(t, err)
	assert.ErrorContains(t, decodeRec(b, &got, 0), "a figure that is not a finite number (NaN)")
	noStatus := recCases()[1]
	noStatus.entry.Status = "unknown"
	_, err = appendRec(nil, &noStatus)
	assert.ErrorContains(t, err, `status "unknown" is not one of`)
	bad, err := appendRec(nil, &recCases()[1])
	require.NoError(t, err)
	bad[6] = 4 // the status, after six empty strings
	assert.ErrorContains(t, decodeRec(bad, &got, 0), "status 4 is not one of the 4 statuses")
	bad[6] = 0
	bad[11] = 0x80 // the flags, after four more empty strings
	assert.ErrorContains(t, decodeRec(bad, &got, 0), "unknown flags 0x80")
}

func TestTheTrialsFileOfAShardIsNamedForIt(t *testing.T) {
	t.Parallel()
	s := Shard{K: 3, N: 12}
	assert.Equal(t, "run_retrieval_summary.shard-3-of-12.trials", s.TrialsFileName())
	assert.True(t, IsShardTrialsFile("out/"+s.TrialsFileName()))
	assert.False(t, IsShardTrialsFile(s.FileName()))
	assert.False(t, IsShardTrialsFile("run_retrieval_summary.trials"))
	assert.False(t, IsSummaryFile(s.TrialsFileName()), "uploaded before the shard summary that names it")
}

// What a shard's trials file holds reads back into the trials written,
// and a file that holds other trials than its summary counts is refused.
func TestAShardsTrialsFileReadsBackItsTrials(t *testing.T) {
	t.Parallel()
	trials := []ShardTrial{
		{Config: "c", Path: "c/b/t__1", TaskEntry: TaskEntry{Name: "t__1", Task: "t", Status: Computable, Values: map[string]float64{"mrr": 0.5, "recall@5": 1}}, Coverage: []float64{0, 1}},
		{Config: "c", Path: "c/b/u__1", TaskEntry: TaskEntry{Name: "u__1", Task: "u", Status: Degraded, Reason: "no trace", Values: map[string]float64{}}},
	}
	file := filepath.Join(t.TempDir(), Shard{1, 1}.TrialsFileName())
	ref, err := writeShardTrials(file, trials)
	require.NoError(t, err)
	assert.Equal(t, Shard{1, 1}.TrialsFileName(), ref.File)
	assert.Equal(t, 2, ref.Trials)
	s := &ShardSummary{TrialsFile: ref}
	require.NoError(t, s.loadShardTrials(file))
	assert.Equal(t, trials, s.Trials)

	fewer := *ref
	fewer.Trials = 1
	assert.ErrorContains(t, readShardTrials(file, &fewer, func(*trialRec, []string) error { return nil }), "more than the 1 trials its shard summary counts")
	more := *ref
	more.Trials = 3
	assert.ErrorContains(t, readShardTrials(file, &more, func(*trialRec, []string) error { return nil }), "2 trials, not the 3 its shard summary counts")
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	head := len(shardTrialsMagic)
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"a file cut in its magic", data[:5], "it does not start with"},
		{"no count of metric names", data[:head], "want the number of metric names"},
		{"a metric name cut short", data[:head+3], "metric name 1 is cut short"},
		{"a record's length that is too large", append(append([]byte{}, data...), 0xff, 0xff, 0xff, 0xff, 0x7f), "trial 3: want the length of its record"},
		{"as many metric names as a file may hold", binary.AppendUvarint([]byte(shardTrialsMagic), maxShardMetrics), "metric name 1: want a length"},
		{"one metric name too many", binary.AppendUvarint([]byte(shardTrialsMagic), maxShardMetrics+1), "want the number of metric names, at most 65536"},
		{"a metric name of the longest length", binary.AppendUvarint([]byte(shardTrialsMagic+"\x01"), 1<<16), "metric name 1 is cut short"},
		{"a metric name too long", binary.AppendUvarint([]byte(shardTrialsMagic+"\x01"), 1<<16+1), "metric name 1: want a length, found none or one too large"},
		{"a record of the longest length", binary.AppendUvarint([]byte(shardTrialsMagic+"\x00"), maxShardRecordLen), "trial 1: its record of 67108864 bytes is cut short"},
		{"a record too long", binary.AppendUvarint([]byte(shardTrialsMagic+"\x00"), maxShardRecordLen+1), "trial 1: want the length of its record, at most 67108864 bytes"},
	} {
		bad := filepath.Join(t.TempDir(), "bad.trials")
		require.NoError(t, os.WriteFile(bad, tc.data, 0o644))
		err := readShardTrials(bad, ref, func(*trialRec, []string) error { return nil })
		assert.ErrorIs(t, err, ErrShardEdited, tc.name)
		assert.ErrorContains(t, err, tc.want, tc.name)
		assert.ErrorContains(t, err, bad, tc.name)
	}
}

// FuzzDecodeRec feeds arbitrary bytes as a record: decoding never panics,
// and a record that decodes is written back into one that decodes to the
// same.
func FuzzDecodeRec(f *testing.F) {
	for _, r := range recCases() {
		b, err := appendRec(nil, &r)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, data []byte) {
		var r trialRec
		if decodeRec(data, &r, 3) != nil {
			return
		}
		b, err := appendRec(nil, &r)
		if err != nil {
			t.Fatalf("a decoded record cannot be written back: %v", err)
		}
		var again trialRec
		if err := decodeRec(b, &again, 3); err != nil {
			t.Fatalf("a record written back does not decode: %v", err)
		}
		assert.Equal(t, r, again)
	})
}
