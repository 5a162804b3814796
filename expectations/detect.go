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
func IsScenario(file string, data []byte) bool { return ParseFile(file, data).IsScenario() }

// A ParsedFile is a YAML file parsed once for IsScenario and for loading:
// the files of a folder of scenarios are each parsed to tell the scenarios
// from other YAML, and then the scenarios are loaded from the same parse.
type ParsedFile struct {
	file string
	data []byte
	yaml *yamllimit.File
	err  error // the parser's, for Load to report
}

// ParseFile parses data, the content of file.
func ParseFile(file string, data []byte) *ParsedFile {
	// Duplicate keys are reported by the loader's walk, with the file's
	// other problems, rather than by the parser, which would stop there.
	f, err := yamllimit.Parse(file, data, yamllimit.Limits{}, parser.AllowDuplicateMapKey())
	return &ParsedFile{file: file, data: data, yaml: f, err: err}
}

// Size is the length of the file's content.
func (p *ParsedFile) Size() int { return len(p.data) }

// IsScenario is IsScenario(file, data) of the file p parsed.
func (p *ParsedFile) IsScenario() bool {
	if p.err != nil {
		return true
	}
	c := &nodeErrs{file: p.file}
	for _, d := range p.yaml.Docs {
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

// Load is Parse(file, data, opts) of the file p parsed, without parsing
// it again.
func (p *ParsedFile) Load(opts LoadOptions) (*Scenario, error) { return load(p, opts) }
