package metrics

import (
	"path"
	"slices"
)

// ErrorTaxonomy holds the retrieval-eval framework's five error labels of
// one task, each with the files it names. Retrieved means in the surfaced
// list; relevant means judged relevant at Options.Level; written means in
// some event's FilesWritten.
//
//	irrelevant_retrieval     retrieved files that are not relevant
//	missed_key_evidence      relevant files never retrieved
//	wrong_evidence_used      written files that are not relevant
//	unused_correct_retrieval relevant files retrieved but never written
//	ambiguity_near_miss      retrieved files that are not relevant but sit in
//	                         the same directory as a relevant file
//
// A near miss is also an irrelevant retrieval: the labels count causes, not
// a partition of the files.
type ErrorTaxonomy struct {
	IrrelevantRetrieval    Label `json:"irrelevant_retrieval"`
	MissedKeyEvidence      Label `json:"missed_key_evidence"`
	WrongEvidenceUsed      Label `json:"wrong_evidence_used"`
	UnusedCorrectRetrieval Label `json:"unused_correct_retrieval"`
	AmbiguityNearMiss      Label `json:"ambiguity_near_miss"`
}

// A Label is one error label: how many files it applies to, and which.
type Label struct {
	Count int      `json:"count"`
	Files []string `json:"files"`
}

func label(files []string) Label {
	if files == nil {
		files = []string{}
	}
	return Label{Count: len(files), Files: files}
}

func computeTaxonomy(in *input) *ErrorTaxonomy {
	retrieved := in.lists[Surfaced]
	relDirs := map[string]bool{}
	for _, f := range in.relevant {
		relDirs[path.Dir(f)] = true
	}
	var irrelevant, nearMiss, missed, wrong, unused []string
	// Most often no retrieved file is relevant, and the irrelevant ones
	// are the list itself.
	allIrrelevant := !slices.ContainsFunc(retrieved.files, func(f string) bool { return in.isRel[f] })
	for i, f := range retrieved.files {
		if in.isRel[f] {
			continue
		}
		if !allIrrelevant {
			irrelevant = append(irrelevant, f)
		}
		if relDirs[in.surfacedDir(i)] {
			nearMiss = append(nearMiss, f)
		}
	}
	if allIrrelevant {
		irrelevant = retrieved.files
	}
	for _, f := range in.relevant {
		if _, ok := retrieved.at[f]; !ok {
			missed = append(missed, f)
		} else if _, ok := in.firstWrite[f]; !ok {
			unused = append(unused, f)
		}
	}
	for _, f := range in.written {
		if !in.isRel[f] {
			wrong = append(wrong, f)
		}
	}
	return &ErrorTaxonomy{
		IrrelevantRetrieval:    label(irrelevant),
		MissedKeyEvidence:      label(missed),
		WrongEvidenceUsed:      label(wrong),
		UnusedCorrectRetrieval: label(unused),
		AmbiguityNearMiss:      label(nearMiss),
	}
}

// Calibration slices.
const (
	SliceSmall  = "small"  // candidate set of at most 5 files
	SliceMedium = "medium" // 6 to 20
	SliceLarge  = "large"  // more than 20

	EvidenceLocal = "local" // no MCP tool call
	EvidenceMCP   = "mcp"   // at least one MCP tool call
)

// Slices are the retrieval-eval framework's two calibration dimensions, so
// that figures can be compared within like tasks. The candidate set is the
// surfaced list: every file the agent put in front of itself.
type Slices struct {
	CandidateSetSize int `json:"candidate_set_size"`
	// CandidateSet is SliceSmall (≤ 5 files), SliceMedium (6–20) or
	// SliceLarge (> 20).
	CandidateSet string `json:"candidate_set"`
	// EvidenceType is EvidenceMCP when any event is an MCP call, else
	// EvidenceLocal.
	EvidenceType string `json:"evidence_type"`
	MCPEvents    int    `json:"mcp_events"`
}

// CandidateSetSlice returns the slice of a candidate set of n files.
func CandidateSetSlice(n int) string {
	switch {
	case n <= 5:
		return SliceSmall
	case n <= 20:
		return SliceMedium
	}
	return SliceLarge
}

func computeSlices(in *input) Slices {
	s := Slices{CandidateSetSize: len(in.lists[Surfaced].files), EvidenceType: EvidenceLocal}
	s.CandidateSet = CandidateSetSlice(s.CandidateSetSize)
	s.MCPEvents = in.mcpEvents
	if s.MCPEvents > 0 {
		s.EvidenceType = EvidenceMCP
	}
	return s
}
