package groundtruth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentretrieval/agentretrieval/internal/input"
)

// ErrNoGroundTruth is returned, wrapped, by LoadTaskDir for a task folder
// with no usable ground-truth source. Callers mark such a task's retrieval
// metrics non-computable instead of scoring it zero.
var ErrNoGroundTruth = errors.New("no ground truth")

// A ParseError is a problem at one line of a diff, a JSON Lines file or a
// shell script. Line is 1-based; 0 when the problem is with the whole file.
type ParseError struct {
	File string
	Line int
	Msg  string
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Load reads ground truth from spec, choosing the loader from what spec is:
//
//   - a directory: a benchmark task folder ([LoadTaskDir]);
//   - a file ending in .patch or .diff: a unified diff ([ParseDiff]);
//   - a file ending in .jsonl: evaluation-data rows when its first row has
//     a "caseId" ([LoadDataset]), else SWE-bench instances; either way there
//     must be exactly one case or instance ([LoadDataset] and
//     [LoadSWEBench] pick one of many);
//   - a JSON file holding an object with "instance_id" and "patch": a
//     SWE-bench instance ([ParseSWEBench]);
//   - anything else: a ground-truth file ([LoadFile]).
//
// Whatever the loader, paths come back normalized and duplicates merged.
//
// Only regular files are read (a named pipe, a device or a socket is
// refused; a symbolic link is judged by its target), and none larger than
// its limit (see [SetMaxInputSize]).
func Load(spec string) (*Truth, error) {
	info, err := input.Stat(spec)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		return LoadTaskDir(spec)
	}
	switch strings.ToLower(filepath.Ext(spec)) {
	case ".patch", ".diff":
		f, err := input.Open(spec, maxInput.Or(input.DataLimit))
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return ParseDiff(spec, f)
	case ".jsonl":
		if isDatasetFile(spec) {
			return loadDatasetCase(spec)
		}
		return LoadSWEBench(spec, "")
	case ".json":
		data, err := input.ReadFile(spec, maxInput.Or(input.TruthLimit))
		if err != nil {
			return nil, err
		}
		// A byte-order mark would hide the object from encoding/json.
		data = bytes.TrimPrefix(data, []byte("\ufeff"))
		if isSWEBenchInstance(data) {
			return ParseSWEBench(spec, data)
		}
		return Parse(spec, data)
	}
	return LoadFile(spec)
}

// maxInput is the caller's override of the size limits.
var maxInput input.Max

// SetMaxInputSize sets, in bytes, the largest file the loaders of this
// package read; a larger one is an error, not read past the limit. Zero
// restores the defaults: 256 MiB for a ground-truth document read whole (a
// JSON, YAML or text file, a file of a task folder, a SWE-bench instance
// object) and 1 GiB for line-oriented files (diffs, SWE-bench instance
// files, dataset rows). It is safe to call concurrently with loading.
func SetMaxInputSize(n int64) { maxInput.Set(n) }

// isSWEBenchInstance reports whether data is a JSON object with the two
// keys that make it a SWE-bench instance. Anything else, including JSON
// that does not parse, goes to Parse, whose errors name the position.
func isSWEBenchInstance(data []byte) bool {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return false
	}
	var keys map[string]json.RawMessage
	if json.Unmarshal(data, &keys) != nil {
		return false
	}
	_, id := keys["instance_id"]
	_, patch := keys["patch"]
	return id && patch
}
