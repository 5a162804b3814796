package expectations

import (
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/agentretrieval/agentretrieval/events"
)

// The trajectory types (sequence, before, errors) judge the calls of a run
// one by one: which tool, which class and category the taxonomy gave it,
// its arguments, the files it touched, whether it failed. This file holds
// that view of a call and the call pattern the three types share.

// CallPattern describes the calls that match one step of a sequence or one
// side of a before: a tool name or glob, a class, a category and
// arguments, all of which must match. Written as a plain string it is the
// tool ("Grep", "mcp__*"), or "class:NAME" or "category:NAME".
type CallPattern struct {
	Tool     string                `yaml:"tool" shorthand:"true" doc:"tool name or glob (path.Match); as a plain string also class:NAME or category:NAME" format:"glob"`
	Class    string                `yaml:"class" doc:"the call's class in the taxonomy" enum:"semantic,file_level,edit,other"`
	Category string                `yaml:"category" doc:"the call's category in the taxonomy" enum:"file_read,file_search,symbol_navigation,code_search,commit_search,deep_search,file_write,other"`
	Args     map[string]ArgMatcher `yaml:"args" doc:"argument name to matcher: a glob (** crosses folders; a path argument is also compared after normalization) or {glob, regex}"`
	Match    string                `yaml:"match" doc:"how args apply: partial (the listed arguments match; default), exact (and the call has no other argument), ignore (arguments are not checked)" enum:"partial,exact,ignore"`
	Min      *int                  `yaml:"min" doc:"sequence only: fewest matching calls for the step (default 1; 0 in subset mode)" min:"0"`
	Max      *int                  `yaml:"max" doc:"sequence only: most matching calls for the step (default: no bound; min in exact and unordered modes)" min:"0"`
}

// ArgMatcher matches one argument of a call. Written as a plain value it is
// the glob.
type ArgMatcher struct {
	Glob  string `yaml:"glob" shorthand:"true" doc:"glob the argument must match in full (path.Match per folder, ** across folders; a value without wildcards must be equal)" format:"glob"`
	Regex string `yaml:"regex" doc:"regular expression the argument must contain a match of" format:"regexp"`
}

// resolved returns the pattern with the short forms class:NAME and
// category:NAME of Tool moved to their fields.
func (p CallPattern) resolved() CallPattern {
	if v, ok := strings.CutPrefix(p.Tool, "class:"); ok {
		p.Tool, p.Class = "", strings.TrimSpace(v)
	} else if v, ok := strings.CutPrefix(p.Tool, "category:"); ok {
		p.Tool, p.Category = "", strings.TrimSpace(v)
	}
	return p
}

var (
	knownClasses    = []string{string(events.Semantic), string(events.FileLevel), string(events.Edit), string(events.OtherClass)}
	knownCategories = []string{
		string(events.FileRead), string(events.FileSearch), string(events.SymbolNavigation), string(events.CodeSearch),
		string(events.CommitSearch), string(events.DeepSearch), string(events.FileWrite), string(events.OtherCategory),
	}
)

// validate checks what the tags cannot: a pattern that matches every call,
// the short forms' names, a matcher with nothing to match, counts.
func (p CallPattern) validate(where string, counts bool) error {
	r := p.resolved()
	switch {
	case r.Class != "" && !slices.Contains(knownClasses, r.Class):
		return fmt.Errorf("%s: %s", where, unknownMessage("unknown class", r.Class, "", knownClasses))
	case r.Category != "" && !slices.Contains(knownCategories, r.Category):
		return fmt.Errorf("%s: %s", where, unknownMessage("unknown category", r.Category, "", knownCategories))
	case r.Tool == "" && r.Class == "" && r.Category == "" && len(r.Args) == 0:
		return fmt.Errorf("%s: give tool, class, category or args: an empty pattern matches every call", where)
	case !counts && (p.Min != nil || p.Max != nil):
		return fmt.Errorf("%s: min and max count the calls of a sequence step; they have no meaning here", where)
	case p.Min != nil && p.Max != nil && *p.Min > *p.Max:
		return fmt.Errorf("%s: min %d is above max %d", where, *p.Min, *p.Max)
	}
	for _, k := range slices.Sorted(maps.Keys(p.Args)) {
		if m := p.Args[k]; m.Glob == "" && m.Regex == "" {
			return fmt.Errorf("%s.args.%s: give a glob or a regex", where, k)
		}
	}
	return nil
}

