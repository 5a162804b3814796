package expectations

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strings"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/metrics"
	"github.com/agentretrieval/agentretrieval/trace"
)

// SchemaID is the $id of the scenario-file schema JSONSchema returns.
const SchemaID = "https://github.com/agentretrieval/agentretrieval/expectations/scenario.schema.json"

type obj = map[string]any

// JSONSchema returns a JSON Schema (draft 2020-12) of scenario files with
// this registry's expectation types, generated from the same definitions
// the loader uses.
//
// The schema is for editors: it catches unknown keys, wrong types, numbers
// out of range and unknown enum values as the author types. Checks that
// need the file system (a trace or ground-truth file that does not exist)
// or cross-key rules (a threshold set that could never fail) are the
// loader's alone.
func (r *Registry) JSONSchema() []byte {
	names := r.Names()
	var branches []any
	defs := obj{}
	for _, name := range names {
		defs["expectation."+name] = r.typeSchema(name)
		branches = append(branches, obj{
			"if":   obj{"properties": obj{"type": obj{"const": name}}, "required": []string{"type"}},
			"then": obj{"$ref": "#/$defs/expectation." + name},
		})
	}
	defs["expectation"] = obj{
		"type":        "object",
		"description": "one expectation: type selects the keys it takes",
		"required":    []string{"type"},
		"properties":  obj{"type": obj{"enum": names, "description": "the expectation type"}},
		"allOf":       branches,
	}
	stringList := obj{"type": "array", "items": obj{"type": "string"}}
	profile := obj{"enum": events.ProfileNames()}
	props := obj{
		"name":         obj{"type": "string", "description": "scenario name (default: the file name without extension)"},
		"description":  obj{"type": "string", "description": "what the scenario checks"},
		"trace":        obj{"type": "string", "description": "the trace file of the one run, relative to the scenario file"},
		"traces":       obj{"type": "array", "minItems": 1, "items": obj{"type": "string"}, "description": "trace files or globs of repeated runs of the task, relative to the scenario file"},
		"trace_id":     obj{"type": "string", "description": "the session to judge in a trace file that holds several: an OpenTelemetry trace id, an OpenHands instance_id"},
		"cwd":          obj{"type": "string", "description": "the agent's working directory, an absolute path: paths below it are made relative to it (default: the one the trace records)"},
		"format":       obj{"enum": trace.DefaultRegistry().Names(), "description": "trace format (default: detected)"},
		"profile":      obj{"description": "taxonomy profile or profiles (default: all built-in ones)", "anyOf": []any{profile, obj{"type": "array", "items": profile}}},
		"taxonomy":     obj{"type": "string", "description": "a taxonomy file whose rules override the profiles, relative to the scenario file"},
		"ground_truth": groundTruthSchema(),
		"symbols":      obj{"type": "string", "description": "index symbol file (one identifier a line, or ctags), relative to the scenario file"},
		"expectations": obj{"type": "array", "minItems": 1, "items": obj{"$ref": "#/$defs/expectation"}, "description": "what every run must meet"},
		"runs":         runsSchema(),
		"tags":         stringList,
		"run": obj{"description": "a command to record before judging: a command line run by the shell, or the program and its arguments; its OTLP export is the scenario's runs (instead of trace or traces)",
			"anyOf": []any{obj{"type": "string", "minLength": 1}, obj{"type": "array", "minItems": 1, "items": obj{"type": "string"}}}},
	}
	for key, kind := range harnessKeys {
		var s obj
		switch kind {
		case harnessString:
			s = obj{"type": "string"}
		case harnessMapping:
			s = obj{"type": "object"}
		case harnessSeconds:
			s = obj{"type": "integer", "minimum": 1}
		default:
			s = obj{}
		}
		s["description"] = harnessKeyDocs[key]
		props[key] = s
	}
	root := obj{
		"$schema":              "https://json-schema.org/draft/2020-12/schema",
		"$id":                  SchemaID,
		"title":                "agentretrieval scenario file",
		"description":          "A trace (or the traces of repeated runs) of one task, its ground truth, and the expectations its retrieval must meet. See the documentation of package expectations.",
		"type":                 "object",
		"additionalProperties": false,
		"properties":           props,
		"allOf": []any{
			obj{"not": obj{"required": []string{"trace", "traces"}}},
			obj{"not": obj{"required": []string{"run", "trace"}}},
			obj{"not": obj{"required": []string{"run", "traces"}}},
		},
		"$defs": defs,
	}
	data, err := json.MarshalIndent(root, "", "  ")
	if err != nil {
		panic("expectations: schema: " + err.Error()) // plain maps always marshal
	}
	return append(data, '\n')
}

func (r *Registry) typeSchema(name string) obj {
	t := r.types[name]
	spec := r.specs[name]
	props := obj{
		"type":        obj{"const": name},
		"description": obj{"type": "string", "description": "what the expectation checks, in words"},
		"flaky":       obj{"type": "boolean", "description": "report the outcome but never fail the scenario"},
	}
	s := obj{"type": "object", "properties": props, "additionalProperties": false}
	desc := t.Description
	if t.Live {
		desc += "; reported as skipped when judged from a trace"
	}
	if desc != "" {
		s["description"] = desc
	}
	if spec.typ == nil {
		return s
	}
	var exclusive []any
	for _, f := range spec.fields {
		if f.inline {
			s["additionalProperties"] = valueSchema(f.typ.Elem(), limits{})
			if name == "retrieval" {
				s["additionalProperties"] = false
				s["patternProperties"] = metricPatterns(f.typ.Elem())
			}
			continue
		}
		fs := valueSchema(f.typ, f.lim)
		if f.doc != "" {
			fs["description"] = f.doc
		}
		props[f.key] = fs
		if f.alias != "" {
			as := valueSchema(f.typ, f.lim)
			as["description"] = "alias of " + f.key
			props[f.alias] = as
			exclusive = append(exclusive, obj{"not": obj{"required": []string{f.key, f.alias}}})
		}
	}
	if len(exclusive) > 0 {
		s["allOf"] = exclusive
	}
	return s
}

