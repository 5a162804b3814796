package runs

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/internal/atomicfile"
)

// PlanVersion is the version of a plan file. A shard refuses a plan of
// another major version.
const PlanVersion = "1.0"

// maxPlanHeader bounds the first line of a plan: the header holds one
// part per shard (about 120 bytes each), so even MaxShards parts fit.
const maxPlanHeader = 32 << 20

// A PlanHeader is the first line of a plan file: what the run is and
// where each shard's part of it lies.
type PlanHeader struct {
	PlanVersion string `json:"plan_version"`
	Generator   string `json:"generator"`
	// RunID is the run id the shards record unless given another.
	RunID     string `json:"run_id"`
	Partition string `json:"partition"`
	Shards    int    `json:"shards"`
	// RunTrials, TrialSet and GroundTruth are what every shard summary
	// records about the whole run (see ShardSummary): a plan computes
	// them once so that a shard need not walk the run nor load the ground
	// truth of other shards' tasks.
	RunTrials   int    `json:"run_trials"`
	TrialSet    string `json:"trial_set"`
	GroundTruth string `json:"ground_truth"`
	// Parts are the shards' parts of the body, in shard order.
	Parts []PlanPartRef `json:"parts"`
	// Digest is the SHA-256 of the rest of the header, as for a shard
	// summary (keys sorted, values compact).
	Digest string `json:"digest,omitempty"`
}

// A PlanPartRef says where a shard's trials are in a plan's body: Length
// bytes from Offset, counted from the first byte after the header line,
// one trial a line, with their SHA-256.
type PlanPartRef struct {
	Offset int64  `json:"offset"`
	Length int64  `json:"length"`
	Trials int    `json:"trials"`
	Digest string `json:"digest"`
}

// A PlanTrial is one line of a plan's body: a trial as Walk found it, the
// digest of its result.json, and the digest of its task's ground truth.
type PlanTrial struct {
	Path     string   `json:"path"`
	Config   string   `json:"config"`
	Batch    string   `json:"batch,omitempty"`
	Folder   string   `json:"folder"`
	Task     string   `json:"task"`
	ID       string   `json:"id,omitempty"`
	Reward   *float64 `json:"reward,omitempty"`
	Name     string   `json:"name"`
	Warnings []string `json:"warnings,omitempty"`
	Failure  string   `json:"failure,omitempty"`
	// Result is the SHA-256 of the trial's result.json, "none" without one
	// and "" when it could not be read (Failure says why): a shard checks
	// that the folder it is given holds the same file.
	Result string `json:"result"`
	// Truth is the SHA-256 of the task's ground truth (as the shard
	// summary's ground_truth digests it), or "none".
	Truth string `json:"truth"`
}

// A PlanPart is one shard's part of a plan, as ReadPlanPart gives it.
type PlanPart struct {
	Header PlanHeader
	Shard  Shard
	Trials []PlanTrial
	// Source names that plan in messages.
	Source string
}

