package metrics

import (
	"cmp"
	"slices"

	"github.com/agentretrieval/agentretrieval/events"
)

// Resolutions and validities of the chunk-level stage, as the
// retrieval-eval framework names them.
const (
	// ChunkLevel: the ground truth has line ranges (chunks).
	ChunkLevel = "chunk_level"
	// FileLevelOnly: it has none; chunk and line figures are null.
	FileLevelOnly = "file_level_only"
	// ValidityFileMatchOnly: chunk recall counts a chunk as found when its
	// file was, whatever lines were seen (the framework's v1 granularity).
	ValidityFileMatchOnly = "file_match_only"
	// ValidityUnsupported: there is no chunk to count.
	ValidityUnsupported = "unsupported"
)

// LineLevel holds the chunk-level stage: chunk recall, which matches files
// only, and the line-range figures, which compare lines.
//
// Lines read are the union, per file, of the events' LineRanges (the lines
// each call showed the agent), leaving out ranges of files an event only
// wrote unless Options.IncludeWrites. A read whose extent the trace does not
// show (no LineRanges) adds no line. Ground-truth lines are the union, per
// file, of the chunks. With G the ground-truth lines, L the lines read, both
// counted in lines over all files:
//
//	line_coverage  |L ∩ G| / |G|         (recall)
//	line_precision |L ∩ G| / |L|         null when no line was read
//	line_f1        2PC / (P + C)         0 when no line was read or none overlaps
//	line_iou       |L ∩ G| / |L ∪ G|
//
// Chunk recall is the fraction of ground-truth chunks whose file is in the
// surfaced list (read.chunk_recall: in the read list); a chunk counts when
// its file was seen at all, as in the framework's v1.
type LineLevel struct {
	// Resolution is ChunkLevel or FileLevelOnly.
	Resolution string `json:"resolution"`
	// Validity is ValidityFileMatchOnly or ValidityUnsupported.
	Validity string `json:"validity"`
	// Chunks is the number of ground-truth chunks.
	Chunks          int      `json:"chunks"`
	ChunkRecall     *float64 `json:"chunk_recall"`
	ReadChunkRecall *float64 `json:"read.chunk_recall"`

	Coverage  *float64 `json:"line_coverage"`
	Precision *float64 `json:"line_precision"`
	F1        *float64 `json:"line_f1"`
	IoU       *float64 `json:"line_iou"`

	GroundTruthLines int `json:"ground_truth_lines"`
	LinesRead        int `json:"lines_read"`
	OverlapLines     int `json:"overlap_lines"`

	// ContextEfficiency is line_context_efficiency and RecallAt holds
	// line_recall@N by name ("line_recall@500"); LinesReadWithRereads
	// counts a line each time it was read. See lineBudget for both.
	ContextEfficiency    *float64           `json:"line_context_efficiency"`
	RecallAt             map[string]float64 `json:"line_recall_at,omitempty"`
	LinesReadWithRereads int                `json:"lines_read_with_rereads"`
	// Files details every file with ground-truth or read lines, by path.
	Files []FileLines `json:"files,omitempty"`
	// Reason says why figures are null.
	Reason string `json:"reason,omitempty"`
}

// FileLines is the line counts of one file.
type FileLines struct {
	Path             string `json:"path"`
	GroundTruthLines int    `json:"ground_truth_lines"`
	LinesRead        int    `json:"lines_read"`
	OverlapLines     int    `json:"overlap_lines"`
}

// span is an inclusive range of lines.
type span struct{ start, end int }

// spanSet is a sorted list of disjoint, non-adjacent spans.
type spanSet []span

