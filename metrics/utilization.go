package metrics

import (
	"github.com/agentretrieval/agentretrieval/events"
)

// Utilization holds the retrieval-eval framework's utilization probes: did
// the agent use what it retrieved? With R the relevant files (at
// Options.Level), E the expected edit files, and the files the agent really
// read (Event.FilesRead) and wrote (Event.FilesWritten), whatever
// Options.IncludeWrites says:
//
//	util_read_overlap_with_relevant_files        |read ∩ R| / |R|
//	util_write_overlap_with_relevant_files_proxy |written ∩ R| / |R|, null when nothing was written
//	util_write_overlap_with_expected_edit_files  |written ∩ E| / |E|, null when E is unknown
//	util_read_before_write_ratio                 written files read by an earlier event / written files,
//	                                             null when nothing was written
//
// The relevant-files write proxy is null without writes because relevant
// files are evidence, not necessarily edit targets: for a read-only task no
// write is the right behaviour and 0 would read as a failure. The
// expected-edit probe is 0, not null, without writes: the task names files
// that a correct solution edits, and not editing them is a measurable miss.
// These are file-level probes; they do not judge what was written.
type Utilization struct {
	// ProbeAvailable is false only when the task has no file-level ground
	// truth (the result is not computable).
	ProbeAvailable bool `json:"probe_available"`
	// ExpectedEditProbeAvailable is false when the ground truth has no
	// expected edit files.
	ExpectedEditProbeAvailable bool `json:"expected_edit_probe_available"`

	ReadOverlap              *float64 `json:"util_read_overlap_with_relevant_files"`
	WriteOverlapProxy        *float64 `json:"util_write_overlap_with_relevant_files_proxy"`
	WriteOverlapExpectedEdit *float64 `json:"util_write_overlap_with_expected_edit_files"`
	ReadBeforeWriteRatio     *float64 `json:"util_read_before_write_ratio"`

	// FilesWritten are the written files in order of first write.
	FilesWritten []string `json:"files_written"`
	// ReadBeforeWrite are the written files an earlier event read.
	ReadBeforeWrite []string `json:"read_before_write"`
	// EvidenceDrop is evidence_drop, the number of EvidenceDropped: the
	// relevant files the agent read but did not write, evidence it saw
	// and left out of its edit (read ∩ R − written). Null when nothing was
	// written: without an edit nothing was left out of one.
	EvidenceDrop    *float64 `json:"evidence_drop"`
	EvidenceDropped []string `json:"evidence_dropped"`
	// Reason says why probes are null.
	Reason string `json:"reason,omitempty"`
}

func computeUtilization(doc *events.Document, in *input) *Utilization {
	u := &Utilization{ProbeAvailable: true, FilesWritten: in.written, ReadBeforeWrite: []string{}, EvidenceDropped: []string{}}
	r := float64(len(in.relevant))
	readRel, writtenRel := 0, 0
	for _, f := range in.relevant {
		if _, ok := in.firstRead[f]; ok {
			readRel++
		}
		if _, ok := in.firstWrite[f]; ok {
			writtenRel++
		}
	}
	u.ReadOverlap = ptr(float64(readRel) / r)

	expected := map[string]bool{}
	for _, f := range doc.GroundTruth.ExpectedEditFiles {
		expected[in.key(f)] = true
	}
	if len(expected) > 0 {
		u.ExpectedEditProbeAvailable = true
		hit := 0
		for f := range expected {
			if _, ok := in.firstWrite[f]; ok {
				hit++
			}
		}
		u.WriteOverlapExpectedEdit = ptr(float64(hit) / float64(len(expected)))
	}

	if len(in.written) == 0 {
		u.Reason = "no file was written: the write proxy and read-before-write ratio are undefined"
		if !u.ExpectedEditProbeAvailable {
			u.Reason += "; the ground truth has no expected edit files"
		}
		return u
	}
	if !u.ExpectedEditProbeAvailable {
		u.Reason = "the ground truth has no expected edit files"
	}
	u.WriteOverlapProxy = ptr(float64(writtenRel) / r)
	u.ReadBeforeWrite = in.readBeforeWrite
	u.ReadBeforeWriteRatio = ptr(float64(len(u.ReadBeforeWrite)) / float64(len(in.written)))
	for _, f := range in.relevant {
		_, read := in.firstRead[f]
		if _, written := in.firstWrite[f]; read && !written {
			u.EvidenceDropped = append(u.EvidenceDropped, f)
		}
	}
	u.EvidenceDrop = ptr(float64(len(u.EvidenceDropped)))
	return u
}
