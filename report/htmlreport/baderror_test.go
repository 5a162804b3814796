package htmlreport_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/expectations"
	"github.com/agentretrieval/agentretrieval/internal/yamlerr"
	"github.com/agentretrieval/agentretrieval/report/htmlreport"
)

// A scenario that could not be checked is a section of the page, first,
// with its problem at its file:line:col, and fails the verdict.
func TestWriteCheckShowsScenariosThatCouldNotBeChecked(t *testing.T) {
	t.Parallel()
	bad := expectations.NewScenarioError("scenarios/notes.yaml", "notes",
		&yamlerr.Error{File: "scenarios/notes.yaml", Line: 4, Col: 8, Msg: "trace runs/notes.txt: not a known trace format"})
	var b bytes.Buffer
	require.NoError(t, htmlreport.WriteCheck(&b, nil, bad))
	page := b.String()
	assert.Contains(t, page, "ERROR")
	assert.Contains(t, page, "The scenario could not be checked (bad input).")
	assert.Contains(t, page, "scenarios/notes.yaml:4:8")
	assert.Contains(t, page, "trace runs/notes.txt: not a known trace format")
	assert.Contains(t, page, "1 of 1 scenarios failed.")
	assert.False(t, strings.Contains(page, "All 1 scenarios passed."))
}
