package expectations

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/goccy/go-yaml/ast"
)

// expectations decodes the expectations list. Each entry's type is looked
// up in the registry, and its other keys are decoded into the type's
// parameter struct by decodeStruct and checked by the type's Validate.
func (l *loader) expectations(e *entry) {
	items, ok := l.sequence(e.value)
	if !ok {
		l.at(e.value, "expectations: expected a list of expectations (each a mapping with a type), got %s", l.kindOf(e.value))
		return
	}
	if len(items) == 0 {
		l.at(e.value, "expectations is empty: a scenario must check something")
		return
	}
	for i, item := range items {
		if x := l.expectation(item, i); x != nil {
			l.s.Expectations = append(l.s.Expectations, x)
		}
	}
}

func (l *loader) expectation(n ast.Node, i int) *Expectation {
	name := fmt.Sprintf("expectations[%d]", i)
	es, ok := l.entries(n)
	if !ok {
		l.at(n, "%s: expected a mapping with a type, got %s", name, l.kindOf(n))
		return nil
	}
	es = l.uniqueEntries(es)
	line, col := nodeLineCol(n)
	x := &Expectation{Pos: Pos{File: l.file, Line: line, Col: col}}
	var typeEntry *entry
	var rest []entry
	for j := range es {
		e := &es[j]
		switch e.key {
		case "type":
			typeEntry = e
		case "description":
			l.str(e, &x.Description)
		case "flaky":
			l.value(e.value, reflect.ValueOf(&x.Flaky).Elem(), limits{}, "flaky")
		default:
			rest = append(rest, *e)
		}
	}
	if typeEntry == nil {
		l.at(n, "%s has no type (known: %s)", name, strings.Join(l.reg.Names(), ", "))
		return nil
	}
	if !l.str(typeEntry, &x.Type) {
		return nil
	}
	t, ok := l.reg.Lookup(x.Type)
	if !ok {
		l.at(typeEntry.value, "%s", unknownMessage("unknown expectation type", x.Type, "", l.reg.Names()))
		return nil
	}
	spec := l.reg.specs[x.Type]
	before := len(l.errs)
	var params reflect.Value
	if spec.typ == nil {
		for _, e := range rest {
			l.at(e.keyNode, "%s", unknownMessage("unknown key", e.key, x.Type, commonKeys))
		}
	} else {
		params = reflect.New(spec.typ)
		l.decodeStruct(rest, params.Elem(), spec, structCtx{where: x.Type, inlineKey: t.InlineKey, extraKnown: commonKeys})
	}
	if len(l.errs) > before {
		return nil
	}
	if t.Validate != nil && params.IsValid() {
		if err := t.Validate(params.Interface()); err != nil {
			l.at(n, "%s: %v", x.Type, err)
			return nil
		}
	}
	if !t.Live {
		x.Params = params.Interface()
	}
	return x
}
