package runs

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/agentretrieval/agentretrieval/internal/input"
)

// A shard's trials file, run_retrieval_summary.shard-K-of-N.trials,
// holds the trials of a shard summary of schema 2.x in binary, so that a
// merge reads their figures without decoding JSON:
//
//	"retrievaltest shard trials 1\n"
//	uvarint M, then M metric names (uvarint length, bytes), sorted
//	for each trial: uvarint L, then a record of L bytes
//
// A record is the trial's configuration, path, entry and coverage curve
// (appendRec), its figures numbered by their name's place in the list of
// metric names, each float as its 64 bits. The shard summary records
// the file's name, its number of trials and its SHA-256
// (ShardTrialsRef), and its own digest covers them.
const shardTrialsMagic = "retrievaltest shard trials 1\n"

// Bounds on what a trials file may declare, so that a damaged one
// allocates nothing large.
const (
	maxShardMetrics   = 1 << 16
	maxShardRecordLen = 64 << 20
)

// A ShardTrialsRef points from a shard summary (schema 2.x) to the file
// that holds its trials.
type ShardTrialsRef struct {
	// File is the trials file's name, in the shard summary's folder:
	// Shard.TrialsFileName.
	File string `json:"file"`
	// Trials is the number of trials it holds.
	Trials int `json:"trials"`
	// SHA256 is the SHA-256 of the file, "sha256:" and hex.
	SHA256 string `json:"sha256"`
}

// TrialsFileName is the name of the file of the shard's trials,
// run_retrieval_summary.shard-K-of-N.trials.
func (s Shard) TrialsFileName() string {
	return strings.TrimSuffix(s.FileName(), ".json") + ".trials"
}

// IsShardTrialsFile reports whether the slash-separated path names a
// shard's trials file: what a merge reads beside the shard summaries.
func IsShardTrialsFile(rel string) bool {
	base := path.Base(rel)
	stem := strings.TrimSuffix(SummaryFile, ".json")
	return strings.HasPrefix(base, stem+".shard-") && strings.HasSuffix(base, ".trials")
}

// writeShardTrials writes the trials to file atomically and returns the
// reference the shard summary keeps of it.
func writeShardTrials(file string, trials []ShardTrial) (*ShardTrialsRef, error) {
	seen := map[string]bool{}
	for _, t := range trials {
		for m := range t.Values {
			seen[m] = true
		}
	}
	names := slices.Sorted(maps.Keys(seen))
	if len(names) > maxShardMetrics {
		return nil, fmt.Errorf("%s: %d metric names, more than the %d a trials file holds", file, len(names), maxShardMetrics)
	}
	id := make(map[string]uint32, len(names))
	for i, m := range names {
		id[m] = uint32(i)
	}
	h := sha256.New()
	err := writeArtifact(file, func(w io.Writer) error {
		bw := bufio.NewWriterSize(io.MultiWriter(w, h), 1<<16)
		head := []byte(shardTrialsMagic)
		head = binary.AppendUvarint(head, uint64(len(names)))
		for _, m := range names {
			head = appendString(head, m)
		}
		bw.Write(head)
		var rec, size []byte
		var r trialRec
		for _, t := range trials {
			r = trialRec{config: t.Config, path: t.Path, entry: t.TaskEntry, curve: t.Coverage, values: r.values[:0]}
			for _, m := range slices.Sorted(maps.Keys(t.Values)) {
				r.values = append(r.values, idValue{id[m], t.Values[m]})
			}
			var err error
			if rec, err = appendRec(rec[:0], &r); err != nil {
				return err
			}
			size = binary.AppendUvarint(size[:0], uint64(len(rec)))
			bw.Write(size)
			if _, err := bw.Write(rec); err != nil {
				return err
			}
		}
		return bw.Flush()
	})
	if err != nil {
		return nil, err
	}
	return &ShardTrialsRef{File: path.Base(file), Trials: len(trials), SHA256: "sha256:" + hex.EncodeToString(h.Sum(nil))}, nil
}