// metricPatterns matches the metric names of metrics.Define: bounded
// metrics take bounds in [0, 1].
func metricPatterns(bound reflect.Type) obj {
	var ratio, other []string
	for _, d := range metrics.Definitions() {
		p := regexp.QuoteMeta(d.Name)
		p = strings.Replace(p, "@k", "@[1-9][0-9]*", 1)
		if d.Views {
			p = `(read\.)?` + p
		}
		if d.Bounded {
			ratio = append(ratio, p)
		} else {
			other = append(other, p)
		}
	}
	zero, one := 0.0, 1.0
	rs := valueSchema(bound, limits{min: &zero, max: &one})
	rs["description"] = "bounds of a metric in [0, 1]"
	os := valueSchema(bound, limits{})
	os["description"] = "bounds of a count, steps, seconds or tokens metric"
	return obj{
		"^(" + strings.Join(ratio, "|") + ")$": rs,
		"^(" + strings.Join(other, "|") + ")$": os,
	}
}

// valueSchema describes a parameter type with the limits of its key.
func valueSchema(t reflect.Type, lim limits) obj {
	switch k := t.Kind(); {
	case k == reflect.Pointer:
		return valueSchema(t.Elem(), lim)
	case k == reflect.Bool:
		return obj{"type": "boolean"}
	case k == reflect.String:
		s := obj{"type": "string"}
		if len(lim.enum) > 0 {
			s["enum"] = lim.enum
		}
		if lim.format == "regexp" {
			s["format"] = "regex"
		}
		return s
	case isNumberKind(k):
		s := obj{"type": "number"}
		if isIntKind(k) {
			s["type"] = "integer"
		}
		if lim.min != nil {
			s["minimum"] = *lim.min
		}
		if lim.max != nil {
			s["maximum"] = *lim.max
		}
		return s
	case k == reflect.Slice:
		return obj{"type": "array", "items": valueSchema(t.Elem(), lim)}
	case k == reflect.Map:
		return obj{"type": "object", "additionalProperties": valueSchema(t.Elem(), lim)}
	case k == reflect.Struct:
		spec, err := specOf(t)
		if err != nil {
			return obj{"type": "object"}
		}
		props := obj{}
		for _, f := range spec.fields {
			if f.inline {
				continue
			}
			fl := f.lim
			if fl.min == nil && fl.max == nil {
				fl.min, fl.max = lim.min, lim.max
			}
			props[f.key] = valueSchema(f.typ, fl)
			if f.doc != "" {
				props[f.key].(obj)["description"] = f.doc
			}
		}
		o := obj{"type": "object", "properties": props, "additionalProperties": false}
		if spec.shorthand != nil {
			short := valueSchema(spec.shorthand.typ, spec.shorthand.lim)
			short["type"] = []string{"string", "number", "boolean"} // any scalar, read as its text
			short["description"] = "short for {" + spec.shorthand.key + ": …}"
			return obj{"anyOf": []any{short, o}}
		}
		return o
	}
	return obj{}
}

func groundTruthSchema() obj {
	file := obj{"anyOf": []any{
		obj{"type": "string"},
		obj{"type": "object", "required": []string{"path"}, "additionalProperties": false, "properties": obj{
			"path":  obj{"type": "string"},
			"grade": obj{"type": "integer", "minimum": 0},
		}},
	}}
	files := obj{"type": "array", "items": file}
	return obj{
		"description": "the right answer: a list of paths, a mapping in the ground-truth file format, or {from: SPEC} to load a ground-truth file, task folder, diff or SWE-bench instance (relative to the scenario file)",
		"anyOf": []any{
			files,
			obj{"type": "object", "required": []string{"from"}, "additionalProperties": false, "properties": obj{
				"from": obj{"type": "string"},
			}},
			obj{"type": "object", "additionalProperties": false, "properties": obj{
				"files": files,
				"symbols": obj{"type": "array", "items": obj{"type": "object", "required": []string{"file", "symbol"}, "additionalProperties": false, "properties": obj{
					"file": obj{"type": "string"}, "symbol": obj{"type": "string"},
				}}},
				"expected_edit_files": obj{"type": "array", "items": obj{"type": "string"}},
				"chunks": obj{"type": "array", "items": obj{"type": "object", "required": []string{"path", "start", "end"}, "additionalProperties": false, "properties": obj{
					"path": obj{"type": "string"}, "start": obj{"type": "integer", "minimum": 1}, "end": obj{"type": "integer", "minimum": 1},
				}}},
			}},
		},
	}
}

func runsSchema() obj {
	s := valueSchema(reflect.TypeOf(runsParams{}), limits{})
	s["description"] = "how the runs' outcomes combine: min_pass_rate, at_least, min_pass_at_k or min_pass_hat_k with k, or min_wilson_low (default: every run must pass)"
	// One rule; k only with the two estimators that draw k runs.
	shape := func(keys ...string) obj {
		return obj{"required": keys, "maxProperties": len(keys)}
	}
	s["oneOf"] = []obj{shape("min_pass_rate"), shape("at_least"), shape("k", "min_pass_at_k"),
		shape("k", "min_pass_hat_k"), shape("min_wilson_low")}
	return s
}
