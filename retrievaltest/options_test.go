package retrievaltest

import (
	"context"
	"os/exec"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agentretrieval/agentretrieval/expectations"
)

// Every option of the scenario runner is one of Options, copied: an option
// added to one and not the other would be dropped without a word.
func TestOptionsHandEveryRunnerOptionOn(t *testing.T) {
	opts := Options{
		Registry:     expectations.DefaultRegistry(),
		Parallel:     true,
		Jobs:         3,
		Progress:     func(*expectations.Scenario, *expectations.ScenarioResult, error) {},
		Selected:     func(int) {},
		MaxInputSize: 42,
		KeepResults:  func(string) string { return "" },
		CWD:          "/root",
		Recorder:     func(context.Context, string, *exec.Cmd) ([]string, error) { return nil, nil },
		ReadsDone:    func() {},
	}
	// Every field of Options is set above.
	v := reflect.ValueOf(opts)
	for i := range v.NumField() {
		assert.False(t, v.Field(i).IsZero(), "Options.%s is set in this test", v.Type().Field(i).Name)
	}
	r := reflect.ValueOf(opts.runner())
	for i := range r.NumField() {
		name := r.Type().Field(i).Name
		from := v.FieldByName(name)
		if assert.True(t, from.IsValid(), "the runner's option %s is an Option", name) {
			assert.False(t, r.Field(i).IsZero(), "the runner's option %s is handed on", name)
		}
	}
}