// A hashReader hashes what it reads.
type hashReader struct {
	r   *bufio.Reader
	h   hash.Hash
	buf [binary.MaxVarintLen64]byte
}

func (h *hashReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	h.h.Write(p[:n])
	return n, err
}

func (h *hashReader) ReadByte() (byte, error) {
	b, err := h.r.ReadByte()
	if err == nil {
		h.buf[0] = b
		h.h.Write(h.buf[:1])
	}
	return b, err
}

// readShardTrials reads the trials file of a shard summary, one record
// at a time, calling visit with each and the metric names its values are
// numbered by, and checks the file's number of trials and SHA-256
// against ref at the end: an error wrapping ErrShardEdited when they do
// not match. The trials visited before an error are not to be used.
func readShardTrials(file string, ref *ShardTrialsRef, visit func(r *trialRec, names []string) error) error {
	f, err := input.Open(file, maxInput.Or(input.TraceLimit))
	if err != nil {
		return fmt.Errorf("shard trials %s: %w (a shard summary of schema 2.x needs the file of its trials beside it)", file, err)
	}
	defer f.Close()
	hr := &hashReader{r: bufio.NewReaderSize(f, 1<<16), h: sha256.New()}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("shard trials %s: %w: %s", file, ErrShardEdited, fmt.Sprintf(format, args...))
	}
	magic := make([]byte, len(shardTrialsMagic))
	if _, err := io.ReadFull(hr, magic); err != nil || string(magic) != shardTrialsMagic {
		return bad("it does not start with %q", strings.TrimSpace(shardTrialsMagic))
	}
	readString := func(what string) (string, error) {
		n, err := binary.ReadUvarint(hr)
		if err != nil || n > 1<<16 {
			return "", bad("%s: want a length, found none or one too large", what)
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(hr, b); err != nil {
			return "", bad("%s is cut short", what)
		}
		return string(b), nil
	}
	m, err := binary.ReadUvarint(hr)
	if err != nil || m > maxShardMetrics {
		return bad("want the number of metric names, at most %d", maxShardMetrics)
	}
	names := make([]string, m)
	for i := range names {
		if names[i], err = readString(fmt.Sprintf("metric name %d", i+1)); err != nil {
			return err
		}
	}
	var rec []byte
	var r trialRec
	n := 0
	for {
		size, err := binary.ReadUvarint(hr)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil || size > maxShardRecordLen {
			return bad("trial %d: want the length of its record, at most %d bytes", n+1, maxShardRecordLen)
		}
		rec = slices.Grow(rec[:0], int(size))[:size]
		if _, err := io.ReadFull(hr, rec); err != nil {
			return bad("trial %d: its record of %d bytes is cut short", n+1, size)
		}
		n++
		if n > ref.Trials {
			return bad("more than the %d trials its shard summary counts", ref.Trials)
		}
		if err := decodeRec(rec, &r, len(names)); err != nil {
			return bad("trial %d: %v", n, err)
		}
		if err := visit(&r, names); err != nil {
			return err
		}
	}
	if n != ref.Trials {
		return bad("%d trials, not the %d its shard summary counts", n, ref.Trials)
	}
	if sum := "sha256:" + hex.EncodeToString(hr.h.Sum(nil)); sum != ref.SHA256 {
		return bad("its content does not match the SHA-256 its shard summary records (a figure or trial was changed, or the file was damaged); evaluate the shard again")
	}
	return nil
}

// loadShardTrials reads the trials file of a shard summary of schema 2.x
// into its Trials.
func (s *ShardSummary) loadShardTrials(file string) error {
	s.Trials = make([]ShardTrial, 0, s.TrialsFile.Trials)
	return readShardTrials(file, s.TrialsFile, func(r *trialRec, names []string) error {
		e := r.entry
		e.Values = r.valuesMap(names)
		s.Trials = append(s.Trials, ShardTrial{Config: r.config, Path: r.path, TaskEntry: e, Coverage: slices.Clone(r.curve)})
		return nil
	})
}
