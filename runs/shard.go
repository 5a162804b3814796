package runs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agentretrieval/agentretrieval/events"
)

// A Shard is part K (1-based) of N of a run's trials. A trial belongs to
// shard ShardOf(trial.Rel, N): the partition depends only on the trial's
// path relative to the run folder, so every machine that walks the same
// run, whatever its operating system, Go version or folder the run is
// mounted at, draws the same lines between shards.
type Shard struct {
	K, N int
}

// MaxShards is the largest number of shards: more would leave most of
// them empty for any run of a realistic size, and is more likely a typo.
const MaxShards = 100000

// PartitionRule describes the partition, recorded in every shard summary
// so that a merge refuses shards cut by another rule.
const PartitionRule = "fnv1a64(trial path relative to the run, slash-separated) mod N, plus 1"

// ShardOf returns the shard, 1 to n, that the trial at rel (its path
// relative to the run folder with forward slashes, Trial.Rel) belongs to
// when the run is cut into n shards: the 64-bit FNV-1a hash of rel, modulo
// n, plus one. FNV-1a is a fixed function (unlike hash/maphash, which is
// seeded per process), so the answer is the same on every machine.
func ShardOf(rel string, n int) int {
	h := fnv.New64a()
	h.Write([]byte(rel))
	return int(h.Sum64()%uint64(n)) + 1
}

// Contains reports whether the trial at rel (Trial.Rel) is in the shard.
func (s Shard) Contains(rel string) bool { return ShardOf(rel, s.N) == s.K }

// Needs reports whether evaluating the shard reads the run's file at rel
// (slash-separated, relative to the run): every file but the traces in the
// agent/ folders of other shards' trials. A command that copies a run from
// a bucket copies only those; it must still make the agent/ folders, which
// tell Walk a trial folder.
func (s Shard) Needs(rel string) bool {
	trial, _, ok := strings.Cut(rel, "/agent/")
	return !ok || s.Contains(trial)
}

// String is "K/N", as ParseShard reads it.
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.K, s.N) }

// FileName is the name of the shard's partial summary,
// run_retrieval_summary.shard-K-of-N.json.
func (s Shard) FileName() string {
	return fmt.Sprintf("%s.shard-%d-of-%d.json", strings.TrimSuffix(SummaryFile, ".json"), s.K, s.N)
}

// IsSummaryFile reports whether the slash-separated path names a run
// summary or a shard's partial summary: the files that say the other
// files of an output folder are complete, so an upload writes them last.
func IsSummaryFile(rel string) bool {
	base := path.Base(rel)
	stem := strings.TrimSuffix(SummaryFile, ".json")
	return base == SummaryFile || strings.HasPrefix(base, stem+".shard-") && strings.HasSuffix(base, ".json")
}

// Check says what is wrong with a shard: N out of 1..MaxShards, or K out
// of 1..N.
func (s Shard) Check() error {
	switch {
	case s.N < 1 || s.N > MaxShards:
		return fmt.Errorf("shard %d/%d: the number of shards must be 1 to %d", s.K, s.N, MaxShards)
	case s.K < 1 || s.K > s.N:
		if s.K == 0 {
			return fmt.Errorf("shard %d/%d: shards are numbered from 1 (1/%d to %d/%d)", s.K, s.N, s.N, s.N, s.N)
		}
		return fmt.Errorf("shard %d/%d: want a shard from 1 to %d", s.K, s.N, s.N)
	}
	return nil
}

// ParseShard reads "K/N": shard K, counted from 1, of N.
func ParseShard(spec string) (Shard, error) {
	ks, ns, ok := strings.Cut(strings.TrimSpace(spec), "/")
	if !ok {
		return Shard{}, fmt.Errorf("shard %q: want K/N, such as 2/8 for the second of eight shards", spec)
	}
	k, err := strconv.Atoi(strings.TrimSpace(ks))
	if err != nil {
		return Shard{}, fmt.Errorf("shard %q: K %q is not a whole number", spec, ks)
	}
	n, err := strconv.Atoi(strings.TrimSpace(ns))
	if err != nil {
		return Shard{}, fmt.Errorf("shard %q: N %q is not a whole number", spec, ns)
	}
	s := Shard{K: k, N: n}
	return s, s.Check()
}

