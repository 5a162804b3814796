package runs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/internal/synthrun"
)

// benchShards is the number of shards the benchmarks cut a run into.
const benchShards = 4

// benchEvaluateShard evaluates shard 1 of benchShards of run, one trial
// at a time (Jobs 1), and reports trials/s: with -cpu 1, the throughput
// of one core, the figure to size a cluster with.
func benchEvaluateShard(b *testing.B, run, gt string) {
	out := filepath.Join(b.TempDir(), "out")
	// The taxonomy is loaded once, as run-dir does.
	opts := Options{GroundTruthRoot: gt, Out: out, Jobs: 1, Events: events.Options{Taxonomy: events.DefaultTaxonomy()}}
	n := 0
	for b.Loop() {
		s, err := EvaluateShard(context.Background(), run, Shard{K: 1, N: benchShards}, opts)
		if err != nil {
			b.Fatal(err)
		}
		n += len(s.Trials)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "trials/s")
}

// BenchmarkEvaluateShard evaluates one shard of four of a generated run
// of 1200 trials (100 tasks, 4 trials each, 3 configurations; traces of 3
// to 9 calls).
func BenchmarkEvaluateShard(b *testing.B) {
	tmp := b.TempDir()
	run, gt := filepath.Join(tmp, "run"), filepath.Join(tmp, "gt")
	if _, err := synthrun.Write(run, gt, synthrun.Spec{Tasks: 100, Repeats: 4, Seed: 7}); err != nil {
		b.Fatal(err)
	}
	benchEvaluateShard(b, run, gt)
}

// realTraces are real agent traces of ../shared/samples, of 26 KB to 774
// KB (8 to 167 calls), each read as a trial's agent/claude-code.txt.
var realTraces = []string{
	"claude-stream-json/skillsbench-exoplanet-claude-code-v2.1.19.stream.jsonl",
	"claude-code-jsonl/dkimuson-5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
	"claude-code-jsonl/dkimuson-fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl",
	"codex/acidicsoil-rollout-2025-11-17-codex-0.58.0.jsonl",
}

// BenchmarkEvaluateShardRealTraces evaluates one shard of four of a run
// of 240 trials (80 tasks, 3 configurations) whose traces are real agent
// sessions, copied from ../shared/samples into a temporary folder; it is
// skipped without them.
func BenchmarkEvaluateShardRealTraces(b *testing.B) {
	const samples = "../../shared/samples"
	var data [][]byte
	for _, name := range realTraces {
		d, err := os.ReadFile(filepath.Join(samples, name))
		if err != nil {
			b.Skipf("no real trace samples: %v", err)
		}
		data = append(data, d)
	}
	tmp := b.TempDir()
	run, gt := filepath.Join(tmp, "run"), filepath.Join(tmp, "gt")
	for task := range 80 {
		name := fmt.Sprintf("task-%03d", task)
		gtFile := filepath.Join(gt, name, "tests", "ground_truth.json")
		if err := os.MkdirAll(filepath.Dir(gtFile), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(gtFile, []byte(`["src/main.py", "README.md"]`), 0o644); err != nil {
			b.Fatal(err)
		}
		for c, config := range []string{"baseline", "mcp-a", "mcp-b"} {
			dir := filepath.Join(run, config, "batch", fmt.Sprintf("%s__%d", name, c))
			if err := os.MkdirAll(filepath.Join(dir, "agent"), 0o755); err != nil {
				b.Fatal(err)
			}
			result := fmt.Sprintf(`{"task_name": %q, "verifier_result": {"rewards": {"reward": %d}}}`, name, (task+c)%2)
			if err := os.WriteFile(filepath.Join(dir, "result.json"), []byte(result), 0o644); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, TranscriptFile), data[(task+c)%len(data)], 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	benchEvaluateShard(b, run, gt)
}

// BenchmarkMergeShardFiles merges the four shards of a generated run of
// 1200 trials written into one folder: reading and checking the shard
// summaries, and computing the statistics (bootstraps) of the run, which
// dominate.
func BenchmarkMergeShardFiles(b *testing.B) {
	tmp := b.TempDir()
	run, gt, out := filepath.Join(tmp, "run"), filepath.Join(tmp, "gt"), filepath.Join(tmp, "out")
	n, err := synthrun.Write(run, gt, synthrun.Spec{Tasks: 100, Repeats: 4, Seed: 7})
	if err != nil {
		b.Fatal(err)
	}
	for k := 1; k <= benchShards; k++ {
		if _, err := EvaluateShard(context.Background(), run, Shard{K: k, N: benchShards}, Options{GroundTruthRoot: gt, Out: out}); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if _, err := MergeShardFiles(out, out); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "trials/s")
}
