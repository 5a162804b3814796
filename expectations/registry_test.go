package expectations

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// MaxEdits is a user type: its keys come from its tags, like the built-in
// types' keys.
type MaxEdits struct {
	Max  *int   `yaml:"max" doc:"most edit calls" min:"0"`
	Tool string `yaml:"tool" doc:"edit tool name" enum:"file.write,Edit"`
}

func maxEditsRegistry(t *testing.T) *Registry {
	t.Helper()
	reg := DefaultRegistry()
	require.NoError(t, RegisterFunc(reg, "max_edits", "edit calls are few", func(p *MaxEdits, run *Run) Outcome {
		n := 0
		for _, ev := range run.Document.Events {
			if p.Tool == "" || ev.ToolName == p.Tool {
				if len(ev.FilesWritten) > 0 {
					n++
				}
			}
		}
		var cs checks
		cs.add(numberCheck("edits", ptr(float64(n)), nil, intPtrToFloat(p.Max), false, ""))
		return cs.outcome()
	}))
	return reg
}

func TestAUserTypeIsValidatedAndJudgedLikeABuiltinOne(t *testing.T) {
	t.Parallel()
	reg := maxEditsRegistry(t)
	_, err := Parse(inlineFile, []byte(indexFirst+`expectations:
  - type: max_edits
    mx: 1
    tool: write
  - type: max_edits
    max: -1
`), LoadOptions{Registry: reg})
	require.Error(t, err)
	assert.Equal(t, inlineFile+`:5:5: unknown key "mx" in max_edits; did you mean max?`+"\n"+
		inlineFile+`:6:11: tool: unknown value "write" (known: Edit, file.write)`+"\n"+
		inlineFile+":8:10: max: -1 is below the minimum 0", err.Error())

	s, err := Parse(inlineFile, []byte(indexFirst+"expectations:\n  - type: max_edits\n    max: 0\n"), LoadOptions{Registry: reg})
	require.NoError(t, err)
	res, err := Evaluate(s, EvalOptions{Registry: reg})
	require.NoError(t, err)
	r := only(t, res)
	assert.Equal(t, Fail, r.Status)
	assert.Equal(t, "edits measured 1, required ≤ 0", r.Message)

	// The default registry does not know the type.
	_, err = Parse(inlineFile, []byte(indexFirst+"expectations:\n  - type: max_edits\n    max: 0\n"), LoadOptions{})
	assert.ErrorContains(t, err, `unknown expectation type "max_edits"`)
}

func TestRegisterRejectsWhatTheLoaderCouldNotReadStrictly(t *testing.T) {
	t.Parallel()
	type noTag struct{ Max int }
	type badMin struct {
		Max int `yaml:"max" min:"zero"`
	}
	type clash struct {
		A int `yaml:"a" alias:"b"`
		B int `yaml:"b"`
	}
	type reserved struct {
		Kind string `yaml:"type"`
	}
	type unsupported struct {
		F func() `yaml:"f"`
	}
	type enumOnNumber struct {
		N int `yaml:"n" enum:"1,2"`
	}
	check := func(any, *Run) Outcome { return Outcome{Status: Pass} }
	tests := []struct {
		name string
		t    Type
		want string
	}{
		{"a type needs a name", Type{Params: MaxEdits{}, Check: check}, "expectations: a type needs a name"},
		{"a name is registered once", Type{Name: "tools", Params: MaxEdits{}, Check: check}, `expectations: type "tools" is already registered`},
		{"a judged type needs a check", Type{Name: "x", Params: MaxEdits{}}, `expectations: type "x" has no Check function`},
		{"params are a struct value", Type{Name: "x", Params: &MaxEdits{}, Check: check}, `expectations: type "x": Params is a *expectations.MaxEdits, not a struct value`},
		{"every field names its key", Type{Name: "x", Params: noTag{}, Check: check}, `expectations: type "x": expectations.noTag.Max has no yaml tag: name the key it reads`},
		{"min is a number", Type{Name: "x", Params: badMin{}, Check: check}, `expectations: type "x": expectations.badMin.Max: min tag "zero" is not a number`},
		{"an alias cannot take another key", Type{Name: "x", Params: clash{}, Check: check}, `expectations: type "x": expectations.clash.B: key "b" is already used by field A`},
		{"the common keys are taken", Type{Name: "x", Params: reserved{}, Check: check}, `expectations: type "x": expectations.reserved.Kind: key "type" is already used by the common key type`},
		{"a function cannot be read from YAML", Type{Name: "x", Params: unsupported{}, Check: check}, `expectations: type "x": expectations.unsupported.F: type func() cannot be read from a scenario file`},
		{"enum applies to strings", Type{Name: "x", Params: enumOnNumber{}, Check: check}, `expectations: type "x": expectations.enumOnNumber.N: enum and format apply to strings only`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.EqualError(t, DefaultRegistry().Register(tt.t), tt.want)
		})
	}
	assert.Error(t, RegisterFunc[MaxEdits](NewRegistry(), "x", "", nil))
}

func TestTheDefaultRegistryNamesItsTypes(t *testing.T) {
	t.Parallel()
	reg := DefaultRegistry()
	assert.Equal(t, []string{
		"answer", "before", "budget", "build_succeeds", "command_succeeds", "compiles", "errors", "file_contains", "file_exists",
		"file_not_contains", "index_usage", "line_coverage", "patterns", "retrieval", "sequence", "tests_pass", "tools", "utilization",
	}, reg.Names())
	typ, ok := reg.Lookup("index_usage")
	require.True(t, ok)
	assert.False(t, typ.Live)
	assert.Equal(t, IndexUsage{}, typ.Params)
	typ, ok = reg.Lookup("file_contains")
	require.True(t, ok)
	assert.True(t, typ.Live)
	_, ok = reg.Lookup("nope")
	assert.False(t, ok)
	assert.Empty(t, NewRegistry().Names())
}

func TestEachDefaultRegistryIsItsOwn(t *testing.T) {
	t.Parallel()
	mine := maxEditsRegistry(t)
	_, ok := mine.Lookup("max_edits")
	require.True(t, ok)
	other := DefaultRegistry()
	_, ok = other.Lookup("max_edits")
	assert.False(t, ok, "a type registered in one default registry is not in the next")
	assert.NotContains(t, other.Names(), "max_edits")
	require.NoError(t, RegisterFunc(other, "max_edits", "another type of the same name", func(p *MaxEdits, run *Run) Outcome { return Outcome{} }))
}
