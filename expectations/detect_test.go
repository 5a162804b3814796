package expectations

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestIsScenarioTellsScenariosFromOtherYAMLFiles(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		data string
		want bool
	}{
		{name: "a scenario with a trace is one", data: "name: a\ntrace: t.json\n", want: true},
		{name: "expectations alone make a scenario", data: "expectations: []\n", want: true},
		{name: "ground truth alone makes a scenario", data: "ground_truth: [a.go]\n", want: true},
		{name: "cwd alone makes a scenario", data: "cwd: /root\n", want: true},
		{name: "a harness story is a scenario", data: "story: {title: x}\n", want: true},
		{name: "a typo among scenario keys is still a scenario, to be reported", data: "trce: t.json\nexpectations:\n  - type: tools\n", want: true},
		{name: "a file that does not parse is kept for its errors", data: "trace: [unclosed\n", want: true},
		{name: "a taxonomy file is not one", data: "profile: my-index\ntools:\n  - {match: x, category: code_search, class: semantic}\n"},
		{name: "a docker-compose file with a name is not one", data: "name: app\nservices:\n  web: {image: nginx}\n"},
		{name: "a GitHub Action is not one", data: "name: gate\nruns:\n  using: composite\n  steps: []\n"},
		{name: "a list is not one", data: "- trace\n- expectations\n"},
		{name: "a scalar is not one", data: "trace\n"},
		{name: "an empty file is not one", data: ""},
		{name: "a comment alone is not one", data: "# nothing yet\n"},
		{name: "a scenario key below the top level does not count", data: "jobs:\n  trace: t.json\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, IsScenario("f.yaml", []byte(tc.data)))
		})
	}
}
