package expectations

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/internal/input"
	"github.com/agentretrieval/agentretrieval/internal/yamlerr"
	"github.com/agentretrieval/agentretrieval/internal/yamllimit"
	"github.com/agentretrieval/agentretrieval/metrics"
	"github.com/agentretrieval/agentretrieval/trace"
)

// LoadOptions control loading scenario files.
type LoadOptions struct {
	// Registry holds the expectation types; nil means DefaultRegistry().
	Registry *Registry
	// MaxInputSize bounds, in bytes, the scenario file; zero means
	// DefaultMaxScenarioSize. The files a scenario names are bounded by
	// the packages that read them: traces by EvalOptions.MaxInputSize,
	// ground truth by groundtruth.SetMaxInputSize, taxonomy files by
	// events.SetMaxInputSize, symbol files by metrics.SetMaxInputSize.
	MaxInputSize int64
}

// DefaultMaxScenarioSize is the default LoadOptions.MaxInputSize: 64 MiB.
const DefaultMaxScenarioSize = input.ConfigLimit

// scenarioKeys are the keys of a scenario file this package interprets.
var scenarioKeys = []string{
	"name", "description", "trace", "traces", "trace_id", "cwd", "format", "profile", "taxonomy",
	"ground_truth", "symbols", "expectations", "runs", "tags", "run",
}

// Load reads and validates a scenario file. All problems of the file are
// reported together as Errors. The file must be a regular file (a named
// pipe, a device or a socket is refused) no larger than opts.MaxInputSize.
func Load(file string, opts LoadOptions) (*Scenario, error) {
	data, err := input.ReadFile(file, input.Or(opts.MaxInputSize, DefaultMaxScenarioSize))
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	return Parse(file, data, opts)
}

// Parse is Load on data already read; file names it in errors and anchors
// relative paths.
func Parse(file string, data []byte, opts LoadOptions) (*Scenario, error) {
	return load(ParseFile(file, data), opts)
}

// load loads the scenario of the file p parsed.
func load(p *ParsedFile, opts LoadOptions) (*Scenario, error) {
	file := p.file
	l := &loader{
		decoder: decoder{
			nodeErrs: &nodeErrs{file: file},
			dir:      filepath.Dir(file),
		},
		reg:  orDefault(opts.Registry),
		data: p.data,
		s:    &Scenario{File: file},
	}
	l.load(p.yaml, p.err)
	if len(l.errs) > 0 {
		slices.SortStableFunc(l.errs, func(a, b *yamlerr.Error) int {
			return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
		})
		return nil, l.errs
	}
	return l.s, nil
}

type loader struct {
	decoder
	reg  *Registry
	data []byte
	s    *Scenario
	// harness is true when the file has keys of the index-effectiveness
	// harness's format.
	harness bool
	// runsNode is where runs is, for the check against the trace count.
	runsNode ast.Node
	// empty are the keys given without a value, already reported, so that
	// they are not reported as missing too.
	empty []string
}

