package expectations

import (
	"slices"

	"github.com/goccy/go-yaml/parser"

	"github.com/agentretrieval/agentretrieval/internal/yamllimit"
)

// ownKeys are the keys only a scenario file has at its top level. The
// scenario keys that other YAML files use too (name, description, tags;
// profile and format, which a taxonomy file or a tool's configuration may
// have) do not make a file a scenario, nor do runs, which a GitHub
// Action's action.yml has.
var ownKeys = []string{
	"trace", "traces", "trace_id", "cwd", "ground_truth", "symbols", "expectations", "run",
	"story", "repository", "executor", "timeoutSeconds",
}

// IsScenario reports whether data, a YAML file found in a folder of
// scenarios, is meant as a scenario: a mapping with at least one of the
// keys only scenarios have (trace, traces, trace_id, cwd, ground_truth,
// symbols, expectations, run, or the harness keys story, repository,
// executor and timeoutSeconds). A taxonomy file, a docker-compose.yaml or
// a CI configuration beside the scenarios is not one. A file that does not
// parse is taken for a scenario, so that Load reports its errors; an empty
// file or a document that is not a mapping is not.
func IsScenario(file string, data []byte) bool {
	f, err := yamllimit.Parse(file, data, yamllimit.Limits{}, parser.AllowDuplicateMapKey())
	if err != nil {
		return true
	}
	c := &nodeErrs{file: file}
	for _, d := range f.Docs {
		if d == nil || d.Body == nil {
			continue
		}
		es, ok := c.entries(d.Body)
		if !ok {
			return false
		}
		for _, e := range es {
			if slices.Contains(ownKeys, e.key) {
				return true
			}
		}
		return false
	}
	return false
}
