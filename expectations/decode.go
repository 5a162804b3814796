package expectations

import (
	"fmt"
	"math"
	"os"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
)

// decoder checks and decodes parameter values from the AST in one pass, so
// that what is validated is exactly what is decoded.
type decoder struct {
	*nodeErrs
	// dir is the scenario file's folder, against which "file" keys are
	// resolved.
	dir string
}

// structCtx says where a struct's keys are and how extra keys of an inline
// map are checked.
type structCtx struct {
	// where names the mapping in messages ("index_usage", "runs").
	where string
	// inherited limits apply to leaves whose field has none (the bounds of a
	// ratio metric reach Bound's min and max).
	inherited limits
	// inlineKey checks a key of the inline map; see Type.InlineKey.
	inlineKey func(string) (bool, error)
	// extraKnown are keys handled by the caller (type, description, flaky),
	// offered in suggestions.
	extraKnown []string
	// prefix is the path of a nested mapping, put before its keys in
	// messages ("recall@5.min").
	prefix string
}

func (ctx structCtx) name(key string) string {
	if ctx.prefix == "" {
		return key
	}
	return ctx.prefix + "." + key
}

// decodeStruct checks the mapping entries es and decodes them into the
// struct v, reporting every problem: unknown keys, a key given with its
// alias, values that do not fit.
func (d *decoder) decodeStruct(es []entry, v reflect.Value, spec *paramSpec, ctx structCtx) {
	given := map[*paramField]entry{}
	for _, e := range d.uniqueEntries(es) {
		f := spec.byKey[e.key]
		if f == nil {
			d.extraKey(e, v, spec, ctx)
			continue
		}
		if prev, dup := given[f]; dup {
			d.at(e.keyNode, "%s and %s are the same key (%s is an alias of %s): give one", prev.key, e.key, f.alias, f.key)
			continue
		}
		given[f] = e
		if isNull(d.resolve(e.value)) {
			// At the key: a null value has no text to point at.
			d.at(e.keyNode, "%s has no value", ctx.name(e.key))
			continue
		}
		lim := f.lim
		if lim.min == nil && lim.max == nil {
			lim.min, lim.max = ctx.inherited.min, ctx.inherited.max
		}
		d.value(e.value, v.FieldByIndex(f.index), lim, ctx.name(e.key))
	}
}

func (d *decoder) extraKey(e entry, v reflect.Value, spec *paramSpec, ctx structCtx) {
	known := append(spec.keys(), ctx.extraKnown...)
	if spec.inline == nil {
		d.at(e.keyNode, "%s", unknownMessage("unknown key", e.key, ctx.where, known))
		return
	}
	var lim limits
	if ctx.inlineKey != nil {
		ratio, err := ctx.inlineKey(e.key)
		if err != nil {
			// A near miss of a fixed key is the likelier typo.
			if s := closest(e.key, known); s != "" {
				d.at(e.keyNode, "unknown key %s%s; did you mean %s?", quoteKey(e.key), inWhere(ctx.where), s)
			} else {
				d.at(e.keyNode, "%v", err)
			}
			return
		}
		if ratio {
			zero, one := 0.0, 1.0
			lim.min, lim.max = &zero, &one
		}
	}
	m := v.FieldByIndex(spec.inline.index)
	if m.IsNil() {
		m.Set(reflect.MakeMap(m.Type()))
	}
	elem := reflect.New(m.Type().Elem()).Elem()
	if d.value(e.value, elem, lim, ctx.name(e.key)) {
		m.SetMapIndex(reflect.ValueOf(e.key), elem)
	}
}

func inWhere(where string) string {
	if where == "" {
		return ""
	}
	return " in " + where
}