// load loads the scenario of f, the file's parse, or reports err, the
// parser's.
func (l *loader) load(f *yamllimit.File, err error) {
	if err != nil {
		l.errs = append(l.errs, asYAMLErr(l.file, err))
		return
	}
	var docs []*ast.DocumentNode
	for _, d := range f.Docs {
		if d != nil && d.Body != nil {
			docs = append(docs, d)
		}
	}
	if len(docs) == 0 {
		l.errs = append(l.errs, &yamlerr.Error{File: l.file, Msg: "the file is empty: a scenario needs a trace and expectations"})
		return
	}
	if len(docs) > 1 {
		l.at(docs[1].Body, "a scenario file holds one document; split the scenarios into files")
	}
	root := docs[0].Body
	l.yaml = f
	es, ok := l.entries(root)
	if !ok {
		l.at(root, "a scenario is a mapping of keys (name, trace, expectations, …), not %s", l.kindOf(root))
		return
	}
	es = l.uniqueEntries(es)
	for _, e := range es {
		if _, ok := harnessKeys[e.key]; ok {
			l.harness = true
		}
	}
	var traceEntry, tracesEntry, expEntry, runEntry *entry
	for i := range es {
		e := &es[i]
		if isNull(l.resolve(e.value)) {
			l.at(e.keyNode, "%s has no value", e.key)
			l.empty = append(l.empty, e.key)
			continue
		}
		switch e.key {
		case "name":
			l.str(e, &l.s.Name)
		case "description":
			l.str(e, &l.s.Description)
		case "trace":
			traceEntry = e
		case "traces":
			tracesEntry = e
		case "trace_id":
			l.str(e, &l.s.TraceID)
		case "cwd":
			if l.str(e, &l.s.CWD) && !isAbs(l.s.CWD) {
				l.at(e.value, "cwd: %q is not an absolute path: give the agent's working directory as the trace spells it (/root, /workspace/project)", l.s.CWD)
			}
		case "format":
			if l.str(e, &l.s.Format) && !slices.Contains(trace.DefaultRegistry().Names(), l.s.Format) {
				l.at(e.value, "format: %s", unknownMessage("unknown trace format", l.s.Format, "", trace.DefaultRegistry().Names()))
			}
		case "profile":
			l.profiles(e)
		case "taxonomy":
			l.taxonomy(e)
		case "ground_truth":
			l.groundTruth(e, nextKeyLine(es, e))
		case "symbols":
			l.symbols(e)
		case "expectations":
			expEntry = e
		case "runs":
			l.runs(e)
		case "tags":
			l.value(e.value, reflect.ValueOf(&l.s.Tags).Elem(), limits{}, "tags")
		case "run":
			runEntry = e
			l.run(e)
		default:
			if check, ok := harnessKeys[e.key]; ok {
				l.harnessKey(e, check)
				continue
			}
			known := append(slices.Clone(scenarioKeys), harnessKeyNames()...)
			l.at(e.keyNode, "%s", unknownMessage("unknown key", e.key, "the scenario", known))
		}
	}
	if l.s.Name == "" {
		base := filepath.Base(l.file)
		l.s.Name = strings.TrimSuffix(base, filepath.Ext(base))
	}
	switch {
	case runEntry != nil && (traceEntry != nil || tracesEntry != nil):
		l.at(runEntry.keyNode, "give run (a command to record) or trace/traces (recorded runs), not both")
	case runEntry != nil || slices.Contains(l.empty, "run"):
	case !slices.Contains(l.empty, "trace") && !slices.Contains(l.empty, "traces"):
		l.traces(root, traceEntry, tracesEntry)
	}
	if expEntry == nil && !slices.Contains(l.empty, "expectations") {
		l.at(root, "no expectations: a scenario must check something (add expectations: with at least one entry)")
	} else if expEntry != nil {
		l.expectations(expEntry)
	}
	if r := l.s.Runs.AtLeast; r != nil && len(l.s.Traces) > 0 && *r > len(l.s.Traces) {
		l.at(l.runsNode, "runs.at_least: %d runs must pass but the scenario has %d trace(s): it could never pass", *r, len(l.s.Traces))
	}
	if k := l.s.Runs.K; k != nil && len(l.s.Traces) > 0 && *k > len(l.s.Traces) {
		l.at(l.runsNode, "runs.k: pass@%d and pass^%d draw %d runs but the scenario has %d trace(s)", *k, *k, *k, len(l.s.Traces))
	}
}

func (l *loader) str(e *entry, dst *string) bool {
	return l.value(e.value, reflect.ValueOf(dst).Elem(), limits{}, e.key)
}

func (l *loader) profiles(e *entry) {
	n := l.resolve(e.value)
	var names []string
	if _, isSeq := n.(*ast.SequenceNode); isSeq {
		if !l.value(n, reflect.ValueOf(&names).Elem(), limits{}, "profile") {
			return
		}
	} else {
		var one string
		if !l.value(n, reflect.ValueOf(&one).Elem(), limits{}, "profile") {
			return
		}
		names = []string{one}
	}
	known := events.ProfileNames()
	items, _ := l.sequence(n)
	for i, p := range names {
		if !slices.Contains(known, p) {
			at := n
			if i < len(items) {
				at = items[i]
			}
			l.at(at, "profile: %s", unknownMessage("unknown taxonomy profile", p, "", known))
		}
	}
	l.s.Profiles = names
}

