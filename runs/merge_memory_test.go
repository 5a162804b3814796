package runs

import (
	"fmt"
	"path"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// writeFakeShards writes the n shard summaries of a run of trials trials
// in three configurations, four trials a task, each entry with the
// figures of a real one (115 values), into dir, without evaluating
// anything: what a merge reads, at any size.
func writeFakeShards(tb testing.TB, dir string, trials, n int) {
	tb.Helper()
	configs := []string{"baseline-grep", "mcp-index", "mcp-index-large"}
	names := make([]string, 115)
	for i := range names {
		names[i] = fmt.Sprintf("metric_%03d@5", i)
	}
	var rels []string
	shards := make([]*ShardSummary, n)
	for k := range shards {
		shards[k] = &ShardSummary{SchemaVersion: ShardSchemaVersion, Generator: "bench", RunID: "run", Shard: k + 1, Shards: n, Partition: PartitionRule,
			Settings: "sha256:s", GroundTruth: "sha256:g"}
	}
	for i := range trials {
		config := configs[i%3]
		task := fmt.Sprintf("task-%06d", i/12)
		id := fmt.Sprintf("a%06d", i)
		rel := path.Join(config, "2026-03-01__09-00-00", task+"__"+id)
		rels = append(rels, rel)
		values := make(map[string]float64, len(names))
		for j, m := range names {
			values[m] = float64((i*31+j*17)%1000) / 997
		}
		name := task + "__" + id
		e := TaskEntry{Name: name, Task: task, Trial: task + "__" + id, Batch: "2026-03-01__09-00-00", Status: Computable, Reward: ptr(float64(i % 2)),
			TraceSource: ptr("merged"), EventsFile: config + "/" + name + EventsSuffix, MetricsFile: config + "/" + name + MetricsSuffix, Values: values}
		s := shards[ShardOf(rel, n)-1]
		s.Trials = append(s.Trials, ShardTrial{Config: config, Path: rel, TaskEntry: e})
	}
	for _, s := range shards {
		s.RunTrials, s.TrialSet = trials, trialSetDigest(rels)
		require.NoError(tb, writeShardSummary(filepath.Join(dir, s.Part().FileName()), s))
	}
}

// peakHeap runs f and returns the largest live heap seen while it ran
// (sampled every millisecond, after a collection before it starts).
func peakHeap(f func()) uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	f()
	close(done)
	wg.Wait()
	return peak
}

// BenchmarkMergeMemory merges the shards of runs of 3,000 and 12,000
// trials, keeping no entry in memory (as a caller that only needs the
// statistics does), and reports the largest live heap during the merge:
// peak-heap-B is the figure, and the difference between the two sizes
// divided by 9,000 the bytes held per trial. The "command" cases do what
// the merge command does: keep per task the sixteen figures its table and
// page show, and read every entry back from the summary file, one at a
// time, as report.html's rows are written.
func BenchmarkMergeMemory(b *testing.B) {
	shown := make([]string, 16)
	for i := range shown {
		shown[i] = fmt.Sprintf("metric_%03d@5", i*7)
	}
	for _, command := range []bool{false, true} {
		for _, trials := range []int{3000, 12000} {
			name := fmt.Sprintf("trials=%d", trials)
			if command {
				name = "command/" + name
			}
			b.Run(name, func(b *testing.B) {
				dir := b.TempDir()
				writeFakeShards(b, dir, trials, 10)
				opts := MergeOptions{SummaryWithoutEntries: true}
				if command {
					opts.SummaryValues = shown
				}
				var peak uint64
				for b.Loop() {
					peak = peakHeap(func() {
						s, err := MergeShardFilesWith(dir, opts, dir)
						require.NoError(b, err)
						if command {
							n := 0
							require.NoError(b, s.EachEntry(func(*ConfigSummary, *TaskEntry) error { n++; return nil }))
							require.Equal(b, trials, n)
						}
					})
				}
				b.ReportMetric(float64(peak), "peak-heap-B")
				b.ReportMetric(float64(peak)/float64(trials), "peak-heap-B/trial")
			})
		}
	}
}
