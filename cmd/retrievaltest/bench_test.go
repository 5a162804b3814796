package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentretrieval/agentretrieval/internal/benchcpu"
	"github.com/agentretrieval/agentretrieval/internal/benchgen"
)

// The end-to-end benchmarks run a command on a generated session of over
// 100 MB written to a file: read, classify, extract and write, as a user
// runs it. MB/s is against the size of the file, and cpu-MB/s against the
// CPU time used, steadier when other processes share the machine.
var (
	benchRealShaped   = sync.OnceValue(func() []byte { return benchgen.RealShaped(100 << 20) })
	benchLargeResults = sync.OnceValue(func() []byte { return benchgen.LargeResults(100 << 20) })
)

// benchCommand runs the command args with FILE replaced by the path of the
// generated session (and SCENARIO by a scenario that names it).
func benchCommand(b *testing.B, data []byte, args ...string) {
	dir := b.TempDir()
	file := filepath.Join(dir, "session.jsonl")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		b.Fatal(err)
	}
	scenario := filepath.Join(dir, "bench.yaml")
	yaml := "name: bench\ntrace: session.jsonl\nexpectations:\n  - type: patterns\n    forbid: [fishing]\n"
	if err := os.WriteFile(scenario, []byte(yaml), 0o644); err != nil {
		b.Fatal(err)
	}
	for i, a := range args {
		args[i] = strings.NewReplacer("FILE", file, "SCENARIO", scenario).Replace(a)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	defer benchcpu.Throughput(b, int64(len(data)))()
	for b.Loop() {
		var stderr bytes.Buffer
		// check exits 1 when the agent fished: the report is still made.
		if code := run(context.Background(), args, strings.NewReader(""), io.Discard, &stderr); code == exitBadInput {
			b.Fatalf("exit %d: %s", code, stderr.String())
		}
	}
}

func BenchmarkEventsRealShaped(b *testing.B) { benchCommand(b, benchRealShaped(), "events", "FILE") }
func BenchmarkEventsLargeResults(b *testing.B) {
	benchCommand(b, benchLargeResults(), "events", "FILE")
}
func BenchmarkMetricsRealShaped(b *testing.B) { benchCommand(b, benchRealShaped(), "metrics", "FILE") }
func BenchmarkCheckRealShaped(b *testing.B)   { benchCommand(b, benchRealShaped(), "check", "SCENARIO") }

// The real-shaped benchmarks of scripts/bench-real.sh, in-process: a real
// Claude Code session and a real Codex rollout from ../shared/samples
// (beside the repository), repeated to about 100 MB with their identifiers
// made unique per copy. They skip when the samples are absent.
var (
	benchRealClaude = sync.OnceValues(func() ([]byte, error) {
		return realSample("claude-code-jsonl/dkimuson-fe5e1c67-*.jsonl", 130,
			benchgen.Marked{Markers: []string{"toolu_"}, Sep: "x"},
			benchgen.Marked{Markers: []string{`"uuid":"`, `"parentUuid":"`}, Sep: "-"})
	})
	benchRealCodex = sync.OnceValues(func() ([]byte, error) {
		return realSample("codex/acidicsoil-rollout-*.jsonl", 296,
			benchgen.Marked{Markers: []string{`"call_id":"`}, Sep: "x"})
	})
)

func realSample(pattern string, copies int, groups ...benchgen.Marked) ([]byte, error) {
	paths, err := filepath.Glob(filepath.Join("../../../shared/samples", pattern))
	if err != nil || len(paths) != 1 {
		return nil, os.ErrNotExist
	}
	sample, err := os.ReadFile(paths[0])
	if err != nil {
		return nil, err
	}
	return benchgen.Repeat(sample, copies, groups...), nil
}

func benchReal(b *testing.B, sample func() ([]byte, error), args ...string) {
	data, err := sample()
	if err != nil {
		b.Skip("the samples folder ../../../shared/samples is absent")
	}
	benchCommand(b, data, args...)
}

func BenchmarkEventsRealClaude(b *testing.B)  { benchReal(b, benchRealClaude, "events", "FILE") }
func BenchmarkMetricsRealClaude(b *testing.B) { benchReal(b, benchRealClaude, "metrics", "FILE") }
func BenchmarkCheckRealClaude(b *testing.B)   { benchReal(b, benchRealClaude, "check", "SCENARIO") }
func BenchmarkEventsRealCodex(b *testing.B)   { benchReal(b, benchRealCodex, "events", "FILE") }

// BenchmarkCheckSuite is the suite of scripts/bench-real.sh -k suite,
// in-process: 200 scenarios over 20 copies of the Claude Code session of
// BenchmarkCheckRealClaude (each copy a file, named by ten scenarios of
// five kinds), checked with -j 1 and -j 2. One operation is the whole
// check; cpu-µs/op is its CPU time.
func BenchmarkCheckSuite(b *testing.B) {
	paths, err := filepath.Glob("../../../shared/samples/claude-code-jsonl/dkimuson-fe5e1c67-*.jsonl")
	if err != nil || len(paths) != 1 {
		b.Skip("the samples folder ../../../shared/samples is absent")
	}
	sample, err := os.ReadFile(paths[0])
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	expectations := []string{
		"  - type: patterns\n    forbid: [fishing]\n",
		"  - type: retrieval\n    recall@5: {min: 0.5}\n    mrr: {min: 0.2}\n",
		"  - type: tools\n    max_calls: 500\n    must_call: [Read]\n",
		"  - type: budget\n    max_total_calls: 2000\n",
		"  - type: index_usage\n    min_semantic_ratio: 0.1\n",
	}
	for i := range 20 {
		session := benchgen.Repeat(sample, 1,
			benchgen.Marked{Markers: []string{"toolu_"}, Sep: fmt.Sprint(i, "x")},
			benchgen.Marked{Markers: []string{`"uuid":"`, `"parentUuid":"`}, Sep: fmt.Sprint(i, "-")})
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("session-%d.jsonl", i)), session, 0o644); err != nil {
			b.Fatal(err)
		}
		for j := range 10 {
			yaml := fmt.Sprintf("name: s%d-%d\ntrace: session-%d.jsonl\nground_truth:\n  files: [file-%d.go, src/file-%d.ts]\nexpectations:\n%s",
				i, j, i, j, j, expectations[j%5])
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("s%d-%d.yaml", i, j)), []byte(yaml), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, jobs := range []string{"1", "2"} {
		b.Run("j="+jobs, func(b *testing.B) {
			defer benchcpu.PerOp(b, time.Microsecond)()
			for b.Loop() {
				var stderr bytes.Buffer
				if code := run(context.Background(), []string{"check", "-j", jobs, dir}, strings.NewReader(""), io.Discard, &stderr); code == exitBadInput {
					b.Fatalf("exit %d: %s", code, stderr.String())
				}
			}
		})
	}
}