// unionSpans merges spans into a spanSet. Spans that are empty (end <
// start) are dropped; lines below 1 do not exist and are cut off.
func unionSpans(in []span) spanSet {
	var s []span
	for _, x := range in {
		x.start = max(x.start, 1)
		if x.end >= x.start {
			s = append(s, x)
		}
	}
	slices.SortFunc(s, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	var out spanSet
	for _, x := range s {
		// Adjacent spans merge too ([1,5] and [6,9]): the count is the same
		// and the set stays canonical.
		if n := len(out); n > 0 && x.start <= out[n-1].end+1 {
			out[n-1].end = max(out[n-1].end, x.end)
			continue
		}
		out = append(out, x)
	}
	return out
}

// size returns the number of lines in the set.
func (s spanSet) size() int {
	n := 0
	for _, x := range s {
		n += x.end - x.start + 1
	}
	return n
}

// intersect returns the number of lines in both sets.
func (s spanSet) intersect(t spanSet) int {
	n, i, j := 0, 0, 0
	for i < len(s) && j < len(t) {
		lo, hi := max(s[i].start, t[j].start), min(s[i].end, t[j].end)
		if lo <= hi {
			n += hi - lo + 1
		}
		if s[i].end < t[j].end {
			i++
		} else {
			j++
		}
	}
	return n
}

func computeLines(doc *events.Document, in *input) *LineLevel {
	ll := &LineLevel{Resolution: FileLevelOnly, Validity: ValidityUnsupported, Chunks: len(doc.GroundTruth.Chunks)}
	if len(doc.GroundTruth.Chunks) == 0 {
		ll.Reason = "the ground truth has no line ranges (chunks)"
		return ll
	}
	ll.Resolution, ll.Validity = ChunkLevel, ValidityFileMatchOnly

	for _, v := range Views {
		found := 0
		for _, c := range doc.GroundTruth.Chunks {
			if _, ok := in.lists[v].at[in.key(c.Path)]; ok {
				found++
			}
		}
		r := float64(found) / float64(len(doc.GroundTruth.Chunks))
		if v == Read {
			ll.ReadChunkRecall = &r
		} else {
			ll.ChunkRecall = &r
		}
	}

	gtSpans := map[string][]span{}
	for _, c := range doc.GroundTruth.Chunks {
		k := in.key(c.Path)
		gtSpans[k] = append(gtSpans[k], span{c.Start, c.End})
	}
	readSpans := map[string][]span{}
	for i, ev := range in.evs.each() {
		for _, r := range ev.LineRanges {
			k := in.key(r.Path)
			if !in.includeWrites && in.writeOnly[i][k] {
				continue
			}
			readSpans[k] = append(readSpans[k], span{r.Start, r.End})
		}
	}
	paths := map[string]bool{}
	for k := range gtSpans {
		paths[k] = true
	}
	for k := range readSpans {
		paths[k] = true
	}
	for _, p := range sortedKeys(paths) {
		g, l := unionSpans(gtSpans[p]), unionSpans(readSpans[p])
		fl := FileLines{Path: p, GroundTruthLines: g.size(), LinesRead: l.size(), OverlapLines: g.intersect(l)}
		if fl.GroundTruthLines == 0 && fl.LinesRead == 0 {
			continue
		}
		ll.Files = append(ll.Files, fl)
		ll.GroundTruthLines += fl.GroundTruthLines
		ll.LinesRead += fl.LinesRead
		ll.OverlapLines += fl.OverlapLines
	}

	if ll.GroundTruthLines == 0 {
		ll.Reason = "the ground-truth chunks hold no valid line range"
		return ll
	}
	gt := map[string]spanSet{}
	for k, ss := range gtSpans {
		gt[k] = unionSpans(ss)
	}
	lineBudget(ll, doc, in, gt, in.lineBudgets)
	cov := float64(ll.OverlapLines) / float64(ll.GroundTruthLines)
	iou := float64(ll.OverlapLines) / float64(ll.GroundTruthLines+ll.LinesRead-ll.OverlapLines)
	ll.Coverage, ll.IoU = &cov, &iou
	if ll.LinesRead == 0 {
		// Precision is 0/0; F1 is still 0, since coverage is.
		ll.F1 = ptr(0.0)
		ll.Reason = "no line range was read: line_precision is undefined"
		return ll
	}
	prec := float64(ll.OverlapLines) / float64(ll.LinesRead)
	ll.Precision = &prec
	ll.F1 = ptr(F1(prec, cov))
	return ll
}
