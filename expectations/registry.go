package expectations

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sync"
)

// commonKeys are the keys every expectation takes besides its type's own.
var commonKeys = []string{"type", "description", "flaky"}

// A Type is a registered expectation type.
//
// Params is a zero value of the type's parameter struct (not a pointer).
// Its fields' `yaml` tags name the keys a scenario may use; fields are
// pointers when absence matters. Further tags drive validation and the
// JSON Schema: `doc:"…"` describes the key, `min:"0"` and `max:"1"` bound a
// number, `enum:"a,b,c"` lists the accepted strings, `alias:"other_key"`
// names a key that means the same, and `format:"…"` checks a string:
// "regexp" (compiles), "glob" (path.Match syntax) or "file" (a path,
// resolved against the scenario file's folder and required to exist; the
// field receives the resolved path). A nested struct may tag one string
// field `shorthand:"true"`: the struct may then be written as a plain
// value, which fills that field (`first: Grep` for `first: {tool: Grep}`).
// Decoding is strict: a key no field names is an error at its line and
// column.
type Type struct {
	Name        string
	Description string
	Params      any
	// Check validates one run. params is a pointer to a decoded Params
	// struct.
	Check func(params any, run *Run) Outcome
	// Live marks a type that needs a live run (compiles, tests_pass,
	// file_contains, …): it is accepted in scenario files and always
	// reported as skipped.
	Live bool

	// InlineKey checks a key of Params' inline map (a field tagged
	// `yaml:",inline"`, such as the metric names of retrieval). It returns
	// an error for a key the type does not know, and ratio true when the
	// numbers under the key must lie in [0, 1]. Nil accepts any key.
	InlineKey func(key string) (ratio bool, err error)
	// Validate checks what one key alone cannot: keys that exclude each
	// other, a threshold set that could never fail. It runs on the decoded
	// params (a pointer to a Params struct) when every key was valid, and
	// its error is reported at the expectation's line. Nil checks nothing.
	Validate func(params any) error
	// ReadsCalls reports whether Check, given these params, reads the
	// session's calls (Run.Session.Calls: their names, arguments, times,
	// …). Nil means it may. A scenario none of whose expectations reads
	// them is measured without keeping them (MeasureOptions.DropCalls):
	// Run.Session then holds no call, though Session.NumCalls counts them
	// and Session.CallTokens gives their tokens, and the expectations read
	// the document's events. On a long session the calls are most of
	// what a run holds.
	ReadsCalls func(params any) bool
}

// readsNoCalls is the ReadsCalls of a type that never reads them.
func readsNoCalls(any) bool { return false }

// A Registry holds expectation types by name. Build one with NewRegistry
// or DefaultRegistry and pass it in LoadOptions and EvalOptions; there is
// no global registry, so two test suites can register different types.
type Registry struct {
	types map[string]Type
	specs map[string]*paramSpec
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{types: map[string]Type{}, specs: map[string]*paramSpec{}}
}

// DefaultRegistry returns a new registry with the built-in types
// (index_usage, retrieval, line_coverage, patterns, tools, utilization,
// budget, answer, sequence, before, errors) and the live-run types of the
// harness (skipped).
func DefaultRegistry() *Registry {
	d := defaultRegistry()
	return &Registry{types: maps.Clone(d.types), specs: maps.Clone(d.specs)}
}

// defaultRegistry is built once: reading the types' parameter structs
// (reflection over every field and tag) costs more than a scenario's
// load. The specs are never changed once made, so copies share them.
var defaultRegistry = sync.OnceValue(func() *Registry {
	r := NewRegistry()
	for _, t := range builtinTypes() {
		if err := r.Register(t); err != nil {
			panic("expectations: built-in type " + t.Name + ": " + err.Error())
		}
	}
	for _, t := range liveTypes() {
		if err := r.Register(t); err != nil {
			panic("expectations: live type " + t.Name + ": " + err.Error())
		}
	}
	return r
})

// Register adds a type; it fails for an empty or duplicate name or a
// Params that is not a struct.
//
// It also fails when Params has a field the loader could not read
// strictly: a field without a `yaml` tag, a key used twice (aliases
// included, and the common keys type, description and flaky), a type
// other than booleans, strings, numbers, pointers, lists, string-keyed
// maps and structs of these, or a malformed min, max, enum or format tag.
// A type that is not Live needs a Check function. A Live type may have a
// nil Params, which accepts no key besides the common ones.
func (r *Registry) Register(t Type) error {
	if t.Name == "" {
		return errors.New("expectations: a type needs a name")
	}
	if _, dup := r.types[t.Name]; dup {
		return fmt.Errorf("expectations: type %q is already registered", t.Name)
	}
	if t.Check == nil && !t.Live {
		return fmt.Errorf("expectations: type %q has no Check function", t.Name)
	}
	var spec *paramSpec
	switch {
	case t.Params == nil && t.Live:
		spec = &paramSpec{byKey: map[string]*paramField{}}
	case t.Params == nil:
		return fmt.Errorf("expectations: type %q has no Params struct", t.Name)
	default:
		pt := reflect.TypeOf(t.Params)
		if pt.Kind() != reflect.Struct {
			return fmt.Errorf("expectations: type %q: Params is a %s, not a struct value", t.Name, pt)
		}
		var err error
		if spec, err = specOf(pt, commonKeys...); err != nil {
			return fmt.Errorf("expectations: type %q: %w", t.Name, err)
		}
	}
	r.types[t.Name] = t
	r.specs[t.Name] = spec
	return nil
}

// RegisterFunc registers a type whose parameters are the struct P, with a
// typed check function.
func RegisterFunc[P any](r *Registry, name, description string, check func(p *P, run *Run) Outcome) error {
	if check == nil {
		return fmt.Errorf("expectations: type %q has no check function", name)
	}
	var zero P
	return r.Register(Type{
		Name:        name,
		Description: description,
		Params:      zero,
		Check: func(params any, run *Run) Outcome {
			p, ok := params.(*P)
			if !ok {
				return Outcome{Status: Fail, Message: fmt.Sprintf("%s: parameters are a %T, not a *%T", name, params, zero)}
			}
			return check(p, run)
		},
	})
}

// Lookup returns the type registered under name.
func (r *Registry) Lookup(name string) (Type, bool) {
	t, ok := r.types[name]
	return t, ok
}

// Names lists the registered type names, sorted.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.types))
	for n := range r.types {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// orDefault is r, or the built-in registry when r is nil: the one
// DefaultRegistry copies, for callers that only look types up (a scenario
// loaded or judged with no registry of its own would copy it otherwise).
func orDefault(r *Registry) *Registry {
	if r == nil {
		return defaultRegistry()
	}
	return r
}
