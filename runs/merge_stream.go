package runs

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/agentretrieval/agentretrieval/internal/input"
)

// scanShard reads a shard summary's top-level members, once, without
// holding its trials: it gives every member but "trials" (raw) and calls
// trial, when not nil, with each element of "trials" (raw, as in the
// file). A document that is not one JSON object is an error.
func scanShard(file string, trial func(raw json.RawMessage) error) (map[string]json.RawMessage, error) {
	r, err := input.Open(file, maxInput.Or(input.TraceLimit))
	if err != nil {
		return nil, err
	}
	defer r.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(r, 1<<16))
	bad := func(err error) error { return fmt.Errorf("shard summary %s: %w", file, err) }
	if tok, err := dec.Token(); err != nil {
		return nil, bad(err)
	} else if tok != json.Delim('{') {
		return nil, bad(fmt.Errorf("want a JSON object, found %v", tok))
	}
	members := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, bad(err)
		}
		key, _ := tok.(string)
		if key != "trials" {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, bad(err)
			}
			members[key] = raw
			continue
		}
		delete(members, "trials")
		tok, err = dec.Token()
		if err != nil {
			return nil, bad(err)
		}
		if tok == nil {
			members["trials"] = json.RawMessage("null")
			continue
		}
		if tok != json.Delim('[') {
			return nil, bad(fmt.Errorf(`"trials": want an array, found %v`, tok))
		}
		for dec.More() {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, bad(err)
			}
			if trial != nil {
				if err := trial(raw); err != nil {
					return nil, err
				}
			}
		}
		if _, err := dec.Token(); err != nil {
			return nil, bad(err)
		}
		members["trials"] = nil // there, and streamed
	}
	if _, err := dec.Token(); err != nil {
		return nil, bad(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, bad(errors.New("data after the JSON object"))
	}
	return members, nil
}

