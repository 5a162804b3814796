package metrics

import (
	"fmt"
	"testing"

	"github.com/agentretrieval/agentretrieval/events"
)

// BenchmarkCompute1MGroundTruth computes every measure of a short session
// against a million-file ground truth: the work grows with the ground truth
// once per ranked list, not once per measure and cutoff.
func BenchmarkCompute1MGroundTruth(b *testing.B) {
	files := make([]string, 1_000_000)
	grades := make(map[string]int, len(files))
	for i := range files {
		files[i] = fmt.Sprintf("pkg/d%d/f%d.go", i%1000, i)
		grades[files[i]] = 1 + i%3
	}
	doc := &events.Document{GroundTruth: events.GroundTruth{Files: files}}
	for i := range 50 {
		f := files[i*7919]
		if i%2 == 1 {
			f = fmt.Sprintf("other/f%d.go", i)
		}
		doc.Events = append(doc.Events, events.Event{StepIndex: i, TargetFiles: []string{f}, FilesRead: []string{f}})
	}
	for b.Loop() {
		Compute(doc, Options{Grades: grades})
	}
}