// value decodes one value into v and reports whether it did.
func (d *decoder) value(n ast.Node, v reflect.Value, lim limits, name string) bool {
	n = d.resolve(n)
	if isNull(n) {
		d.at(n, "%s has no value", name)
		return false
	}
	if _, isAlias := n.(*ast.AliasNode); isAlias {
		d.at(n, "%s: unknown alias %s", name, n.GetToken().Value)
		return false
	}
	switch k := v.Kind(); {
	case k == reflect.Pointer:
		nv := reflect.New(v.Type().Elem())
		if !d.value(n, nv.Elem(), lim, name) {
			return false
		}
		v.Set(nv)
		return true
	case k == reflect.Bool:
		b, ok := n.(*ast.BoolNode)
		if !ok {
			d.at(n, "%s: expected true or false, got %s", name, d.kindOf(n))
			return false
		}
		v.SetBool(b.Value)
		return true
	case k == reflect.String:
		return d.stringValue(n, v, lim, name)
	case isNumberKind(k):
		return d.numberValue(n, v, lim, name)
	case k == reflect.Slice:
		items, ok := d.sequence(n)
		if !ok {
			d.at(n, "%s: expected %s, got %s%s", name, describeType(v.Type()), d.kindOf(n), listHint(n, d))
			return false
		}
		out := reflect.MakeSlice(v.Type(), 0, len(items))
		good := true
		for i, item := range items {
			elem := reflect.New(v.Type().Elem()).Elem()
			if d.value(item, elem, lim, fmt.Sprintf("%s[%d]", name, i)) {
				out = reflect.Append(out, elem)
			} else {
				good = false
			}
		}
		v.Set(out)
		return good
	case k == reflect.Map:
		es, ok := d.entries(n)
		if !ok {
			d.at(n, "%s: expected %s, got %s", name, describeType(v.Type()), d.kindOf(n))
			return false
		}
		m := reflect.MakeMapWithSize(v.Type(), len(es))
		good := true
		for _, e := range d.uniqueEntries(es) {
			elem := reflect.New(v.Type().Elem()).Elem()
			if d.value(e.value, elem, lim, name+"."+e.key) {
				m.SetMapIndex(reflect.ValueOf(e.key).Convert(v.Type().Key()), elem)
			} else {
				good = false
			}
		}
		v.Set(m)
		return good
	case k == reflect.Struct:
		spec, err := specOf(v.Type())
		if err != nil { // checked at registration
			d.at(n, "%s: %v", name, err)
			return false
		}
		es, ok := d.entries(n)
		if _, scalar := d.scalarText(n); !ok && scalar && spec.shorthand != nil {
			return d.value(n, v.FieldByIndex(spec.shorthand.index), spec.shorthand.lim, name)
		}
		if !ok {
			d.at(n, "%s: expected %s, got %s", name, describeType(v.Type()), d.kindOf(n))
			return false
		}
		before := len(d.errs)
		d.decodeStruct(es, v, spec, structCtx{where: name, inherited: lim, prefix: name})
		return len(d.errs) == before
	}
	d.at(n, "%s: cannot be read", name)
	return false
}

// listHint suggests the list form for a single scalar where a list is
// expected: "forbid: fishing" should be "forbid: [fishing]".
func listHint(n ast.Node, d *decoder) string {
	if s, ok := d.scalarText(n); ok {
		return fmt.Sprintf("; write [%s]", s)
	}
	return ""
}

func (d *decoder) stringValue(n ast.Node, v reflect.Value, lim limits, name string) bool {
	s, ok := d.scalarText(n)
	if !ok {
		d.at(n, "%s: expected a string, got %s", name, d.kindOf(n))
		return false
	}
	if len(lim.enum) > 0 && !slices.Contains(lim.enum, s) {
		d.at(n, "%s: %s", name, unknownMessage("unknown value", s, "", lim.enum))
		return false
	}
	switch lim.format {
	case "regexp":
		if _, err := regexp.Compile(s); err != nil {
			d.at(n, "%s: %q is not a regular expression: %v", name, s, regexpReason(err))
			return false
		}
	case "glob":
		if _, err := path.Match(s, ""); err != nil {
			d.at(n, "%s: %q is not a glob: %v", name, s, err)
			return false
		}
	case "file":
		p := resolvePath(d.dir, s)
		if _, err := os.Stat(p); err != nil {
			d.at(n, "%s: %s does not exist", name, p)
			return false
		}
		s = p
	}
	v.SetString(s)
	return true
}

func regexpReason(err error) string {
	return strings.TrimPrefix(err.Error(), "error parsing regexp: ")
}

