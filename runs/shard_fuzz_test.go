package runs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzMergeShards feeds arbitrary bytes as a shard summary, merged alone
// and beside a real shard of the same run: reading and merging must never
// panic, and a merge that succeeds holds exactly the trials the shard
// summaries list. A JSON object is sealed with its digest before it is
// read, so that the fuzzer reaches the checks past the digest.
func FuzzMergeShards(f *testing.F) {
	real := `{"schema_version": "1.1", "run_id": "r", "shard": 1, "shards": 1, "partition": "` + PartitionRule + `",
 "run_trials": 1, "trial_set": "` + trialSetDigest([]string{"c/b/t__1"}) + `", "settings": "s", "ground_truth": "g",
 "trials": [{"config": "c", "path": "c/b/t__1", "name": "t", "task": "t", "status": "computable", "reward": 1,
  "trace_source": "trajectory", "values": {"recall@5": 0.5}}]}`
	for _, seed := range []string{
		real,
		`{"schema_version": "1.0", "shard": 2, "shards": 1}`,
		`{"schema_version": "2.0", "shard": 1, "shards": 1}`,
		`{"schema_version": "1.0", "shard": 1, "shards": 1, "run_trials": 1, "trials": [{"config": "..", "path": "../x", "name": ".."}]}`,
		`{"schema_version": "1.0", "shard": 1, "shards": 100000, "trials": null}`,
		`{"trials": [{}]}`,
		`[]`,
		`null`,
	} {
		f.Add([]byte(seed))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		if sealed, ok := seal(data); ok {
			data = sealed
		}
		file := filepath.Join(dir, "fuzz.json")
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := ReadShardSummary(file)
		if err != nil {
			return
		}
		sum, err := MergeShards([]*ShardSummary{s})
		if err != nil {
			return
		}
		n := 0
		for _, c := range sum.Configs {
			n += c.Trials
		}
		if n != len(s.Trials) || n != s.RunTrials {
			t.Fatalf("merged %d trials from a shard of %d (run of %d)", n, len(s.Trials), s.RunTrials)
		}
	})
}

// seal sets the digest of a JSON object, as writeShardSummary does.
func seal(data []byte) ([]byte, bool) {
	var doc map[string]json.RawMessage
	if json.Unmarshal(data, &doc) != nil || doc == nil {
		return nil, false
	}
	sum, err := shardDigest(data)
	if err != nil {
		return nil, false
	}
	doc["digest"], _ = json.Marshal(sum)
	sealed, err := json.Marshal(doc)
	return sealed, err == nil
}
