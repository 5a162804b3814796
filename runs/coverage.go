package runs

import (
	"slices"

	"github.com/agentretrieval/agentretrieval/events"
)

// CoverageCurve returns the share of the document's ground-truth files
// surfaced after each call, by the surfaced view of package metrics: a
// file counts from the first event that names it or shows its content,
// and a file an event only wrote does not count at that event. Point 0
// is 0, before any call. Nil when the document has no ground-truth file.
func CoverageCurve(doc *events.Document) []float64 {
	truth := map[string]bool{}
	for _, f := range doc.GroundTruth.Files {
		truth[f] = true
	}
	if len(truth) == 0 {
		return nil
	}
	seen := map[string]bool{}
	points := make([]float64, 1, len(doc.Events)+1)
	for _, ev := range doc.Events {
		onlyWritten := map[string]bool{}
		for _, f := range ev.FilesWritten {
			onlyWritten[f] = !slices.Contains(ev.FilesRead, f)
		}
		for _, list := range [][]string{ev.TargetFiles, ev.FilesRead} {
			for _, f := range list {
				if truth[f] && !onlyWritten[f] {
					seen[f] = true
				}
			}
		}
		points = append(points, float64(len(seen))/float64(len(truth)))
	}
	return points
}

// MeanCurve averages curves point by point, a shorter curve keeping its
// last value (a run that ended keeps its final coverage).
func MeanCurve(curves [][]float64) []float64 {
	var m curveMean
	for _, c := range curves {
		m.add(c)
	}
	return m.mean()
}

// A curveMean averages curves given one at a time, as MeanCurve does, to
// the last bit: each point is summed over the curves in the order they
// come, a shorter curve adding its last value.
type curveMean struct {
	sum     []float64
	lastSum float64 // the sum of the last values of the curves so far
	n       int
}

func (m *curveMean) add(c []float64) {
	if len(c) == 0 {
		return
	}
	for len(m.sum) < len(c) {
		// Every curve so far is shorter: each adds its last value here.
		m.sum = append(m.sum, m.lastSum)
	}
	for i := range m.sum {
		m.sum[i] += c[min(i, len(c)-1)]
	}
	m.lastSum += c[len(c)-1]
	m.n++
}

func (m *curveMean) mean() []float64 {
	out := make([]float64, len(m.sum))
	for i, v := range m.sum {
		out[i] = v / float64(m.n)
	}
	return out
}

// A ConfigCoverage is the coverage curve of one configuration: the mean
// over its tasks, in task order, of each task's mean curve over its
// computable trials (CoverageCurve), and the number of tasks.
type ConfigCoverage struct {
	Config string
	Tasks  int
	Points []float64
}

// Coverage returns the coverage curve of each configuration that has
// one, when the summary was made by Evaluate or a merge of shards that
// recorded their trials' curves; ok is false for a summary read from a
// file (the curves are then read from the artifacts).
func (s *Summary) Coverage() (curves []ConfigCoverage, ok bool) {
	return s.coverage, s.coverageKnown
}