// WritePlan walks the run in dir once (as Evaluate does, with opts.Out
// left out of the configurations), loads the ground truth of every task
// from opts.GroundTruthRoot, and writes to file a plan of its
// evaluation in shards: a header line, then each shard's trials, one
// JSON object a line, shard after shard. A shard given a plan
// (ReadPlanPart, Options.Plan) reads the header and its own part only,
// and neither walks the run nor reads other trials' result.json or
// other tasks' ground truth. The file is written atomically.
func WritePlan(ctx context.Context, dir, file string, shards int, opts Options) (*PlanHeader, error) {
	if err := (Shard{K: 1, N: shards}).Check(); err != nil {
		return nil, err
	}
	if info, err := os.Stat(dir); err != nil {
		return nil, err
	} else if !info.IsDir() {
		return nil, fmt.Errorf("%s is not a folder", dir)
	}
	if opts.Out == "" {
		opts.Out = filepath.Join(dir, OutDir)
	}
	skip, err := checkOutDir(dir, opts.Out)
	if err != nil {
		return nil, err
	}
	trials, err := WalkWarn(dir, func(w string) {
		if opts.Warn != nil {
			opts.Warn(nil, w)
		}
	}, skip)
	if err != nil {
		return nil, err
	}
	if len(trials) == 0 {
		return nil, fmt.Errorf("no trial folders under %s (want <config>/<batch>/<task>__<id>/ with result.json or agent/)", dir)
	}
	if err := checkNames(trials); err != nil {
		return nil, err
	}
	if opts.RunID == "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		opts.RunID = filepath.Base(abs)
	}
	e := &evaluator{opts: opts, truths: map[string]*truthOnce{}}
	// Each task's ground truth is loaded, digested (alone for its
	// trials' lines, and into the run's digest, as truthDigest makes it)
	// and dropped: WritePlan holds no task's ground truth beyond its own.
	truthOf := map[string]string{}
	gh := sha256.New()
	for _, task := range slices.Sorted(maps.Keys(tasksOf(trials))) {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		data, err := taskTruthJSON(e, task)
		if err != nil {
			return nil, err
		}
		e.forget(task)
		gh.Write([]byte(task))
		gh.Write([]byte{'\n'})
		if data == nil {
			gh.Write([]byte("none\n"))
			truthOf[task] = "none"
			continue
		}
		gh.Write(data)
		gh.Write([]byte{'\n'})
		sum := sha256.Sum256(data)
		truthOf[task] = "sha256:" + hex.EncodeToString(sum[:])
	}
	rels := make([]string, len(trials))
	for i, t := range trials {
		rels[i] = t.Rel
	}
	h := PlanHeader{
		PlanVersion: PlanVersion,
		Generator:   events.Generator,
		RunID:       opts.RunID,
		Partition:   PartitionRule,
		Shards:      shards,
		RunTrials:   len(trials),
		TrialSet:    trialSetDigest(rels),
		GroundTruth: "sha256:" + hex.EncodeToString(gh.Sum(nil)),
		Parts:       make([]PlanPartRef, shards),
	}
	rels = nil
	body, err := newPlanBody()
	if err != nil {
		return nil, err
	}
	defer body.close()
	for i, t := range trials {
		k := ShardOf(t.Rel, shards)
		pt := PlanTrial{
			Path: t.Rel, Config: t.Config, Batch: t.Batch, Folder: t.Folder, Task: t.Task, ID: t.ID,
			Reward: t.Reward, Name: t.Name, Warnings: t.Warnings, Failure: t.Failure, Truth: truthOf[t.Task],
		}
		if t.Failure == "" {
			if pt.Result, err = resultDigest(t.Dir); err != nil {
				return nil, fmt.Errorf("%s: %w", t.Rel, err)
			}
		}
		line, err := marshalLine(pt)
		if err != nil {
			return nil, err
		}
		if err := body.add(k, line); err != nil {
			return nil, err
		}
		h.Parts[k-1].Trials++
		h.Parts[k-1].Length += int64(len(line))
		trials[i] = nil // its line is written: the walk's trial can go
	}
	if err := body.done(); err != nil {
		return nil, err
	}
	var off int64
	for k := range h.Parts {
		h.Parts[k].Offset = off
		off += h.Parts[k].Length
	}
	// Two passes over the lines in shard order: the parts' digests, which
	// the header before them holds, then the file.
	k, ph := 0, sha256.New()
	err = body.each(func(shard int, line []byte) error {
		for ; k < shard-1; k++ {
			h.Parts[k].Digest = "sha256:" + hex.EncodeToString(ph.Sum(nil))
			ph.Reset()
		}
		ph.Write(line)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for ; k < shards; k++ {
		h.Parts[k].Digest = "sha256:" + hex.EncodeToString(ph.Sum(nil))
		ph.Reset()
	}
	if h.Digest, err = headerDigest(h); err != nil {
		return nil, err
	}
	header, err := marshalLine(h)
	if err != nil {
		return nil, err
	}
	err = atomicfile.Write(file, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<16)
		if _, err := bw.Write(header); err != nil {
			return err
		}
		err := body.each(func(_ int, line []byte) error {
			_, err := bw.Write(line)
			return err
		})
		if err != nil {
			return err
		}
		return bw.Flush()
	})
	if err != nil {
		return nil, err
	}
	return &h, nil
}

