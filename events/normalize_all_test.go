package events_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/trace"
)

func TestNormalizeAllNamesEachSessionsTask(t *testing.T) {
	t.Parallel()
	one := []*trace.Session{{ID: "s1"}}
	several := []*trace.Session{{ID: "s1"}, {Task: "django__django-11099", ID: "s2"}, {}}
	tests := []struct {
		name     string
		sessions []*trace.Session
		input    string
		task     string // Options.Provenance.TaskName
		want     []string
	}{
		{"one session is named by the file", one, "runs/fix-bug.claude.jsonl", "", []string{"fix-bug"}},
		{"several sessions add their id or position", several, "runs/eval.jsonl", "", []string{"eval/s1", "django__django-11099", "eval/3"}},
		{"standard input has no file name", several, "-", "", []string{"s1", "django__django-11099", "3"}},
		{"one session from standard input has no name", one, "-", "", []string{""}},
		{"the option names every session", several, "runs/eval.jsonl", "T-17", []string{"T-17", "T-17", "T-17"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			docs := events.NormalizeAll(tt.sessions, tt.input, events.Options{Provenance: events.Provenance{TaskName: tt.task}})
			var got []string
			for _, d := range docs {
				got = append(got, d.Provenance.TaskName)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}
