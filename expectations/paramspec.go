package expectations

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// The parameter structs of expectation types are the single definition of
// their keys: the loader validates and decodes with them, and JSONSchema
// describes them. This file reads them by reflection.

// paramField is one key of a parameter struct.
type paramField struct {
	key    string
	alias  string
	index  []int
	typ    reflect.Type
	doc    string
	lim    limits
	inline bool
}

// limits are the value constraints of a key, from its tags. They apply to
// the scalars inside the key's value (the items of a list, the values of a
// map), so `enum:"a,b"` on a []string checks every item.
type limits struct {
	min, max *float64
	enum     []string
	// format is "regexp", "glob" or "file" (a path resolved against the
	// scenario file's folder that must exist).
	format string
}

func (l limits) ratio() bool {
	return l.min != nil && l.max != nil && *l.min == 0 && *l.max == 1
}

// paramSpec is the keys of one parameter struct.
type paramSpec struct {
	typ    reflect.Type
	fields []*paramField
	byKey  map[string]*paramField
	inline *paramField
	// shorthand is the string field a scalar fills when the struct is
	// written as a plain value (tag `shorthand:"true"`): `first: Grep`
	// for `first: {tool: Grep}`.
	shorthand *paramField
}

// keys lists the struct's keys and aliases.
func (s *paramSpec) keys() []string {
	var out []string
	for _, f := range s.fields {
		if f.inline {
			continue
		}
		out = append(out, f.key)
		if f.alias != "" {
			out = append(out, f.alias)
		}
	}
	return out
}

// specOf reads the keys of struct type t. It fails on a field whose type or
// tags the loader cannot honour, so that a type is rejected when it is
// registered rather than misread when a scenario uses it.
func specOf(t reflect.Type, reserved ...string) (*paramSpec, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("%s is not a struct", t)
	}
	s := &paramSpec{typ: t, byKey: map[string]*paramField{}}
	taken := map[string]string{}
	for _, r := range reserved {
		taken[r] = "the common key " + r
	}
	claim := func(key, field string) error {
		if prev, ok := taken[key]; ok {
			return fmt.Errorf("%s.%s: key %q is already used by %s", t, field, key, prev)
		}
		taken[key] = "field " + field
		return nil
	}
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		tag, hasTag := sf.Tag.Lookup("yaml")
		if tag == "-" {
			continue
		}
		if !hasTag {
			return nil, fmt.Errorf("%s.%s has no yaml tag: name the key it reads", t, sf.Name)
		}
		name, opts, _ := strings.Cut(tag, ",")
		f := &paramField{key: name, index: sf.Index, typ: sf.Type, doc: sf.Tag.Get("doc"), alias: sf.Tag.Get("alias")}
		if slices.Contains(strings.Split(opts, ","), "inline") {
			if sf.Type.Kind() != reflect.Map || sf.Type.Key().Kind() != reflect.String {
				return nil, fmt.Errorf("%s.%s: only a map with string keys can be inline", t, sf.Name)
			}
			if s.inline != nil {
				return nil, fmt.Errorf("%s.%s: a struct can have one inline map", t, sf.Name)
			}
			f.inline = true
			s.inline = f
		} else if name == "" {
			return nil, fmt.Errorf("%s.%s: the yaml tag names no key", t, sf.Name)
		}
		if sf.Tag.Get("shorthand") == "true" {
			if sf.Type.Kind() != reflect.String || f.inline {
				return nil, fmt.Errorf("%s.%s: only a string field can be the shorthand", t, sf.Name)
			}
			if s.shorthand != nil {
				return nil, fmt.Errorf("%s.%s: a struct can have one shorthand field", t, sf.Name)
			}
			s.shorthand = f
		}
		var err error
		if f.lim, err = parseLimits(sf); err != nil {
			return nil, fmt.Errorf("%s.%s: %w", t, sf.Name, err)
		}
		if err := checkParamType(sf.Type, f.lim); err != nil {
			return nil, fmt.Errorf("%s.%s: %w", t, sf.Name, err)
		}
		s.fields = append(s.fields, f)
		if f.inline {
			continue
		}
		if err := claim(f.key, sf.Name); err != nil {
			return nil, err
		}
		s.byKey[f.key] = f
		if f.alias != "" {
			if err := claim(f.alias, sf.Name); err != nil {
				return nil, err
			}
			s.byKey[f.alias] = f
		}
	}
	return s, nil
}

func parseLimits(sf reflect.StructField) (limits, error) {
	var l limits
	for _, b := range []struct {
		tag string
		dst **float64
	}{{"min", &l.min}, {"max", &l.max}} {
		if v, ok := sf.Tag.Lookup(b.tag); ok {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return l, fmt.Errorf("%s tag %q is not a number", b.tag, v)
			}
			*b.dst = &x
		}
	}
	if l.min != nil && l.max != nil && *l.min > *l.max {
		return l, fmt.Errorf("min %g is above max %g", *l.min, *l.max)
	}
	if v, ok := sf.Tag.Lookup("enum"); ok {
		l.enum = strings.Split(v, ",")
	}
	l.format = sf.Tag.Get("format")
	switch l.format {
	case "", "regexp", "glob", "file":
	default:
		return l, fmt.Errorf("unknown format %q (known: regexp, glob, file)", l.format)
	}
	return l, nil
}

func checkParamType(t reflect.Type, l limits) error {
	leaf := leafKind(t)
	if (l.min != nil || l.max != nil) && !isNumberKind(leaf) && leaf != reflect.Struct {
		return errors.New("min and max apply to numbers only")
	}
	if (len(l.enum) > 0 || l.format != "") && leaf != reflect.String {
		return errors.New("enum and format apply to strings only")
	}
	return supportedType(t, 0)
}

func supportedType(t reflect.Type, depth int) error {
	if depth > 8 {
		return fmt.Errorf("%s nests too deeply", t)
	}
	switch k := t.Kind(); {
	case k == reflect.Bool, k == reflect.String, isNumberKind(k):
		return nil
	case k == reflect.Pointer, k == reflect.Slice:
		return supportedType(t.Elem(), depth+1)
	case k == reflect.Map:
		if t.Key().Kind() != reflect.String {
			return fmt.Errorf("map keys must be strings, not %s", t.Key())
		}
		return supportedType(t.Elem(), depth+1)
	case k == reflect.Struct:
		_, err := specOf(t)
		return err
	}
	return fmt.Errorf("type %s cannot be read from a scenario file", t)
}

// leafKind returns the kind of the scalars inside t (through pointers,
// lists and maps); reflect.Struct for a nested struct.
func leafKind(t reflect.Type) reflect.Kind {
	for {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map:
			t = t.Elem()
		default:
			return t.Kind()
		}
	}
}

func isNumberKind(k reflect.Kind) bool {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

func isIntKind(k reflect.Kind) bool {
	return isNumberKind(k) && k != reflect.Float32 && k != reflect.Float64
}