func (d *decoder) numberValue(n ast.Node, v reflect.Value, lim limits, name string) bool {
	var x float64
	var text string
	switch num := n.(type) {
	case *ast.IntegerNode:
		text = num.GetToken().Value
		switch i := num.Value.(type) {
		case int64:
			x = float64(i)
		case uint64:
			x = float64(i)
		default:
			f, err := strconv.ParseFloat(text, 64)
			if err != nil {
				d.at(n, "%s: %s is not a number", name, text)
				return false
			}
			x = f
		}
	case *ast.FloatNode:
		text, x = num.GetToken().Value, num.Value
	default:
		hint := ""
		if s, ok := d.scalarText(n); ok && lim.ratio() && strings.HasSuffix(strings.TrimSpace(s), "%") {
			if p, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64); err == nil {
				hint = fmt.Sprintf(" (a ratio: write %s for %s)", formatNumber(p/100), s)
			}
		}
		d.at(n, "%s: expected %s, got %s%s", name, describeKind(v.Kind()), d.kindOf(n), hint)
		return false
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		d.at(n, "%s: %s is not a finite number", name, text)
		return false
	}
	if isIntKind(v.Kind()) && x != math.Trunc(x) {
		d.at(n, "%s: %s is not a whole number", name, text)
		return false
	}
	if msg := rangeMessage(x, text, lim); msg != "" {
		d.at(n, "%s: %s", name, msg)
		return false
	}
	switch {
	case isIntKind(v.Kind()):
		if v.OverflowInt(int64(x)) || math.Abs(x) > 1<<53 {
			d.at(n, "%s: %s is too large", name, text)
			return false
		}
		v.SetInt(int64(x))
	default:
		v.SetFloat(x)
	}
	return true
}

// rangeMessage says why x is outside the limits, or "" when it is inside.
// A ratio gets a hint, because "6" or "60" for 0.6 is the commonest slip
// in threshold files.
func rangeMessage(x float64, text string, lim limits) string {
	low := lim.min != nil && x < *lim.min
	high := lim.max != nil && x > *lim.max
	switch {
	case !low && !high:
		return ""
	case lim.ratio():
		return fmt.Sprintf("%s is out of range [0, 1] (%s)", text, ratioHint(x, text))
	case lim.min != nil && lim.max != nil:
		return fmt.Sprintf("%s is out of range [%s, %s]", text, formatNumber(*lim.min), formatNumber(*lim.max))
	case low:
		return fmt.Sprintf("%s is below the minimum %s", text, formatNumber(*lim.min))
	default:
		return fmt.Sprintf("%s is above the maximum %s", text, formatNumber(*lim.max))
	}
}

func ratioHint(x float64, text string) string {
	switch {
	case x > 1 && x < 10:
		return fmt.Sprintf("a ratio: did you mean %s, or %s for %s%%?", formatNumber(x/10), formatNumber(x/100), text)
	case x >= 10 && x <= 100:
		return fmt.Sprintf("a ratio: did you mean %s for %s%%?", formatNumber(x/100), text)
	}
	return "a ratio between 0 and 1"
}

// describeType names a Go type in the vocabulary of a YAML file.
func describeType(t reflect.Type) string {
	switch k := t.Kind(); {
	case k == reflect.Pointer:
		return describeType(t.Elem())
	case k == reflect.Slice:
		return "a list of " + plural(describeType(t.Elem()))
	case k == reflect.Map:
		return "a mapping of names to " + plural(describeType(t.Elem()))
	case k == reflect.Struct:
		if spec, err := specOf(t); err == nil {
			if spec.shorthand != nil {
				return "a string (its " + spec.shorthand.key + ") or a mapping with keys " + strings.Join(spec.keys(), ", ")
			}
			return "a mapping with keys " + strings.Join(spec.keys(), ", ")
		}
		return "a mapping"
	}
	return describeKind(t.Kind())
}

func describeKind(k reflect.Kind) string {
	switch {
	case k == reflect.Bool:
		return "true or false"
	case k == reflect.String:
		return "a string"
	case isIntKind(k):
		return "a whole number"
	case isNumberKind(k):
		return "a number"
	}
	return "a value"
}

func plural(s string) string {
	switch {
	case s == "true or false":
		return "booleans"
	case strings.HasPrefix(s, "a string (its "):
		return strings.Replace(strings.Replace(s, "a string (its ", "strings (their ", 1), ") or a mapping", ") or mappings", 1)
	case strings.HasPrefix(s, "a list of "):
		return "lists of " + strings.TrimPrefix(s, "a list of ")
	case strings.HasPrefix(s, "a mapping"):
		return "mappings" + strings.TrimPrefix(s, "a mapping")
	case strings.HasPrefix(s, "a "):
		return strings.TrimPrefix(s, "a ") + "s"
	}
	return s
}