// Environment variables ShardFromEnv reads, in the order it tries them.
const (
	// EnvShard is this tool's own: "K/N", for a CI matrix or by hand.
	EnvShard = "RETRIEVALTEST_SHARD"
	// EnvJobIndex is set by a Kubernetes Indexed Job: the pod's index,
	// from 0. The number of shards (the Job's completions) is not in the
	// environment and is given separately.
	EnvJobIndex = "JOB_COMPLETION_INDEX"
	// EnvSlurmTask, EnvSlurmCount and EnvSlurmMin are set by a Slurm job
	// array: the task's id, the number of tasks and the smallest id
	// (--array=1-8 numbers the tasks from 1, --array=0-7 from 0).
	EnvSlurmTask  = "SLURM_ARRAY_TASK_ID"
	EnvSlurmCount = "SLURM_ARRAY_TASK_COUNT"
	EnvSlurmMin   = "SLURM_ARRAY_TASK_MIN"
)

// ShardFromEnv finds the shard a batch engine assigned to this process,
// from the variables getenv returns (os.Getenv), trying in turn:
//
//   - RETRIEVALTEST_SHARD=K/N;
//   - JOB_COMPLETION_INDEX=I of a Kubernetes Indexed Job: shard I+1 of
//     shards, which must then be given (the Job's completions);
//   - SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT of a Slurm job array:
//     shard ID−MIN+1 of COUNT, MIN being SLURM_ARRAY_TASK_MIN (0 when
//     unset). The array must be a range with step 1 (--array=0-7).
//
// shards, when not 0, is the number of shards the caller expects: it must
// agree with the one the variables give. It also says which variable the
// shard came from. Without any of the variables, the error names them all.
func ShardFromEnv(getenv func(string) string, shards int) (Shard, string, error) {
	agree := func(s Shard, from string) (Shard, string, error) {
		if err := s.Check(); err != nil {
			return Shard{}, "", fmt.Errorf("%s: %w", from, err)
		}
		if shards != 0 && shards != s.N {
			return Shard{}, "", fmt.Errorf("%s gives %d shards, but %d were asked for", from, s.N, shards)
		}
		return s, from, nil
	}
	if v := getenv(EnvShard); v != "" {
		s, err := ParseShard(v)
		if err != nil {
			return Shard{}, "", fmt.Errorf("%s=%s: %w", EnvShard, v, err)
		}
		return agree(s, EnvShard+"="+v)
	}
	if v := getenv(EnvJobIndex); v != "" {
		from := EnvJobIndex + "=" + v
		i, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || i < 0 {
			return Shard{}, "", fmt.Errorf("%s: want a whole number from 0", from)
		}
		if shards == 0 {
			return Shard{}, "", fmt.Errorf("%s is set, but not the number of shards: give it (the Indexed Job's completions) with -shards N", from)
		}
		return agree(Shard{K: i + 1, N: shards}, from)
	}
	if v := getenv(EnvSlurmTask); v != "" {
		from := EnvSlurmTask + "=" + v
		id, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return Shard{}, "", fmt.Errorf("%s: want a whole number", from)
		}
		cv := getenv(EnvSlurmCount)
		count, err := strconv.Atoi(strings.TrimSpace(cv))
		if err != nil {
			return Shard{}, "", fmt.Errorf("%s is set, but %s=%q is not a number of tasks", from, EnvSlurmCount, cv)
		}
		lo := 0
		if mv := getenv(EnvSlurmMin); mv != "" {
			if lo, err = strconv.Atoi(strings.TrimSpace(mv)); err != nil {
				return Shard{}, "", fmt.Errorf("%s=%q: want a whole number", EnvSlurmMin, mv)
			}
			from += " " + EnvSlurmMin + "=" + mv
		}
		from += " " + EnvSlurmCount + "=" + cv
		if id < lo || id-lo >= count {
			return Shard{}, "", fmt.Errorf("%s: the task is not one of %d numbered from %d; run the array as a range with step 1 (--array=%d-%d)", from, count, lo, lo, lo+count-1)
		}
		return agree(Shard{K: id - lo + 1, N: count}, from)
	}
	return Shard{}, "", fmt.Errorf("no shard in the environment: looked for %s (K/N), %s (a Kubernetes Indexed Job, with -shards N) and %s with %s (a Slurm job array)",
		EnvShard, EnvJobIndex, EnvSlurmTask, EnvSlurmCount)
}