// readShardHeader reads a shard summary's members but its trials and
// checks them as ReadShardSummary does, but for the digest, which needs
// the trials (streamShardTrials checks it).
func readShardHeader(file string) (*ShardSummary, error) {
	members, err := scanShard(file, nil)
	if err != nil {
		return nil, err
	}
	head := maps.Clone(members)
	delete(head, "trials")
	data, err := json.Marshal(head)
	if err != nil {
		return nil, fmt.Errorf("shard summary %s: %w", file, err)
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
	if err := s.Part().Check(); err != nil {
		return nil, fmt.Errorf("shard summary %s: %w", file, err)
	}
	if m := shardFileRE().FindStringSubmatch(filepath.Base(file)); m != nil {
		if m[1] != strconv.Itoa(s.Shard) || m[2] != strconv.Itoa(s.Shards) {
			return nil, fmt.Errorf("shard summary %s: the file is named for shard %s of %s but holds shard %d of %d", file, m[1], m[2], s.Shard, s.Shards)
		}
	}
	s.Source = file
	s.header = members
	return &s, nil
}

// streamShardTrials reads the trials of a shard summary one at a time,
// calling visit with each, and checks the file's digest as it goes (the
// digest of ReadShardSummary, computed on the stream): an error wrapping
// ErrShardEdited when it does not match. The trials visited before that
// are not to be used.
func streamShardTrials(s *ShardSummary, visit func(t *ShardTrial) error) error {
	file := s.Source
	h := sha256.New()
	// The digest is over the members sorted by key: those before
	// "trials" are hashed first, so the header is read before.
	header := maps.Clone(s.header)
	if header == nil {
		return fmt.Errorf("shard summary %s: its header was not read", file)
	}
	delete(header, "digest")
	keys := slices.Sorted(maps.Keys(header))
	writeMember := func(i int, k string, v []byte) error {
		if i > 0 {
			h.Write([]byte{','})
		}
		kb, _ := json.Marshal(k)
		h.Write(kb)
		h.Write([]byte{':'})
		cv, err := json.Marshal(json.RawMessage(v))
		if err != nil {
			return err
		}
		h.Write(cv)
		return nil
	}
	h.Write([]byte{'{'})
	i := 0
	for ; i < len(keys) && keys[i] < "trials"; i++ {
		if err := writeMember(i, keys[i], header[keys[i]]); err != nil {
			return fmt.Errorf("shard summary %s: %w", file, err)
		}
	}
	_, hasTrials := header["trials"]
	n := 0
	if hasTrials && header["trials"] == nil {
		if i > 0 {
			h.Write([]byte{','})
		}
		h.Write([]byte(`"trials":[`))
	}
	members, err := scanShard(file, func(raw json.RawMessage) error {
		cv, err := json.Marshal(raw)
		if err != nil {
			return fmt.Errorf("shard summary %s: %w", file, err)
		}
		if n > 0 {
			h.Write([]byte{','})
		}
		h.Write(cv)
		n++
		var t ShardTrial
		if err := json.Unmarshal(raw, &t); err != nil {
			return fmt.Errorf("shard summary %s: trial %d: %w", file, n, err)
		}
		return visit(&t)
	})
	if err != nil {
		return err
	}
	if hasTrials && header["trials"] == nil {
		h.Write([]byte{']'})
		i++ // "trials" is written
	}
	for ; i < len(keys); i++ {
		if keys[i] == "trials" {
			if err := writeMember(i, keys[i], members["trials"]); err != nil {
				return err
			}
			continue
		}
		if err := writeMember(i, keys[i], header[keys[i]]); err != nil {
			return err
		}
	}
	h.Write([]byte{'}'})
	if "sha256:"+hex.EncodeToString(h.Sum(nil)) != s.Digest {
		return fmt.Errorf("shard summary %s: %w: its content does not match its digest (a figure, trial or field was changed, or the file was damaged); evaluate the shard again",
			file, ErrShardEdited)
	}
	return nil
}

// streamShardRecs reads the trials file of a shard summary of schema 2.x
// one record at a time, calling visit with each and the metric names its
// values are numbered by, after checking the digest of the summary
// itself (which covers the trials file's SHA-256, checked at the end).
func streamShardRecs(s *ShardSummary, visit func(r *trialRec, names []string) error) error {
	header := maps.Clone(s.header)
	if header == nil {
		return fmt.Errorf("shard summary %s: its header was not read", s.Source)
	}
	delete(header, "digest")
	canon, err := json.Marshal(header)
	if err != nil {
		return fmt.Errorf("shard summary %s: %w", s.Source, err)
	}
	if sum := sha256.Sum256(canon); "sha256:"+hex.EncodeToString(sum[:]) != s.Digest {
		return fmt.Errorf("shard summary %s: %w: its content does not match its digest (a figure, trial or field was changed, or the file was damaged); evaluate the shard again",
			s.Source, ErrShardEdited)
	}
	return readShardTrials(filepath.Join(filepath.Dir(s.Source), s.TrialsFile.File), s.TrialsFile, visit)
}

// checkShardSet makes sure the shards are every shard of one run, once:
// the checks of MergeShards on what the shards' headers say. It returns
// the shards in shard order.
func checkShardSet(shards []*ShardSummary) ([]*ShardSummary, error) {
	if len(shards) == 0 {
		return nil, fmt.Errorf("%w: no shard summary given", ErrShards)
	}
	first := shards[0]
	byK := map[int]*ShardSummary{}
	for _, s := range shards {
		if err := s.Part().Check(); err != nil {
			return nil, fmt.Errorf("%s: %w", s.name(), err)
		}
		for _, d := range []struct{ what, a, b string }{
			{"the number of shards", strconv.Itoa(first.Shards), strconv.Itoa(s.Shards)},
			{"run id", first.RunID, s.RunID},
			{"partition", first.Partition, s.Partition},
			{"trial list (a shard of another run, or of the run with trials added or removed)", first.TrialSet, s.TrialSet},
			{"evaluation settings (taxonomy, paths, metric or trace options, benchmark)", first.Settings, s.Settings},
			{"ground truth (a shard evaluated against other task folders, or after they changed)", first.GroundTruth, s.GroundTruth},
		} {
			if d.a != d.b {
				return nil, fmt.Errorf("%w: %s and %s differ in %s: %q and %q", ErrShards, first.name(), s.name(), d.what, d.a, d.b)
			}
		}
		if prev, dup := byK[s.Shard]; dup {
			return nil, fmt.Errorf("%w: shard %d of %d is given twice: %s and %s", ErrShards, s.Shard, s.Shards, prev.name(), s.name())
		}
		byK[s.Shard] = s
	}
	var missing []string
	ordered := make([]*ShardSummary, 0, first.Shards)
	for k := 1; k <= first.Shards; k++ {
		if byK[k] == nil {
			missing = append(missing, strconv.Itoa(k))
		}
		ordered = append(ordered, byK[k])
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: shard %s of %d missing (%d of %d given)", ErrShards, strings.Join(missing, ", "), first.Shards, len(byK), first.Shards)
	}
	return ordered, nil
}

// A pathSet holds the trial paths of a run end to end, to check at the
// end that they are the run's (trialSetDigest) and that none repeats.
type pathSet struct {
	data []byte
	ends []uint32
}

func (p *pathSet) add(rel string) {
	p.data = append(p.data, rel...)
	p.ends = append(p.ends, uint32(len(p.data)))
}

func (p *pathSet) at(i int) []byte {
	start := uint32(0)
	if i > 0 {
		start = p.ends[i-1]
	}
	return p.data[start:p.ends[i]]
}

// digest sorts the paths and gives trialSetDigest of them, and a path
// that is there twice ("" when none is).
func (p *pathSet) digest() (string, string) {
	idx := make([]int, len(p.ends))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return bytes.Compare(p.at(idx[a]), p.at(idx[b])) < 0 })
	h := sha256.New()
	dup := ""
	for j, i := range idx {
		if j > 0 && dup == "" && bytes.Equal(p.at(idx[j-1]), p.at(i)) {
			dup = string(p.at(i))
		}
		h.Write(p.at(i))
		h.Write([]byte{'\n'})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), dup
}

