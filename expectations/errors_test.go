package expectations

import (
	"errors"
	"testing"

	"github.com/agentretrieval/agentretrieval/internal/yamlerr"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAScenarioErrorHasOneProblemPerPosition(t *testing.T) {
	err := NewScenarioError("s.yaml", "", Errors{
		{File: "s.yaml", Line: 3, Col: 5, Msg: `unknown key "recal"`},
		{File: "truth.json", Msg: "not a ground truth file"},
		{Msg: "no position at all"},
	})
	require.Len(t, err.Errs, 3)
	pos, msg := err.Problems()
	assert.Equal(t, []string{"s.yaml:3:5", "truth.json", "s.yaml"}, pos, "a problem without a line names its own file, else the scenario's")
	assert.Equal(t, []string{`unknown key "recal"`, "not a ground truth file", "no position at all"}, msg)

	var ye *yamlerr.Error
	require.ErrorAs(t, err, &ye, "the problems are unwrapped")
	assert.Equal(t, 3, ye.Line)
	assert.Equal(t, err.Errs[0].Error()+"\n"+err.Errs[1].Error()+"\n"+err.Errs[2].Error(), err.Error())
}

func TestAScenarioErrorKeepsAnErrorWithoutPositionWhole(t *testing.T) {
	cause := errors.New("trace traces/a.jsonl: permission denied")
	err := NewScenarioError("s.yaml", "checkout", cause)
	assert.Equal(t, "checkout", err.Name)
	require.Equal(t, []error{cause}, err.Errs)
	assert.ErrorIs(t, err, cause)
	pos, msg := err.Problems()
	assert.Equal(t, []string{"s.yaml"}, pos)
	assert.Equal(t, []string{cause.Error()}, msg)
	assert.Equal(t, cause.Error(), err.Error())

	wrapped := NewScenarioError("s.yaml", "", &yamlerr.Error{File: "s.yaml", Line: 7, Col: 1, Msg: "expected a list"})
	pos, msg = wrapped.Problems()
	assert.Equal(t, []string{"s.yaml:7:1"}, pos, "a single positioned error keeps its position")
	assert.Equal(t, []string{"expected a list"}, msg)
}