// ResolveShard reads a shard as run-dir's -shard and -shards flags give
// it: "" is no shard (the whole run; ok is false), "K/N" that shard,
// "auto" the shard of the batch engine (ShardFromEnv, with shards as the
// number of shards when not 0). from says where the shard came from. The
// number of shards goes with "auto" only: given with "K/N" or without a
// shard, it is an error rather than silently ignored.
func ResolveShard(spec string, shards int, getenv func(string) string) (s Shard, from string, ok bool, err error) {
	if shards < 0 || shards > MaxShards {
		return Shard{}, "", false, fmt.Errorf("-shards %d: the number of shards must be 1 to %d", shards, MaxShards)
	}
	switch strings.TrimSpace(spec) {
	case "":
		if shards != 0 {
			return Shard{}, "", false, fmt.Errorf("-shards %d goes with -shard auto", shards)
		}
		return Shard{}, "", false, nil
	case "auto":
		s, from, err := ShardFromEnv(getenv, shards)
		if err != nil {
			return Shard{}, "", false, fmt.Errorf("-shard auto: %w", err)
		}
		return s, from, true, nil
	}
	if shards != 0 {
		return Shard{}, "", false, fmt.Errorf("-shards %d goes with -shard auto; -shard %s names the number of shards already", shards, spec)
	}
	s, err = ParseShard(spec)
	if err != nil {
		return Shard{}, "", false, fmt.Errorf("-shard: %w", err)
	}
	return s, "-shard " + spec, true, nil
}

// ShardSchemaVersion is the version of a shard's partial summary. Minor
// versions add optional fields; a merge rejects another major version.
// 1.1 added ground_truth and digest; a merge refuses a shard without them.
// 1.2 added each computable trial's coverage curve. 2.0 moved the trials
// out of the JSON document into a binary file beside it
// (trials_file, ShardTrialsRef), which a merge reads without decoding
// JSON; a merge of this build reads shards of 1.1, 1.2 and 2.0.
const ShardSchemaVersion = "2.0"

// A ShardSummary is run_retrieval_summary.shard-K-of-N.json, what
// EvaluateShard writes: every trial of the shard with all its figures
// (not averages, which could not be merged exactly), and what the merge
// needs to check that shards belong together: the run, the partition, the
// whole run's trial list (as a digest) and the settings that change the
// figures (as a digest).
type ShardSummary struct {
	SchemaVersion string `json:"schema_version"`
	Generator     string `json:"generator"`
	RunID         string `json:"run_id"`
	Shard         int    `json:"shard"`
	Shards        int    `json:"shards"`
	Partition     string `json:"partition"`
	// RunTrials is the number of trials of the whole run, TrialSet the
	// SHA-256 of their paths (Trial.Rel), sorted, one a line.
	RunTrials int    `json:"run_trials"`
	TrialSet  string `json:"trial_set"`
	// Settings is the SHA-256 of the options that change a trial's
	// figures or artifacts (taxonomy, path normalization, metric options,
	// trace options, benchmark name), in a canonical JSON form. The
	// ground-truth root is not in it: the same tasks may be mounted at
	// another path on another machine.
	Settings string `json:"settings"`
	// GroundTruth is the SHA-256 of the ground truth of every task of the
	// whole run, as loaded from the ground-truth root: each task's name
	// and its files, symbols, chunks and expected edits, or that it has
	// none, in task order. Every shard computes it over the same tasks,
	// so shards evaluated against different ground truth differ here.
	GroundTruth string `json:"ground_truth"`
	// Trials are the shard's trials in Walk's order. A file of schema
	// 1.x holds them here; one of 2.x in the file TrialsFile names,
	// which ReadShardSummary reads into Trials.
	Trials []ShardTrial `json:"trials,omitempty"`
	// TrialsFile points to the file of the trials (schema 2.x).
	TrialsFile *ShardTrialsRef `json:"trials_file,omitempty"`
	// Digest is the SHA-256 of the rest of the document (see
	// ReadShardSummary), so that a merge refuses a file edited or damaged
	// after run-dir wrote it. It guards against mistakes, not forgery:
	// whoever edits the file can compute it again.
	Digest string `json:"digest,omitempty"`

	// Source is the file the summary was read from, for messages; empty
	// for one built in memory.
	Source string `json:"-"`
	// header holds the members read from the file but its trials, for a
	// merge that streams them (readShardHeader).
	header map[string]json.RawMessage
}