// mergeStream merges the shard summary files into a spool, reading each
// one's header, then its trials one at a time (from its trials file for
// schema 2.x, from the document for 1.x), never holding a shard's trials: what MergeShards checks, it checks. place,
// when not nil, is called on each entry before it is spooled.
func mergeStream(files []string, sp *spool, place func(*ShardSummary, *TaskEntry)) (*ShardSummary, error) {
	shards := make([]*ShardSummary, len(files))
	for i, f := range files {
		s, err := readShardHeader(f)
		if err != nil {
			return nil, err
		}
		shards[i] = s
	}
	ordered, err := checkShardSet(shards)
	if err != nil {
		return nil, err
	}
	// Shards written before 1.2 did not record the trials' curves.
	sp.curves = true
	for _, s := range ordered {
		major, minor, _ := strings.Cut(s.SchemaVersion, ".")
		if n, err := strconv.Atoi(minor); major == "1" && (err != nil || n < 2) {
			sp.curves = false
		}
	}
	var paths pathSet
	for _, s := range ordered {
		check := func(config, trial string, e *TaskEntry) error {
			if got := ShardOf(trial, s.Shards); got != s.Shard {
				return fmt.Errorf("%w: %s holds trial %s, which belongs to shard %d", ErrShards, s.name(), trial, got)
			}
			if err := checkEntryFiles(config, trial, e); err != nil {
				return fmt.Errorf("%s: trial %s: %w", s.name(), trial, err)
			}
			paths.add(trial)
			if place != nil {
				place(s, e)
			}
			return nil
		}
		var err error
		if s.TrialsFile != nil {
			// Schema 2.x: the figures are read from the binary file,
			// with no JSON decoded.
			err = streamShardRecs(s, func(r *trialRec, names []string) error {
				if err := check(r.config, r.path, &r.entry); err != nil {
					return err
				}
				return sp.addRec(r, names)
			})
		} else {
			err = streamShardTrials(s, func(t *ShardTrial) error {
				if err := check(t.Config, t.Path, &t.TaskEntry); err != nil {
					return err
				}
				return sp.add(t.Config, &t.TaskEntry, t.Coverage)
			})
		}
		if err != nil {
			return nil, err
		}
	}
	first := ordered[0]
	digest, dup := paths.digest()
	if dup != "" {
		return nil, fmt.Errorf("%w: trial %s is twice in %s", ErrShards, dup, ordered[ShardOf(dup, first.Shards)-1].name())
	}
	if len(paths.ends) != first.RunTrials || digest != first.TrialSet {
		return nil, fmt.Errorf("%w: the shards hold %d trials, not the %d trials of the run they name (a shard file was edited or cut short)", ErrShards, len(paths.ends), first.RunTrials)
	}
	return first, nil
}