// A planBody holds a plan's trial lines, in the order they come, in a
// temporary file, and in memory only where each lies (16 bytes a line):
// the lines are then read back shard after shard.
type planBody struct {
	file  *os.File
	w     *bufio.Writer
	size  int64
	lines []planLine
}

// A planLine is where a trial's line lies in a planBody's file, and the
// shard it belongs to.
type planLine struct {
	off   int64
	n     uint32
	shard uint32
}

func newPlanBody() (*planBody, error) {
	f, err := os.CreateTemp("", "retrievaltest-plan-")
	if err != nil {
		return nil, err
	}
	// Read only through f: its name removed at once, it leaves nothing
	// behind, whatever happens.
	os.Remove(f.Name())
	return &planBody{file: f, w: bufio.NewWriterSize(f, 1<<16)}, nil
}

// add writes a line of shard k.
func (b *planBody) add(k int, line []byte) error {
	if _, err := b.w.Write(line); err != nil {
		return fmt.Errorf("the plan's temporary file: %w", err)
	}
	b.lines = append(b.lines, planLine{off: b.size, n: uint32(len(line)), shard: uint32(k)})
	b.size += int64(len(line))
	return nil
}

// done ends the writing, and puts the lines in shard order (in the order
// they came within a shard).
func (b *planBody) done() error {
	if err := b.w.Flush(); err != nil {
		return fmt.Errorf("the plan's temporary file: %w", err)
	}
	slices.SortStableFunc(b.lines, func(x, y planLine) int { return cmp.Compare(x.shard, y.shard) })
	return nil
}

// each calls visit with every line, in shard order, and its shard; the
// line is only valid during the call.
func (b *planBody) each(visit func(shard int, line []byte) error) error {
	var buf []byte
	for _, l := range b.lines {
		buf = slices.Grow(buf[:0], int(l.n))[:l.n]
		if _, err := b.file.ReadAt(buf, l.off); err != nil {
			return fmt.Errorf("the plan's temporary file: %w", err)
		}
		if err := visit(int(l.shard), buf); err != nil {
			return err
		}
	}
	return nil
}

func (b *planBody) close() { b.file.Close() }

// tasksOf is the set of the trials' tasks.
func tasksOf(trials []*Trial) map[string]bool {
	tasks := map[string]bool{}
	for _, t := range trials {
		tasks[t.Task] = true
	}
	return tasks
}