// A ShardTrial is one trial of a shard: its configuration, its path in the
// run, and its entry as the run summary will hold it.
type ShardTrial struct {
	Config string `json:"config"`
	Path   string `json:"path"`
	TaskEntry
	// Coverage is the trial's coverage curve (CoverageCurve), for a
	// computable trial whose ground truth names files; added in 1.2.
	Coverage []float64 `json:"coverage,omitempty"`
}

// Part returns which shard the summary is.
func (s *ShardSummary) Part() Shard { return Shard{K: s.Shard, N: s.Shards} }

// Summary gathers the shard's own trials into a summary, with statistics
// over the shard's tasks alone: a view of one shard, not of the run (see
// MergeShards).
func (s *ShardSummary) Summary() *Summary {
	entries := map[string][]TaskEntry{}
	for _, t := range s.Trials {
		entries[t.Config] = append(entries[t.Config], t.TaskEntry)
	}
	return Summarize(s.RunID, entries)
}

// Totals counts the shard's trials, and those of each status.
func (s *ShardSummary) Totals() (trials, computable, nonComputable, degraded, failed int) {
	for _, t := range s.Trials {
		switch t.Status {
		case Computable:
			computable++
		case NonComputable:
			nonComputable++
		case Degraded:
			degraded++
		case Failed:
			failed++
		}
	}
	return len(s.Trials), computable, nonComputable, degraded, failed
}

// name says which shard s is in messages: its file, or "shard K of N".
func (s *ShardSummary) name() string {
	if s.Source != "" {
		return fmt.Sprintf("shard %d of %d (%s)", s.Shard, s.Shards, s.Source)
	}
	return fmt.Sprintf("shard %d of %d", s.Shard, s.Shards)
}

// EvaluateShard is Evaluate for one shard of the run's trials: it walks the
// whole run (the artifact names of a trial depend on the others, and the
// shard summary records the run's trial list), evaluates only the trials
// of the shard, writes their artifacts as Evaluate does, and writes the
// partial summary <out>/run_retrieval_summary.shard-K-of-N.json instead of
// the run summary. A shard may hold no trial; its summary is still
// written, since a merge needs every shard.
//
// Trials that cannot be evaluated are in the shard summary as failed, and
// the error lists them, as with Evaluate. MergeShards joins the shard
// summaries into the run summary.
func EvaluateShard(ctx context.Context, dir string, shard Shard, opts Options) (*ShardSummary, error) {
	if err := shard.Check(); err != nil {
		return nil, err
	}
	if opts.Plan != nil && opts.Plan.Shard != shard {
		return nil, fmt.Errorf("plan %s: %w: its part is of shard %s, not %s", opts.Plan.Source, ErrPlan, opts.Plan.Shard, shard)
	}
	sr := &shardRun{shard: shard, plan: opts.Plan}
	opts.shard = sr
	_, err := Evaluate(ctx, dir, opts)
	return sr.summary, err
}

// shardRun is what Evaluate does differently for a shard: it keeps only
// the shard's trials (take) and writes the shard summary instead of the
// run summary (write).
type shardRun struct {
	shard   Shard
	plan    *PlanPart // the shard's part of a plan, or nil
	all     []*Trial  // the whole run (without a plan)
	summary *ShardSummary
}

// take remembers the run's trials and returns the shard's.
func (sr *shardRun) take(trials []*Trial) []*Trial {
	if sr.plan != nil {
		return trials // its part of a plan holds the shard's trials only
	}
	sr.all = trials
	var out []*Trial
	for _, t := range trials {
		if sr.shard.Contains(t.Rel) {
			out = append(out, t)
		}
	}
	return out
}

// write builds the shard summary from the shard's trials and their
// results, and writes it into out.
func (sr *shardRun) write(e *evaluator, trials []*Trial, results []trialResult) error {
	opts := e.opts
	settings, err := settingsDigest(opts)
	if err != nil {
		return err
	}
	var runTrials int
	var trialSet, truth string
	if sr.plan != nil {
		h := sr.plan.Header
		runTrials, trialSet, truth = h.RunTrials, h.TrialSet, h.GroundTruth
	} else {
		rels := make([]string, len(sr.all))
		for i, t := range sr.all {
			rels[i] = t.Rel
		}
		runTrials, trialSet = len(rels), trialSetDigest(rels)
		if truth, err = truthDigest(e, sr.all); err != nil {
			return err
		}
	}
	s := &ShardSummary{
		SchemaVersion: ShardSchemaVersion,
		Generator:     events.Generator,
		RunID:         opts.RunID,
		Shard:         sr.shard.K,
		Shards:        sr.shard.N,
		Partition:     PartitionRule,
		RunTrials:     runTrials,
		TrialSet:      trialSet,
		Settings:      settings,
		GroundTruth:   truth,
		Trials:        make([]ShardTrial, len(trials)),
	}
	for i, t := range trials {
		s.Trials[i] = ShardTrial{Config: t.Config, Path: t.Rel, TaskEntry: results[i].entry, Coverage: results[i].coverage}
	}
	path := filepath.Join(opts.Out, sr.shard.FileName())
	if err := writeShardSummary(path, s); err != nil {
		return err
	}
	s.Source = path
	sr.summary = s
	return nil
}

