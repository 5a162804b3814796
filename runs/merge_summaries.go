package runs

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/agentretrieval/agentretrieval/internal/input"
	"github.com/agentretrieval/agentretrieval/internal/lazyre"
)

// shardFileRE matches the name of a shard's partial summary.
var shardFileRE = lazyre.New(`^` + regexp.QuoteMeta(strings.TrimSuffix(SummaryFile, ".json")) + `\.shard-([0-9]+)-of-([0-9]+)\.json$`)

// ReadShardSummary reads a shard's partial summary
// (run_retrieval_summary.shard-K-of-N.json) and, for schema 2.x, the
// trials file beside it into Trials, rejecting an unknown major
// version, a trials file whose SHA-256 or number of trials is not the one
// the summary records, a shard number out of range, and a file without a digest or
// whose digest does not match its content (wrapping ErrShardEdited): a
// figure edited by hand would otherwise change the merged statistics. The file is bounded as a run
// summary is (see SetMaxInputSize).
func ReadShardSummary(file string) (*ShardSummary, error) {
	data, err := input.ReadFile(file, maxInput.Or(input.ConfigLimit))
	if err != nil {
		return nil, err
	}
	var s ShardSummary
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("shard summary %s: %w", file, err)
	}
	if err := checkShardLayout(file, &s); err != nil {
		return nil, err
	}
	if s.Digest == "" {
		return nil, fmt.Errorf("shard summary %s: %w: it has no digest (schema_version %q; shards are sealed since 1.1); evaluate the shard again with this build's run-dir -shard",
			file, ErrShardEdited, s.SchemaVersion)
	}
	if sum, err := shardDigest(data); err != nil || sum != s.Digest {
		return nil, fmt.Errorf("shard summary %s: %w: its content does not match its digest (a figure, trial or field was changed, or the file was damaged); evaluate the shard again",
			file, ErrShardEdited)
	}
	if err := s.Part().Check(); err != nil {
		return nil, fmt.Errorf("shard summary %s: %w", file, err)
	}
	if m := shardFileRE().FindStringSubmatch(filepath.Base(file)); m != nil {
		if m[1] != strconv.Itoa(s.Shard) || m[2] != strconv.Itoa(s.Shards) {
			return nil, fmt.Errorf("shard summary %s: the file is named for shard %s of %s but holds shard %d of %d", file, m[1], m[2], s.Shard, s.Shards)
		}
	}
	if s.TrialsFile != nil {
		if err := s.loadShardTrials(filepath.Join(filepath.Dir(file), s.TrialsFile.File)); err != nil {
			return nil, err
		}
	}
	s.Source = file
	return &s, nil
}

// checkShardLayout checks a shard summary's version against where its
// trials are: in the document (1.x) or in the file it names (2.x), which
// must be the shard's own, Shard.TrialsFileName.
func checkShardLayout(file string, s *ShardSummary) error {
	switch major, _, _ := strings.Cut(s.SchemaVersion, "."); major {
	case "1":
		if s.TrialsFile != nil {
			return fmt.Errorf("shard summary %s: schema_version %q holds its trials, yet the file has a \"trials_file\" (a 2.x member)", file, s.SchemaVersion)
		}
		return nil
	case "2":
	default:
		return fmt.Errorf("shard summary %s: schema_version %q: %w (this build reads 1.x and 2.x)", file, s.SchemaVersion, ErrSummaryVersion)
	}
	switch {
	case s.TrialsFile == nil:
		return fmt.Errorf("shard summary %s: schema_version %q needs \"trials_file\", the file of its trials, and the document has none", file, s.SchemaVersion)
	case len(s.Trials) > 0:
		return fmt.Errorf("shard summary %s: schema_version %q lists trials under \"trials\", which it keeps in %s", file, s.SchemaVersion, s.TrialsFile.File)
	case s.TrialsFile.File != s.Part().TrialsFileName():
		return fmt.Errorf("shard summary %s: trials_file %q: want %q, the file of shard %d of %d", file, s.TrialsFile.File, s.Part().TrialsFileName(), s.Shard, s.Shards)
	case s.TrialsFile.Trials < 0:
		return fmt.Errorf("shard summary %s: trials_file counts %d trials", file, s.TrialsFile.Trials)
	}
	return nil
}