// taskTruthDigest is the SHA-256 of one task's ground truth as
// truthDigest writes it, or "none".
func taskTruthDigest(e *evaluator, task string) (string, error) {
	data, err := taskTruthJSON(e, task)
	if err != nil {
		return "", err
	}
	if data == nil {
		return "none", nil
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// taskTruthJSON is one task's ground truth as truthDigest writes it, or
// nil when it has none.
func taskTruthJSON(e *evaluator, task string) ([]byte, error) {
	to := e.truth(task)
	if to.truth == nil {
		return nil, nil
	}
	data, err := json.Marshal(to.truth.Events())
	if err != nil {
		return nil, fmt.Errorf("the ground truth of %s cannot be recorded: %w", task, err)
	}
	return data, nil
}

// resultDigest is the SHA-256 of a trial folder's result.json, or "none"
// when there is none.
func resultDigest(dir string) (string, error) {
	data, err := readResultFile(filepath.Join(dir, "result.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return "none", nil
	}
	if err != nil {
		return "", fmt.Errorf("result.json cannot be read: %w", unwrapPath(err))
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// marshalLine is v as compact JSON without HTML escaping, and a newline.
func marshalLine(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// headerDigest seals a plan header as writeShardSummary seals a shard
// summary.
func headerDigest(h PlanHeader) (string, error) {
	h.Digest = ""
	data, err := json.Marshal(h)
	if err != nil {
		return "", err
	}
	return shardDigest(data)
}

// ErrPlan is wrapped by every error about a plan that does not match its
// own digests, the shard asked for, or the run it is used on.
var ErrPlan = errors.New("the plan does not match")

// A RangeOpener opens length bytes of a file from offset; a length below
// zero reads to the end. A local file or an object in a bucket is read
// this way, so that a shard fetches its part of a plan alone.
type RangeOpener func(offset, length int64) (io.ReadCloser, error)

// FileRange is the RangeOpener of a local file.
func FileRange(file string) RangeOpener {
	return func(offset, length int64) (io.ReadCloser, error) {
		f, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		if length < 0 {
			if _, err := f.Seek(offset, io.SeekStart); err != nil {
				f.Close()
				return nil, err
			}
			return f, nil
		}
		return struct {
			io.Reader
			io.Closer
		}{io.NewSectionReader(f, offset, length), f}, nil
	}
}

// ReadPlanPart reads the header of a plan and the part of it that belongs
// to shard, through open: the first line, in ranges of 64 KiB and more,
// then the part's bytes, whatever the size of that plan. It refuses,
// wrapping ErrPlan, a header or a part whose digest does not match (an
// edited or damaged plan), and a plan cut into another number of shards.
// source names that plan in messages.
func ReadPlanPart(open RangeOpener, source string, shard Shard) (*PlanPart, error) {
	if err := shard.Check(); err != nil {
		return nil, err
	}
	line, err := readHeaderLine(open, source)
	if err != nil {
		return nil, err
	}
	var h PlanHeader
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return nil, fmt.Errorf("plan %s:1: %w: the header is not a plan header: %v", source, ErrPlan, err)
	}
	if major, _, _ := strings.Cut(h.PlanVersion, "."); major != "1" {
		return nil, fmt.Errorf("plan %s:1: plan_version %q: %w (this build reads 1.x)", source, h.PlanVersion, ErrPlan)
	}
	if sum, err := headerDigest(h); err != nil || sum != h.Digest {
		return nil, fmt.Errorf("plan %s:1: %w: the header does not match its digest (edited or damaged); write the plan again with run-dir -plan", source, ErrPlan)
	}
	if h.Partition != PartitionRule {
		return nil, fmt.Errorf("plan %s: %w: it cuts the run by another rule (%q)", source, ErrPlan, h.Partition)
	}
	if h.Shards != shard.N || len(h.Parts) != h.Shards {
		return nil, fmt.Errorf("plan %s: %w: it is cut into %d shards, not %d; write it with -shards %d or run shard K/%d", source, ErrPlan, h.Shards, shard.N, shard.N, h.Shards)
	}
	ref := h.Parts[shard.K-1]
	part := &PlanPart{Header: h, Shard: shard, Source: source}
	if ref.Length == 0 && ref.Trials == 0 {
		return part, nil
	}
	if ref.Offset < 0 || ref.Length <= 0 {
		return nil, fmt.Errorf("plan %s:1: %w: part %d has offset %d and length %d", source, ErrPlan, shard.K, ref.Offset, ref.Length)
	}
	pr, err := open(int64(len(line))+ref.Offset, ref.Length)
	if err != nil {
		return nil, err
	}
	defer pr.Close()
	data, err := io.ReadAll(io.LimitReader(pr, ref.Length+1))
	if err != nil {
		return nil, fmt.Errorf("plan %s: %w", source, err)
	}
	if sum := sha256.Sum256(data); int64(len(data)) != ref.Length || "sha256:"+hex.EncodeToString(sum[:]) != ref.Digest {
		return nil, fmt.Errorf("plan %s: %w: the part of shard %d of %d does not match its digest (edited, damaged or cut short); write the plan again with run-dir -plan", source, ErrPlan, shard.K, shard.N)
	}
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			i = len(data) - 1
		}
		var pt PlanTrial
		if err := json.Unmarshal(data[:i+1], &pt); err != nil {
			return nil, fmt.Errorf("plan %s: %w: a trial line of shard %d: %v", source, ErrPlan, shard.K, err)
		}
		if err := pt.check(shard); err != nil {
			return nil, fmt.Errorf("plan %s: %w: trial %q: %v", source, ErrPlan, pt.Path, err)
		}
		part.Trials = append(part.Trials, pt)
		data = data[i+1:]
	}
	if len(part.Trials) != ref.Trials {
		return nil, fmt.Errorf("plan %s: %w: the part of shard %d holds %d trials, the header says %d", source, ErrPlan, shard.K, len(part.Trials), ref.Trials)
	}
	return part, nil
}

// readHeaderLine reads the first line of a plan, newline included, in
// ranges of growing size: a plan of a million trials is not fetched for
// its header.
func readHeaderLine(open RangeOpener, source string) ([]byte, error) {
	var line []byte
	for n := int64(64 << 10); int64(len(line)) < maxPlanHeader; n *= 2 {
		r, err := open(int64(len(line)), n)
		if err != nil {
			return nil, err
		}
		chunk, err := io.ReadAll(io.LimitReader(r, n))
		r.Close()
		if err != nil {
			return nil, fmt.Errorf("plan %s: %w", source, err)
		}
		if i := bytes.IndexByte(chunk, '\n'); i >= 0 {
			return append(line, chunk[:i+1]...), nil
		}
		line = append(line, chunk...)
		if int64(len(chunk)) < n {
			break // the end of the file
		}
	}
	return nil, fmt.Errorf("plan %s:1: %w: want a header line ending in a newline of at most %d bytes, written by run-dir -plan", source, ErrPlan, maxPlanHeader)
}

// check refuses a plan trial whose path could lead out of the run, or
// that belongs to another shard.
func (pt *PlanTrial) check(shard Shard) error {
	if err := checkEntryFiles(pt.Config, pt.Path, &TaskEntry{Name: pt.Name}); err != nil {
		return err
	}
	if !filepath.IsLocal(filepath.FromSlash(pt.Path)) || pt.Folder != filepath.Base(filepath.FromSlash(pt.Path)) {
		return fmt.Errorf("folder %q is not the last part of the path", pt.Folder)
	}
	if got := ShardOf(pt.Path, shard.N); got != shard.K {
		return fmt.Errorf("it belongs to shard %d, not %d", got, shard.K)
	}
	return nil
}

// ReadPlanFile is ReadPlanPart on a local file.
func ReadPlanFile(file string, shard Shard) (*PlanPart, error) {
	return ReadPlanPart(FileRange(file), file, shard)
}

// trials makes the part's trials, in the run in dir, checking that each
// is there with the result.json that plan was written from.
func (p *PlanPart) trials(dir string) ([]*Trial, error) {
	out := make([]*Trial, len(p.Trials))
	for i, pt := range p.Trials {
		t := &Trial{
			Config: pt.Config, Batch: pt.Batch, Dir: filepath.Join(dir, filepath.FromSlash(pt.Path)), Rel: pt.Path,
			Folder: pt.Folder, Task: pt.Task, ID: pt.ID, Reward: pt.Reward, Name: pt.Name,
			Warnings: pt.Warnings, Failure: pt.Failure,
		}
		if info, err := os.Stat(t.Dir); err != nil || !info.IsDir() {
			return nil, fmt.Errorf("plan %s: %w: trial %s is not a folder of the run %s (a plan of another run?)", p.Source, ErrPlan, pt.Path, dir)
		}
		if pt.Failure == "" {
			got, err := resultDigest(t.Dir)
			if err != nil {
				t.Failure = err.Error()
			} else if got != pt.Result {
				return nil, fmt.Errorf("plan %s: %w: the result.json of trial %s is not the one the plan was written from (a plan of another run, or the run changed since); write the plan again", p.Source, ErrPlan, pt.Path)
			}
		}
		out[i] = t
	}
	return out, nil
}

// checkTruth loads the ground truth of the part's tasks and refuses one
// that is not the ground truth that plan recorded: the shards of a plan
// then all agree on it without loading the other shards' tasks.
func (p *PlanPart) checkTruth(e *evaluator) error {
	want := map[string]string{}
	for _, pt := range p.Trials {
		want[pt.Task] = pt.Truth
	}
	for _, task := range slices.Sorted(maps.Keys(want)) {
		got, err := taskTruthDigest(e, task)
		if err != nil {
			return err
		}
		if got != want[task] {
			what := "other ground truth"
			switch {
			case got == "none":
				what = "no ground truth"
			case want[task] == "none":
				what = "ground truth, where the plan recorded none"
			}
			return fmt.Errorf("plan %s: %w: task %s has %s under the ground-truth root (the plan was written with another -gt-root, or the task folder changed since); write the plan again", p.Source, ErrPlan, task, what)
		}
	}
	return nil
}
