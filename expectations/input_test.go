package expectations_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentretrieval/agentretrieval/expectations"
	"github.com/agentretrieval/agentretrieval/internal/input"
)

func TestLoadRefusesAScenarioLargerThanMaxInputSize(t *testing.T) {
	t.Parallel()
	const file = "../testdata/gate/retrieval.yaml"
	if _, err := expectations.Load(file, expectations.LoadOptions{}); err != nil {
		t.Fatalf("within the default limit: %v", err)
	}
	_, err := expectations.Load(file, expectations.LoadOptions{MaxInputSize: 32})
	if !errors.Is(err, input.ErrTooLarge) || !strings.Contains(err.Error(), file) {
		t.Fatalf("got %v, want a too-large error naming %s", err, file)
	}
}

func TestMeasureBoundsTheTrace(t *testing.T) {
	t.Parallel()
	const file = "../testdata/examples/fix-token-expiry.claude.jsonl"
	_, err := expectations.Measure(file, expectations.MeasureOptions{MaxInputSize: 1024})
	if !errors.Is(err, input.ErrTooLarge) || !strings.Contains(err.Error(), file) {
		t.Fatalf("got %v, want a too-large error naming %s", err, file)
	}
}