// FindShardSummaries lists the shard summaries among paths: a file is
// taken as it is, a folder gives every run_retrieval_summary.shard-K-of-N.json
// directly in it (shards written to separate folders, or all into one).
// A folder without any is an error.
func FindShardSummaries(paths ...string) ([]string, error) {
	var out []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			out = append(out, p)
			continue
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		found := false
		for _, e := range ents {
			if shardFileRE().MatchString(e.Name()) {
				out = append(out, filepath.Join(p, e.Name()))
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("%s holds no shard summary (run_retrieval_summary.shard-K-of-N.json, written by run-dir -shard K/N)", p)
		}
	}
	return out, nil
}

// ErrShardEdited is wrapped by the error ReadShardSummary returns for a
// shard summary whose digest is missing or does not match its content.
var ErrShardEdited = errors.New("not as run-dir wrote it")

// ErrShards is wrapped by every error MergeShards returns about shards
// that do not make up one run: missing, duplicated, of another run or
// settings.
var ErrShards = errors.New("the shards do not make up one run")

// MergeShards joins the summaries of every shard of a run into the run
// summary: the same document, entry for entry and figure for figure, as
// Evaluate gives for the whole run, since the statistics and bootstrap
// intervals are computed anew from the trials' figures (with the same
// seeds), never from the shards' averages.
//
// The shards must be of one run: the same run id, number of shards,
// partition, trial list, settings and ground truth. Each shard 1 to N must be there
// exactly once, and each trial in the shard its path hashes to. Otherwise
// the error names the shard (its file, when read with ReadShardSummary)
// and wraps ErrShards.
func MergeShards(shards []*ShardSummary) (*Summary, error) {
	ordered, err := checkShardSet(shards)
	if err != nil {
		return nil, err
	}
	first := ordered[0]
	entries := map[string][]TaskEntry{}
	seen := map[string]*ShardSummary{}
	var rels []string
	for _, s := range ordered {
		for _, t := range s.Trials {
			if prev, dup := seen[t.Path]; dup {
				return nil, fmt.Errorf("%w: trial %s is in %s and %s", ErrShards, t.Path, prev.name(), s.name())
			}
			seen[t.Path] = s
			if got := ShardOf(t.Path, s.Shards); got != s.Shard {
				return nil, fmt.Errorf("%w: %s holds trial %s, which belongs to shard %d", ErrShards, s.name(), t.Path, got)
			}
			if err := checkEntryFiles(t.Config, t.Path, &t.TaskEntry); err != nil {
				return nil, fmt.Errorf("%s: trial %s: %w", s.name(), t.Path, err)
			}
			rels = append(rels, t.Path)
			entries[t.Config] = append(entries[t.Config], t.TaskEntry)
		}
	}
	if len(rels) != first.RunTrials || trialSetDigest(rels) != first.TrialSet {
		return nil, fmt.Errorf("%w: the shards hold %d trials, not the %d trials of the run they name (a shard file was edited or cut short)", ErrShards, len(rels), first.RunTrials)
	}
	return Summarize(first.RunID, entries), nil
}

