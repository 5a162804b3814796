package expectations

import (
	"errors"
	"math"
	"reflect"
	"slices"

	"github.com/goccy/go-yaml/ast"
)

// Anvil, the test harness of the Aura agent, ran each scenario live: it created a story in Aura, waited for
// it, then checked the worktree. Its scenario files are accepted here as
// written so that one file serves both tools. Its top-level keys are kept in
// Scenario.Harness, uninterpreted, with their original camelCase spelling;
// its expectation types that need the worktree of a live run are registered
// as Live and reported as skipped.
//
// Keys and types are those of Anvil's Scenario and Expectation models and
// its expectation validator (name, description, language, repository,
// story {title, description}, expectations, timeoutSeconds, executor,
// tags; compiles, tests_pass, file_exists, file_contains,
// file_not_contains), plus keys of the same family that harness scenarios
// carry (setup, prompt, steps, model, agent) and the live checks
// build_succeeds and command_succeeds.

// harnessKind says what a harness key holds; it is checked loosely since
// this package does not interpret the key.
type harnessKind int

const (
	harnessAny harnessKind = iota
	harnessString
	harnessMapping
	harnessSeconds
)

var harnessKeys = map[string]harnessKind{
	"story":          harnessMapping,
	"repository":     harnessString,
	"executor":       harnessString,
	"timeoutSeconds": harnessSeconds,
	"language":       harnessString,
	"setup":          harnessAny,
	"prompt":         harnessString,
	"steps":          harnessAny,
	"model":          harnessString,
	"agent":          harnessString,
}

// harnessKeyDocs describe the harness keys in the JSON Schema.
var harnessKeyDocs = map[string]string{
	"story":          "harness: the story to create in the agent ({title, description}); not interpreted here",
	"repository":     "harness: repository the live run works in; not interpreted here",
	"executor":       "harness: step executor of the live run (internal, copilot); not interpreted here",
	"timeoutSeconds": "harness: seconds the live run may take; not interpreted here",
	"language":       "harness: programming language of the task; not interpreted here",
	"setup":          "harness: set-up of the live run; not interpreted here",
	"prompt":         "harness: prompt of the live run; not interpreted here",
	"steps":          "harness: steps of the live run; not interpreted here",
	"model":          "harness: model of the live run; not interpreted here",
	"agent":          "harness: agent of the live run; not interpreted here",
}

func harnessKeyNames() []string {
	names := make([]string, 0, len(harnessKeys))
	for k := range harnessKeys {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

func (l *loader) harnessKey(e *entry, kind harnessKind) {
	n := l.resolve(e.value)
	switch kind {
	case harnessString:
		var s string
		if !l.value(n, reflect.ValueOf(&s).Elem(), limits{}, e.key) {
			return
		}
	case harnessMapping:
		if _, ok := l.entries(n); !ok {
			l.at(n, "%s: expected a mapping, got %s", e.key, l.kindOf(n))
			return
		}
	case harnessSeconds:
		var secs int
		one := 1.0
		if !l.value(n, reflect.ValueOf(&secs).Elem(), limits{min: &one}, e.key) {
			return
		}
	}
	if l.s.Harness == nil {
		l.s.Harness = map[string]any{}
	}
	l.s.Harness[e.key] = l.plain(n)
}

// plain converts a node to plain Go values (maps, slices, strings, int64,
// float64, bool, nil) for Scenario.Harness.
func (l *loader) plain(n ast.Node) any {
	n = l.resolve(n)
	switch v := n.(type) {
	case nil, *ast.NullNode:
		return nil
	case *ast.MappingNode, *ast.MappingValueNode:
		es, _ := l.entries(v)
		m := make(map[string]any, len(es))
		for _, e := range es {
			m[e.key] = l.plain(e.value)
		}
		return m
	case *ast.SequenceNode:
		out := make([]any, len(v.Values))
		for i, item := range v.Values {
			out[i] = l.plain(item)
		}
		return out
	case *ast.IntegerNode:
		switch i := v.Value.(type) {
		case int64:
			return i
		case uint64:
			if i <= math.MaxInt64 {
				return int64(i) // one integer type for callers to switch on
			}
			return i
		}
		return v.GetToken().Value
	case *ast.FloatNode:
		return v.Value
	case *ast.BoolNode:
		return v.Value
	}
	s, _ := l.scalarText(n)
	return s
}

// Parameters of the harness's live-run expectation types. They are checked
// like any other type's, so that a typo in a live expectation is caught too,
// but never judged.

// FileCheck are the keys of file_exists, file_contains and
// file_not_contains.
type FileCheck struct {
	Path    string `yaml:"path" doc:"file in the worktree of the live run (a glob for file_contains)"`
	Pattern string `yaml:"pattern" doc:"regular expression the file must (file_contains) or must not (file_not_contains) match; the harness's regex dialect"`
}

// CommandCheck are the keys of build_succeeds and command_succeeds.
type CommandCheck struct {
	Command string `yaml:"command" doc:"command to run in the worktree of the live run"`
}

func liveTypes() []Type {
	needPath := func(pattern bool) func(any) error {
		return func(p any) error {
			fc := p.(*FileCheck)
			switch {
			case fc.Path == "":
				return errors.New("path is required")
			case pattern && fc.Pattern == "":
				return errors.New("pattern is required")
			case !pattern && fc.Pattern != "":
				return errors.New("pattern applies to file_contains and file_not_contains only")
			}
			return nil
		}
	}
	needCommand := func(p any) error {
		if p.(*CommandCheck).Command == "" {
			return errors.New("command is required")
		}
		return nil
	}
	return []Type{
		{Name: "compiles", Description: "the live run's code compiles (harness; needs a live run)", Live: true},
		{Name: "tests_pass", Description: "the live run's tests pass (harness; needs a live run)", Live: true},
		{Name: "build_succeeds", Description: "the build of the live run succeeds (needs a live run)", Params: CommandCheck{}, Live: true},
		{Name: "command_succeeds", Description: "a command succeeds in the live run's worktree (needs a live run)", Params: CommandCheck{}, Live: true, Validate: needCommand},
		{Name: "file_exists", Description: "a file exists in the live run's worktree (harness; needs a live run)", Params: FileCheck{}, Live: true, Validate: needPath(false)},
		{Name: "file_contains", Description: "a file of the live run's worktree matches a pattern (harness; needs a live run)", Params: FileCheck{}, Live: true, Validate: needPath(true)},
		{Name: "file_not_contains", Description: "a file of the live run's worktree does not match a pattern (harness; needs a live run)", Params: FileCheck{}, Live: true, Validate: needPath(true)},
	}
}