func (l *loader) taxonomy(e *entry) {
	if !l.value(e.value, reflect.ValueOf(&l.s.Taxonomy).Elem(), limits{format: "file"}, "taxonomy") {
		return
	}
	if _, err := events.LoadTaxonomy(nil, l.s.Taxonomy); err != nil {
		l.at(e.value, "taxonomy: %v", err)
	}
}

func (l *loader) symbols(e *entry) {
	if !l.value(e.value, reflect.ValueOf(&l.s.Symbols).Elem(), limits{format: "file"}, "symbols") {
		return
	}
	if _, err := metrics.LoadSymbols(l.s.Symbols); err != nil {
		l.at(e.value, "symbols: %v", err)
	}
}

// traces resolves trace or traces against the scenario's folder.
func (l *loader) traces(root ast.Node, one, many *entry) {
	switch {
	case one != nil && many != nil:
		later := many
		if lineOf(one.keyNode) > lineOf(many.keyNode) {
			later = one
		}
		l.at(later.keyNode, "give trace (one file) or traces (the runs of the task), not both")
		return
	case one == nil && many == nil:
		if !l.harness {
			l.at(root, "no trace: give trace (one file) or traces (files or globs, one per run of the task)")
		}
		return
	case one != nil:
		var name string
		if !l.value(one.value, reflect.ValueOf(&name).Elem(), limits{}, "trace") {
			return
		}
		if p, ok := l.traceFile(one.value, "trace", name); ok {
			l.s.Traces, l.s.TracePos = []string{p}, []Pos{l.pos(one.value)}
		}
		return
	}
	var pats []string
	if !l.value(many.value, reflect.ValueOf(&pats).Elem(), limits{}, "traces") {
		return
	}
	items, _ := l.sequence(many.value)
	if len(pats) == 0 {
		l.at(many.value, "traces is empty: list the trace files of the runs")
		return
	}
	seen := map[string]bool{}
	for i, pat := range pats {
		at, name := items[i], fmt.Sprintf("traces[%d]", i)
		var files []string
		if strings.ContainsAny(pat, "*?[") && !trace.IsURL(pat) {
			matches, err := filepath.Glob(resolvePath(l.dir, pat))
			if err != nil {
				l.at(at, "%s: %q is not a glob: %v", name, pat, err)
				continue
			}
			for _, m := range matches {
				if st, err := os.Stat(m); err == nil && !st.IsDir() {
					files = append(files, m)
				}
			}
			if len(files) == 0 {
				l.at(at, "%s: %s matches no file", name, resolvePath(l.dir, pat))
				continue
			}
		} else if p, ok := l.traceFile(at, name, pat); ok {
			files = []string{p}
		}
		for _, f := range files {
			if !seen[f] {
				seen[f] = true
				l.s.Traces = append(l.s.Traces, f)
				l.s.TracePos = append(l.s.TracePos, l.pos(at))
			}
		}
	}
}

// pos is the position of a node in the file.
func (l *loader) pos(n ast.Node) Pos {
	line, col := nodeLineCol(n)
	return Pos{File: l.file, Line: line, Col: col}
}

func lineOf(n ast.Node) int {
	line, _ := nodeLineCol(n)
	return line
}

func (l *loader) traceFile(at ast.Node, name, file string) (string, bool) {
	if trace.IsURL(file) {
		return file, true // read when the scenario is measured
	}
	p := resolvePath(l.dir, file)
	st, err := os.Stat(p)
	switch {
	case err != nil:
		l.at(at, "%s: %s does not exist", name, p)
		return "", false
	case st.IsDir():
		l.at(at, "%s: %s is a folder, not a trace file", name, p)
		return "", false
	}
	return p, true
}

