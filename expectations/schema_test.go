package expectations

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// compileSchema compiles a registry's schema the way an editor would.
func compileSchema(t *testing.T, reg *Registry) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(reg.JSONSchema()))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	require.NoError(t, c.AddResource(SchemaID, doc))
	s, err := c.Compile(SchemaID)
	require.NoError(t, err)
	return s
}

// yamlAsJSON reads a scenario file as the JSON document an editor
// validates.
func yamlAsJSON(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	require.NoError(t, yaml.Unmarshal(data, &v))
	j, err := json.Marshal(v)
	require.NoError(t, err)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	require.NoError(t, err)
	return doc
}

func TestTheSchemaAcceptsTheExampleScenarios(t *testing.T) {
	t.Parallel()
	schema := compileSchema(t, DefaultRegistry())
	files, err := filepath.Glob("testdata/scenarios/*.yaml")
	require.NoError(t, err)
	harness, err := filepath.Glob("testdata/scenarios/harness/*.yaml")
	require.NoError(t, err)
	files = append(files, harness...)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			_, err := Load(f, LoadOptions{})
			require.NoError(t, err, "the loader accepts it")
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			assert.NoError(t, schema.Validate(yamlAsJSON(t, data)))
		})
	}
}

func TestTheSchemaRejectsWhatTheLoaderRejects(t *testing.T) {
	t.Parallel()
	schema := compileSchema(t, DefaultRegistry())
	tests := []struct {
		name, src string
		// mention is what the schema's error must name, when given.
		mention string
	}{
		{"a misspelt key", "trace: t.json\nexpectations:\n  - type: index_usage\n    min_aura_tool_raito: 0.6\n", "'min_aura_tool_raito' not allowed"},
		{"a ratio of 6", "trace: t.json\nexpectations:\n  - type: index_usage\n    min_aura_tool_ratio: 6\n", "maximum: got 6, want 1"},
		{"a key and its alias", "trace: t.json\nexpectations:\n  - type: index_usage\n    min_aura_tool_ratio: 0.6\n    min_semantic_ratio: 0.6\n", ""},
		{"an unknown type", "trace: t.json\nexpectations:\n  - type: index_usgae\n", ""},
		{"an unknown scenario key", "trace: t.json\ntimeout_seconds: 3\nexpectations:\n  - type: compiles\n", ""},
		{"an unknown metric", "trace: t.json\nexpectations:\n  - type: retrieval\n    recal@5: {min: 0.5}\n", ""},
		{"a ratio bound out of range", "trace: t.json\nexpectations:\n  - type: retrieval\n    recall@5: {min: 5}\n", ""},
		{"an unknown pattern", "trace: t.json\nexpectations:\n  - type: patterns\n    forbid: [fising]\n", ""},
		{"trace and traces", "trace: t.json\ntraces: [u.json]\nexpectations:\n  - type: compiles\n", ""},
		{"both runs rules", "trace: t.json\nruns: {at_least: 1, min_pass_rate: 1}\nexpectations:\n  - type: compiles\n", ""},
		{"a live type's misspelt key", "trace: t.json\nexpectations:\n  - type: file_contains\n    patern: x\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := schema.Validate(yamlAsJSON(t, []byte(tt.src)))
			require.Error(t, err)
			if tt.mention != "" {
				assert.ErrorContains(t, err, tt.mention)
			}
		})
	}
	for _, f := range []string{"testdata/scenarios/bad/typo-key.yaml", "testdata/scenarios/bad/ratio-six.yaml"} {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		assert.Error(t, schema.Validate(yamlAsJSON(t, data)), f)
	}
}

func TestTheSchemaDescribesUserTypes(t *testing.T) {
	t.Parallel()
	schema := compileSchema(t, maxEditsRegistry(t))
	ok := "trace: t.json\nexpectations:\n  - type: max_edits\n    max: 2\n    tool: Edit\n"
	assert.NoError(t, schema.Validate(yamlAsJSON(t, []byte(ok))))
	for _, bad := range []string{
		"trace: t.json\nexpectations:\n  - type: max_edits\n    mx: 2\n",
		"trace: t.json\nexpectations:\n  - type: max_edits\n    max: -1\n",
		"trace: t.json\nexpectations:\n  - type: max_edits\n    tool: write\n",
	} {
		assert.Error(t, schema.Validate(yamlAsJSON(t, []byte(bad))), bad)
	}
}

func TestTheSchemaIsDraft2020WithDescriptions(t *testing.T) {
	t.Parallel()
	var s map[string]any
	require.NoError(t, json.Unmarshal(DefaultRegistry().JSONSchema(), &s))
	assert.Equal(t, "https://json-schema.org/draft/2020-12/schema", s["$schema"])
	assert.Equal(t, false, s["additionalProperties"])
	defs := s["$defs"].(map[string]any)
	iu := defs["expectation.index_usage"].(map[string]any)
	props := iu["properties"].(map[string]any)
	ratio := props["min_semantic_ratio"].(map[string]any)
	assert.Equal(t, map[string]any{
		"type": "number", "minimum": 0.0, "maximum": 1.0,
		"description": "lowest semantic / (semantic + file-level) tool-call ratio",
	}, ratio)
	assert.Equal(t, "alias of min_semantic_ratio", props["min_aura_tool_ratio"].(map[string]any)["description"])
	assert.Equal(t, []any{"poor", "fair", "good", "excellent"}, props["min_grade"].(map[string]any)["enum"])
	ret := defs["expectation.retrieval"].(map[string]any)
	assert.Equal(t, false, ret["additionalProperties"])
	assert.Len(t, ret["patternProperties"], 2)
	assert.Contains(t, s["properties"], "timeoutSeconds")
	assert.Equal(t, DefaultRegistry().JSONSchema(), DefaultRegistry().JSONSchema(), "the schema is deterministic")
}

// An editor shows a key's description as the author types it; a key
// without one is a key the author has to look up.
func TestEveryKeyOfABuiltinTypeIsDescribed(t *testing.T) {
	t.Parallel()
	reg := DefaultRegistry()
	for _, name := range reg.Names() {
		spec := reg.specs[name]
		if spec.typ == nil {
			continue
		}
		for _, f := range spec.fields {
			if f.inline {
				continue
			}
			assert.NotEmpty(t, f.doc, "%s.%s has no doc tag", name, f.key)
		}
	}
	bound, err := specOf(reflect.TypeOf(Bound{}))
	require.NoError(t, err)
	for _, f := range bound.fields {
		assert.NotEmpty(t, f.doc, "Bound.%s has no doc tag", f.key)
	}
}