// checkEntryFiles makes sure a shard's trial is in its configuration and
// its artifact paths are the ones Evaluate writes, <config>/<name><suffix>:
// the merged summary names them, and a path from a file must not lead a
// reader of it elsewhere.
func checkEntryFiles(config, trial string, e *TaskEntry) error {
	if config == "" || config != path.Base(config) || config == "." || config == ".." || strings.ContainsAny(config, `/\`) {
		return fmt.Errorf("configuration %q is not a folder name", config)
	}
	if trial != path.Clean(trial) || !strings.HasPrefix(trial, config+"/") {
		return fmt.Errorf("path %q is not a trial folder of configuration %q", trial, config)
	}
	if e.Name == "" || e.Name != fileStem(e.Name) || e.Name != shorten(e.Name) {
		return fmt.Errorf("artifact name %q is not one run-dir writes", e.Name)
	}
	for _, f := range []struct{ got, suffix string }{{e.EventsFile, EventsSuffix}, {e.MetricsFile, MetricsSuffix}} {
		if want := config + "/" + e.Name + f.suffix; f.got != "" && f.got != want {
			return fmt.Errorf("artifact %q: want %q", f.got, want)
		}
	}
	return nil
}

// MergeOptions control MergeShardFilesWith.
type MergeOptions struct {
	// Rel gives the path, slash-separated, of the folder dir (a shard
	// summary's) relative to the folder out (the merged summary's), so
	// that the merged summary names the artifacts where the shard wrote
	// them. Nil means RelDir, for local folders; a command that staged
	// bucket prefixes gives one that compares the URLs they stand for.
	Rel func(out, dir string) (string, error)
	// SummaryValues, when not nil, are the only values the entries of the
	// summary returned keep (the file holds them all), as
	// Options.SummaryValues for Evaluate.
	SummaryValues []string
	// SummaryWithoutEntries, as Options.SummaryWithoutEntries: the
	// summary returned holds no entries.
	SummaryWithoutEntries bool
}

// MergeShardFiles is MergeShardFilesWith for local folders.
func MergeShardFiles(out string, paths ...string) (*Summary, error) {
	return MergeShardFilesWith(out, MergeOptions{}, paths...)
}

// MergeShardFilesWith merges the shard summaries found among paths (see
// FindShardSummaries) into out: it reads them, checks them as
// MergeShards does, and writes out/run_retrieval_trials.parquet and then
// out/run_retrieval_summary.json atomically. Each shard's header is read
// first, then its trials one at a time: from its trials file, decoding
// no JSON (schema 2.x), or from the document (1.x). The entries go
// through a temporary file: memory holds about two hundred bytes per
// trial and the figures the bootstrap needs, whatever the size of the
// run (see Options.SummaryValues). It reads nothing but the shard
// summaries and their trials files and writes nothing but the summary
// and its table: the artifacts stay where the shards wrote them, and the
// table names them relative to out (opts.Rel). Shards that all wrote
// into out, merged into out, give the summary and the table an unsharded
// run-dir writes there, byte for byte; the artifacts of a shard written
// elsewhere are named by a relative path ("../shard-3/<config>/<name>.…").
func MergeShardFilesWith(out string, opts MergeOptions, paths ...string) (*Summary, error) {
	files, err := FindShardSummaries(paths...)
	if err != nil {
		return nil, err
	}
	rel := opts.Rel
	if rel == nil {
		rel = RelDir
	}
	prefixes := map[string]string{}
	for _, f := range files {
		p, err := rel(out, filepath.Dir(f))
		if err != nil {
			return nil, fmt.Errorf("shard summary %s: its artifacts cannot be named from %s: %w", f, out, err)
		}
		prefixes[f] = p
	}
	sp, err := newSpool()
	if err != nil {
		return nil, err
	}
	defer sp.Close()
	first, err := mergeStream(files, sp, func(s *ShardSummary, e *TaskEntry) {
		p := prefixes[s.Source]
		if p == "." {
			return
		}
		if e.EventsFile != "" {
			e.EventsFile = path.Join(p, e.EventsFile)
		}
		if e.MetricsFile != "" {
			e.MetricsFile = path.Join(p, e.MetricsFile)
		}
	})
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	k := keepOf(opts.SummaryValues, opts.SummaryWithoutEntries)
	summary, err := sp.writeFiles(filepath.Join(out, SummaryFile), filepath.Join(out, TrialsFile), first.RunID, k)
	if err != nil {
		return nil, err
	}
	return summary, nil
}

// RelDir is the path of the local folder dir relative to the folder out,
// slash-separated, both taken with their symbolic links resolved (out
// need not exist yet): "." when they are the same folder.
func RelDir(out, dir string) (string, error) {
	ro, err := filepath.Abs(out)
	if err == nil {
		ro, err = resolveExisting(ro)
	}
	if err != nil {
		return "", err
	}
	rd, err := filepath.Abs(dir)
	if err == nil {
		rd, err = filepath.EvalSymlinks(rd)
	}
	if err != nil {
		return "", err
	}
	r, err := filepath.Rel(ro, rd)
	if err != nil {
		return "", err
	}
	return filepath.ToSlash(r), nil
}