// trialSetDigest is the SHA-256, in hex with a "sha256:" prefix, of the
// trial paths sorted, each followed by a newline.
func trialSetDigest(rels []string) string {
	sorted := slices.Sorted(slices.Values(rels))
	h := sha256.New()
	for _, r := range sorted {
		h.Write([]byte(r))
		h.Write([]byte{'\n'})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// settingsDigest is the SHA-256 of the options that change what a trial
// gives, as canonical JSON (struct fields in order, map keys sorted).
func settingsDigest(opts Options) (string, error) {
	tax := opts.Events.Taxonomy
	if tax == nil {
		tax = events.DefaultTaxonomy()
	}
	paths := opts.Events.Paths
	if paths.Prefixes == nil {
		paths.Prefixes = events.DefaultWorkspacePrefixes
	}
	data, err := json.Marshal(struct {
		Taxonomy       []events.Rule
		Paths          events.PathNormalizer
		Metrics        any
		SessionID      string
		MaxResultBytes int
		MaxInputSize   int64
		Benchmark      string
	}{
		Taxonomy:       tax.Rules(),
		Paths:          paths,
		Metrics:        opts.Metrics,
		SessionID:      opts.Trace.SessionID,
		MaxResultBytes: opts.Trace.MaxResultBytes,
		MaxInputSize:   opts.Trace.MaxInputSize,
		Benchmark:      opts.Benchmark,
	})
	if err != nil {
		return "", fmt.Errorf("the evaluation settings cannot be recorded: %w", err)
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// truthDigest is the SHA-256 of the ground truth of every task of trials,
// sorted by task: for each, its name and either its ground truth as
// events.GroundTruth in JSON or "none". The reason a task has none is left
// out: it names the ground-truth root, which another machine may mount
// elsewhere.
func truthDigest(e *evaluator, trials []*Trial) (string, error) {
	tasks := map[string]bool{}
	for _, t := range trials {
		tasks[t.Task] = true
	}
	h := sha256.New()
	for _, task := range slices.Sorted(maps.Keys(tasks)) {
		h.Write([]byte(task))
		h.Write([]byte{'\n'})
		to := e.truth(task)
		if to.truth == nil {
			h.Write([]byte("none\n"))
			continue
		}
		data, err := json.Marshal(to.truth.Events())
		if err != nil {
			return "", fmt.Errorf("the ground truth of %s cannot be recorded: %w", task, err)
		}
		h.Write(data)
		h.Write([]byte{'\n'})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// writeShardSummary writes the trials of s to their file beside path,
// then s to path with its digest, which covers the trials file's
// SHA-256: a reader finds the shard summary only once its trials are in
// place.
func writeShardSummary(path string, s *ShardSummary) error {
	ref, err := writeShardTrials(filepath.Join(filepath.Dir(path), s.Part().TrialsFileName()), s.Trials)
	if err != nil {
		return err
	}
	sealed := *s
	sealed.Digest, sealed.Trials, sealed.TrialsFile = "", nil, ref
	data, err := json.Marshal(&sealed)
	if err != nil {
		return err
	}
	if sealed.Digest, err = shardDigest(data); err != nil {
		return err
	}
	if err := writeArtifact(path, func(w io.Writer) error { return writeJSON(w, &sealed) }); err != nil {
		return err
	}
	s.Digest, s.TrialsFile = sealed.Digest, ref
	return nil
}

// shardDigest is the digest of a shard summary document: the SHA-256 of
// its top-level members but "digest", with keys sorted and values compact
// (as encoding/json writes a map of raw values). Fields a later minor
// version adds are covered too, and the layout of the file does not
// matter.
func shardDigest(data []byte) (string, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return "", err
	}
	delete(doc, "digest")
	canon, err := json.Marshal(doc)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(canon)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}