// String writes the pattern as a scenario would: {tool: Read, class: edit}.
func (p CallPattern) String() string {
	r := p.resolved()
	var parts []string
	if r.Tool != "" {
		parts = append(parts, "tool: "+r.Tool)
	}
	if r.Class != "" {
		parts = append(parts, "class: "+r.Class)
	}
	if r.Category != "" {
		parts = append(parts, "category: "+r.Category)
	}
	if len(r.Args) > 0 && r.Match != "ignore" {
		var as []string
		for _, k := range slices.Sorted(maps.Keys(r.Args)) {
			m := r.Args[k]
			switch {
			case m.Glob != "" && m.Regex != "":
				as = append(as, fmt.Sprintf("%s: {glob: %q, regex: %q}", k, m.Glob, m.Regex))
			case m.Regex != "":
				as = append(as, fmt.Sprintf("%s: {regex: %q}", k, m.Regex))
			default:
				as = append(as, fmt.Sprintf("%s: %q", k, m.Glob))
			}
		}
		parts = append(parts, "args: {"+strings.Join(as, ", ")+"}")
	}
	if r.Match == "exact" {
		parts = append(parts, "match: exact")
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// callView is one tool call as the trajectory types see it.
type callView struct {
	step     int
	name     string
	class    string
	category string
	// lazy holds the arguments, decoded the first time a check needs them.
	lazy *lazyArgs
	// argsKey stands for the arguments' key when lazy is nil.
	argsKey string
	// files are the normalized files the call named.
	files  []string
	failed bool
}

// lazyArgs are a call's raw arguments, decoded once on first use: most
// checks look at no argument, and decoding every call of a long trace
// would dominate their cost.
type lazyArgs struct {
	raw  json.RawMessage
	done bool
	// v is the decoded arguments; m the same when they are an object.
	v any
	m map[string]any
	// key is the arguments as canonical JSON (keys sorted), for
	// comparing two calls; made on first use.
	key    string
	keyed  bool
	broken bool
}

func (l *lazyArgs) load() {
	if l.done {
		return
	}
	l.done = true
	if len(l.raw) == 0 {
		return
	}
	if err := json.Unmarshal(l.raw, &l.v); err != nil {
		l.broken = true
		return
	}
	l.m, _ = l.v.(map[string]any)
}

// arguments returns the call's argument object, nil when it has none.
func (c callView) arguments() map[string]any {
	if c.lazy == nil {
		return nil
	}
	c.lazy.load()
	return c.lazy.m
}

// key returns the call's arguments as canonical JSON: two calls with the
// same arguments in another key order have the same key.
func (c callView) key() string {
	l := c.lazy
	if l == nil {
		return c.argsKey
	}
	if !l.keyed {
		l.keyed = true
		l.load()
		l.key = string(l.raw)
		if !l.broken && len(l.raw) > 0 {
			if b, err := json.Marshal(l.v); err == nil { // map keys come out sorted
				l.key = string(b)
			}
		}
	}
	return l.key
}

// callViews lists the run's calls with their classification (from the
// events document) and arguments (from the session). Without a document
// the calls have no class or category; without either, ok is false.
func callViews(run *Run) (calls []callView, paths events.PathNormalizer, ok bool) {
	if run == nil {
		return nil, paths, false
	}
	byIndex := map[int]int{}
	if run.Session != nil {
		paths.CWD = run.Session.CWD
		for i, c := range run.Session.Calls {
			byIndex[c.Index] = i
		}
	}
	withArgs := func(v *callView) {
		if run.Session == nil {
			return
		}
		if i, found := byIndex[v.step]; found {
			v.lazy = &lazyArgs{raw: run.Session.Calls[i].Arguments}
		}
	}
	switch {
	case run.Document != nil && run.Document.Coverage.TraceSource != nil:
		calls = make([]callView, 0, len(run.Document.Events))
		for _, ev := range run.Document.Events {
			v := callView{
				step: ev.StepIndex, name: ev.ToolName, class: string(ev.ToolClass), category: string(ev.ToolCategory),
				files: ev.TargetFiles, failed: ev.IsError,
			}
			withArgs(&v)
			calls = append(calls, v)
		}
		return calls, paths, true
	case run.Session != nil:
		calls = make([]callView, 0, len(run.Session.Calls))
		for _, c := range run.Session.Calls {
			v := callView{step: c.Index, name: c.Name, failed: c.IsError}
			withArgs(&v)
			calls = append(calls, v)
		}
		return calls, paths, true
	}
	return nil, paths, false
}

// matches reports whether the call matches the pattern.
func (p CallPattern) matches(c callView, paths events.PathNormalizer) bool {
	r := p.resolved()
	if r.Tool != "" {
		if ok, _ := path.Match(r.Tool, c.name); !ok {
			return false
		}
	}
	if r.Class != "" && r.Class != c.class {
		return false
	}
	if r.Category != "" && r.Category != c.category {
		return false
	}
	if r.Match == "ignore" || len(r.Args) == 0 && r.Match != "exact" {
		return true
	}
	args := c.arguments()
	for k, m := range r.Args {
		v, ok := args[k]
		if !ok || !m.matches(v, paths) {
			return false
		}
	}
	if r.Match == "exact" {
		for k := range args {
			if _, listed := r.Args[k]; !listed {
				return false
			}
		}
	}
	return true
}

// matches reports whether an argument value matches: a string by its text
// (and, when it names a file, by its normalized path too), a number or
// boolean by its JSON text, a list when any item matches, an object by its
// JSON text.
func (m ArgMatcher) matches(v any, paths events.PathNormalizer) bool {
	switch x := v.(type) {
	case []any:
		for _, item := range x {
			if m.matches(item, paths) {
				return true
			}
		}
		return false
	case string:
		if m.matchesText(x) {
			return true
		}
		if p, ok := paths.File(x, events.FromArgument); ok && p != x {
			return m.matchesText(p)
		}
		return false
	case nil:
		return m.matchesText("null")
	case float64:
		return m.matchesText(strconv.FormatFloat(x, 'f', -1, 64))
	default:
		b, err := json.Marshal(x)
		return err == nil && m.matchesText(string(b))
	}
}

func (m ArgMatcher) matchesText(s string) bool {
	if m.Glob != "" && !globMatch(m.Glob, s) {
		return false
	}
	if m.Regex != "" {
		re, err := compiledRegexp(m.Regex)
		if err != nil || !re.MatchString(s) {
			return false
		}
	}
	return true
}

// regexps caches the compiled argument regexps: a pattern is matched
// against every call of a run, and every run of a scenario.
var regexps sync.Map // string → *regexp.Regexp

func compiledRegexp(expr string) (*regexp.Regexp, error) {
	if re, ok := regexps.Load(expr); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	regexps.Store(expr, re)
	return re, nil
}

// globMatch matches a slash-separated name against a glob whose folders
// are path.Match patterns and whose ** folders match any number of
// folders, none included: **/checkout/*.go matches checkout/a.go and
// svc/checkout/a.go.
func globMatch(glob, name string) bool {
	if !strings.Contains(glob, "**") {
		ok, _ := path.Match(glob, name)
		return ok
	}
	return matchParts(strings.Split(glob, "/"), strings.Split(name, "/"))
}

func matchParts(glob, name []string) bool {
	for len(glob) > 0 {
		if glob[0] == "**" {
			for i := 0; i <= len(name); i++ {
				if matchParts(glob[1:], name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, _ := path.Match(glob[0], name[0]); !ok {
			return false
		}
		glob, name = glob[1:], name[1:]
	}
	return len(name) == 0
}

// callText names a call in evidence: "step 3 (Read pkg/auth/token.go)".
func callText(c callView) string {
	s := fmt.Sprintf("step %d (%s", c.step+1, c.name)
	if len(c.files) > 0 {
		s += " " + c.files[0]
		if len(c.files) > 1 {
			s += fmt.Sprintf(" +%d", len(c.files)-1)
		}
	}
	return s + ")"
}

// ParseCallPattern reads a call pattern written as a plain string, as a
// scenario's short form does: a tool name or glob, class:NAME or
// category:NAME. It fails for a malformed glob or an unknown class or
// category.
func ParseCallPattern(s string) (CallPattern, error) {
	p := CallPattern{Tool: strings.TrimSpace(s)}
	if _, err := path.Match(p.Tool, ""); err != nil {
		return p, fmt.Errorf("%q is not a glob: %v", s, err)
	}
	if err := p.validate(fmt.Sprintf("%q", s), false); err != nil {
		return p, err
	}
	return p, nil
}