// run reads the run key: a command line, run by the shell, or a list of
// the program and its arguments, run as it is.
func (l *loader) run(e *entry) {
	n := l.resolve(e.value)
	if _, isSeq := n.(*ast.SequenceNode); isSeq {
		var args []string
		if l.value(n, reflect.ValueOf(&args).Elem(), limits{}, "run") {
			if len(args) == 0 || args[0] == "" {
				l.at(e.value, "run: the list is empty: give the program and its arguments")
				return
			}
			l.s.Run = args
		}
		return
	}
	var line string
	if !l.value(n, reflect.ValueOf(&line).Elem(), limits{}, "run") {
		return
	}
	if strings.TrimSpace(line) == "" {
		l.at(e.value, "run: the command is empty")
		return
	}
	l.s.Run = shellCommand(line)
}

// runsParams are the keys of runs; RunsRule's own tags stay plain so that
// the API type carries no loader detail.
type runsParams struct {
	MinPassRate  *float64 `yaml:"min_pass_rate" doc:"lowest fraction of runs that must pass" min:"0" max:"1"`
	AtLeast      *int     `yaml:"at_least" doc:"lowest number of runs that must pass" min:"1"`
	K            *int     `yaml:"k" doc:"runs drawn for min_pass_at_k and min_pass_hat_k, at most the number of traces" min:"1"`
	MinPassAtK   *float64 `yaml:"min_pass_at_k" doc:"lowest unbiased pass@k: the chance that at least one of k runs drawn passes (needs k)" min:"0" max:"1"`
	MinPassHatK  *float64 `yaml:"min_pass_hat_k" doc:"lowest unbiased pass^k: the chance that all k runs drawn pass (needs k)" min:"0" max:"1"`
	MinWilsonLow *float64 `yaml:"min_wilson_low" doc:"lowest lower bound of the 95% Wilson score interval of the pass rate" min:"0" max:"1"`
}

func (l *loader) runs(e *entry) {
	l.runsNode = e.value
	es, ok := l.entries(e.value)
	if !ok {
		l.at(e.value, "runs: expected a mapping with min_pass_rate or at_least, got %s", l.kindOf(e.value))
		return
	}
	var p runsParams
	spec, _ := specOf(reflect.TypeOf(p))
	before := len(l.errs)
	l.decodeStruct(es, reflect.ValueOf(&p).Elem(), spec, structCtx{where: "runs"})
	if len(l.errs) > before {
		return
	}
	var given []string
	for name, set := range map[string]bool{"min_pass_rate": p.MinPassRate != nil, "at_least": p.AtLeast != nil,
		"min_pass_at_k": p.MinPassAtK != nil, "min_pass_hat_k": p.MinPassHatK != nil, "min_wilson_low": p.MinWilsonLow != nil} {
		if set {
			given = append(given, name)
		}
	}
	slices.Sort(given)
	perK := p.MinPassAtK != nil || p.MinPassHatK != nil
	switch {
	case len(given) > 1:
		l.at(e.value, "runs: give one rule, not %s", strings.Join(given, " and "))
	case len(given) == 0:
		l.at(e.value, "runs: give min_pass_rate (a fraction of the runs), at_least (a number of runs), min_pass_at_k or min_pass_hat_k with k, or min_wilson_low; without runs every run must pass")
	case perK && p.K == nil:
		l.at(e.value, "runs: %s needs k, the number of runs drawn", given[0])
	case !perK && p.K != nil:
		l.at(e.value, "runs: k goes with min_pass_at_k or min_pass_hat_k, not %s", given[0])
	}
	l.s.Runs = RunsRule{MinPassRate: p.MinPassRate, AtLeast: p.AtLeast, K: p.K,
		MinPassAtK: p.MinPassAtK, MinPassHatK: p.MinPassHatK, MinWilsonLow: p.MinWilsonLow}
}

// resolvePath joins a relative path to the scenario's folder.
func resolvePath(dir, p string) string {
	if filepath.IsAbs(p) || dir == "" {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, filepath.FromSlash(p))
}

// isAbs reports whether a working directory is absolute as a trace spells
// it: from the root ("/root") or from a drive ("C:\work", "C:/work"),
// whatever the system check runs on.
func isAbs(dir string) bool {
	if strings.HasPrefix(dir, "/") {
		return true
	}
	return len(dir) >= 3 && dir[1] == ':' && (dir[2] == '\\' || dir[2] == '/') &&
		('a' <= dir[0]|0x20 && dir[0]|0x20 <= 'z')
}
