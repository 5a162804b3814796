package events

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"

	"github.com/agentretrieval/agentretrieval/internal/input"
	"github.com/agentretrieval/agentretrieval/internal/jsonmap"
	"github.com/agentretrieval/agentretrieval/internal/yamlerr"
	"github.com/agentretrieval/agentretrieval/internal/yamllimit"
	"github.com/agentretrieval/agentretrieval/trace"
)

// ProfileNames lists the built-in taxonomy profiles.
func ProfileNames() []string { return slices.Clone(profileNames()) }

// profileNames is ProfileNames, sorted once and shared: Claude Code first,
// since it is the default agent and its rules are the most specific, the
// rest in name order.
var profileNames = sync.OnceValue(func() []string {
	names := slices.Collect(maps.Keys(compiledProfiles()))
	slices.SortFunc(names, func(a, b string) int {
		switch {
		case a == b:
			return 0
		case a == "claude-code":
			return -1
		case b == "claude-code":
			return 1
		}
		return strings.Compare(a, b)
	})
	return names
})

// Profile returns the rules of a built-in profile. The profiles are
// written in profiles/*.yaml and compiled into the package
// (profiles_compiled.go), so that no run parses them.
func Profile(name string) ([]Rule, error) {
	rules, err := profileRules(name)
	if err != nil {
		return nil, err
	}
	return cloneRules(rules), nil
}

// profileRules returns the compiled rules of a built-in profile, shared:
// the caller must not change them.
func profileRules(name string) ([]Rule, error) {
	rules, ok := compiledProfiles()[name]
	if !ok {
		return nil, fmt.Errorf("unknown taxonomy profile %q (built-in: %s)", name, strings.Join(profileNames(), ", "))
	}
	return rules, nil
}

// boolPtr returns a pointer to a copy of b.
func boolPtr(b bool) *bool { return &b }

// cloneRules copies rules deeply enough that changing the copy (a Cases
// map, an MCP flag) leaves the original as it was.
func cloneRules(rules []Rule) []Rule {
	out := slices.Clone(rules)
	for i := range out {
		out[i].Cases = maps.Clone(out[i].Cases)
		if out[i].MCP != nil {
			mcp := *out[i].MCP
			out[i].MCP = &mcp
		}
	}
	return out
}

// A Taxonomy maps raw tool names to a category and a class. Rules are tried
// in order and the first match wins; a name no rule matches is other/other
// and reported as unclassified, never dropped.
type Taxonomy struct {
	name  string
	rules []Rule
	// preferred holds what Prefer returned, by profile: a taxonomy never
	// changes, and run-dir asks for the same one for every trial.
	preferred *sync.Map
	// index is built when the taxonomy first classifies a name: a
	// taxonomy that only hands out its preferred orders (the one a
	// command loads) never needs one.
	index func() ruleIndex
}

// A ruleIndex finds a name's rule without trying every rule. exact maps a
// name to the first rule whose Match is that name and no glob; globs are
// the positions of the other rules, in order. Every call of a session is
// classified, and most rules name one tool.
type ruleIndex struct {
	exact map[string]int
	globs []int
}

// newTaxonomy returns a taxonomy of rules, which it keeps.
func newTaxonomy(name string, rules []Rule) *Taxonomy {
	t := &Taxonomy{name: name, rules: rules, preferred: new(sync.Map)}
	t.index = sync.OnceValue(func() ruleIndex {
		ix := ruleIndex{exact: make(map[string]int, len(rules))}
		for i, r := range rules {
			if isGlob(r.Match) {
				ix.globs = append(ix.globs, i)
			} else if _, seen := ix.exact[r.Match]; !seen {
				ix.exact[r.Match] = i
			}
		}
		return ix
	})
	return t
}

// isGlob reports whether a rule's Match has path.Match syntax in it.
func isGlob(match string) bool { return strings.ContainsAny(match, `*?[\`) }

// Name describes where the rules came from ("claude-code,aura" or a file
// name), for provenance.
func (t *Taxonomy) Name() string { return t.name }

// NewTaxonomy returns a taxonomy with the given rules, in priority order.
func NewTaxonomy(rules ...Rule) (*Taxonomy, error) {
	for _, r := range rules {
		if err := r.validate(); err != nil {
			return nil, err
		}
	}
	return newTaxonomy("", slices.Clone(rules)), nil
}

// DefaultTaxonomy returns the taxonomy of every built-in profile, in the
// order of ProfileNames.
func DefaultTaxonomy() *Taxonomy { return defaultTaxonomy() }

// defaultTaxonomy is built once: a Taxonomy is never changed after it is
// made (Rules returns a copy), so every caller can share it.
var defaultTaxonomy = sync.OnceValue(func() *Taxonomy {
	t, err := LoadTaxonomy(nil)
	if err != nil {
		panic(err) // the embedded profiles are tested
	}
	return t
})

// maxInput is the caller's override of the taxonomy file size limit.
var maxInput input.Max

// SetMaxInputSize sets, in bytes, the largest taxonomy file LoadTaxonomy
// reads; a larger one is an error. Zero restores the default, 64 MiB. It is
// safe to call concurrently with loading.
func SetMaxInputSize(n int64) { maxInput.Set(n) }

// LoadTaxonomy builds a taxonomy from built-in profiles (all of them when
// profiles is empty) and user taxonomy files. Rules of the user files come
// first, so a user file overrides or extends the profiles.
//
// A taxonomy file must be a regular file (a named pipe, a device or a
// socket is refused) of at most 64 MiB; see SetMaxInputSize.
func LoadTaxonomy(profiles []string, files ...string) (*Taxonomy, error) {
	if len(profiles) == 0 {
		profiles = profileNames()
	}
	// The rules of user files are checked as they are parsed, and the
	// built-in ones by the package's tests; the taxonomy shares the
	// built-in rules' cases and flags, which nothing changes.
	var user []Rule
	for _, f := range files {
		data, err := input.ReadFile(f, maxInput.Or(input.ConfigLimit))
		if err != nil {
			return nil, err
		}
		r, err := ParseTaxonomy(f, data)
		if err != nil {
			return nil, err
		}
		user = append(user, r...)
	}
	builtin := make([][]Rule, len(profiles))
	n := len(user)
	for i, p := range profiles {
		r, err := profileRules(strings.TrimSpace(p))
		if err != nil {
			return nil, err
		}
		builtin[i] = r
		n += len(r)
	}
	rules := append(make([]Rule, 0, n), user...)
	for _, r := range builtin {
		rules = append(rules, r...)
	}
	return newTaxonomy(strings.Join(append(slices.Clone(files), profiles...), ","), rules), nil
}

// Rules returns the rules in priority order.
func (t *Taxonomy) Rules() []Rule { return cloneRules(t.rules) }

// Classify returns the first rule matching the tool name. For a name no rule
// matches it returns an other/other rule and false. A rule that classifies
// per call (By) is returned with its default category and class; ClassifyCall
// applies it to a call's arguments. The rule's Cases map and MCP flag are
// the taxonomy's own, shared by every taxonomy made from the same profile:
// read them, do not change them (Rules returns copies to change).
func (t *Taxonomy) Classify(tool string) (Rule, bool) {
	// The first match is the first of the rule naming the tool and the
	// globs before it that match.
	ix := t.index()
	first, ok := ix.exact[tool]
	if !ok {
		first = len(t.rules)
	}
	for _, i := range ix.globs {
		if i >= first {
			break
		}
		if t.rules[i].matches(tool) {
			first = i
			break
		}
	}
	if first < len(t.rules) {
		return t.rules[first], true
	}
	// Codex and Gemini CLI name an MCP tool server__tool, and some clients
	// server.tool, where Claude Code writes mcp__server__tool: a rule for
	// the Claude Code name classifies the others.
	if alias, ok := mcpAlias(tool); ok {
		if r, known := t.Classify(alias); known {
			return r, true
		}
	}
	return Rule{Match: tool, Category: OtherCategory, Class: OtherClass}, false
}

// mcpAlias returns Claude Code's name (mcp__server__tool) of a tool named
// server__tool or server.tool.
func mcpAlias(tool string) (string, bool) {
	if strings.HasPrefix(tool, "mcp__") || strings.HasPrefix(tool, "mcp_") {
		return "", false
	}
	server, name, ok := strings.Cut(tool, "__")
	if !ok {
		server, name, ok = strings.Cut(tool, ".")
	}
	if !ok || !mcpIdent(server) || !mcpIdent(name) {
		return "", false
	}
	return "mcp__" + server + "__" + name, true
}

// mcpIdent reports a server or tool name: letters, digits, _ and -.
func mcpIdent(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isAlpha(c) && !isDigit(c) && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

// ClassifyCall classifies one call: the first rule matching its name,
// applied to its arguments (see Rule.ForCall). Arguments are read as
// Extract reads them: an SWE-agent command line
// ({"command": "str_replace_editor view x.py"}) counts as the structured
// arguments it spells.
func (t *Taxonomy) ClassifyCall(c *trace.ToolCall) (Rule, bool) {
	return t.classifyCall(c, false)
}

// classifyCall is ClassifyCall, for a call whose arguments the reader
// checked as JSON when checked is set (trace.Session.ArgumentsChecked).
func (t *Taxonomy) classifyCall(c *trace.ToolCall, checked bool) (Rule, bool) {
	r, known := t.Classify(c.Name)
	if !known || r.By == "" {
		return r, known
	}
	args, _, _ := decodeArguments(c.Arguments, r.By, checked)
	defer jsonmap.Recycle(args)
	return r.ForCall(callArguments(c.Name, r, args)), true
}

// Prefer returns the taxonomy with the rules of one built-in profile moved
// ahead of the other built-in profiles' rules; rules of user files stay
// first. It resolves names that several agents use differently (Gemini CLI's
// read_file counts its offset from 0, Codex's from 1) in favour of the agent
// that wrote the trace. An empty or unknown profile leaves the order as is.
func (t *Taxonomy) Prefer(profile string) *Taxonomy {
	if t.preferred == nil {
		return t.prefer(profile)
	}
	if p, ok := t.preferred.Load(profile); ok {
		return p.(*Taxonomy)
	}
	p, _ := t.preferred.LoadOrStore(profile, t.prefer(profile))
	return p.(*Taxonomy)
}

// prefer is Prefer, computed.
func (t *Taxonomy) prefer(profile string) *Taxonomy {
	if profile == "" || !slices.ContainsFunc(t.rules, func(r Rule) bool { return r.Profile == profile }) {
		return t
	}
	// Each rule goes to the head (the user files' rules before the first
	// built-in one), the preferred profile's or the rest, each keeping its
	// order; the three are laid out in one slice of the taxonomy's size.
	const head, preferred, rest = 0, 1, 2
	builtin := profileNames()
	part := make([]uint8, len(t.rules))
	seenRest := false
	for i, r := range t.rules {
		switch {
		case r.Profile == profile:
			part[i] = preferred
		case !seenRest && !slices.Contains(builtin, r.Profile):
			part[i] = head
		default:
			part[i], seenRest = rest, true
		}
	}
	rules := make([]Rule, 0, len(t.rules))
	for _, p := range []uint8{head, preferred, rest} {
		for i, r := range t.rules {
			if part[i] == p {
				rules = append(rules, r)
			}
		}
	}
	return newTaxonomy(t.name, rules)
}

// sessionProfiles maps the names of trace formats and agents to the built-in
// profile of the agent that writes them, by prefix; the first prefix that
// matches wins, so mini-swe-agent comes before swe-agent.
var sessionProfiles = []struct{ prefix, profile string }{
	{"claude", "claude-code"},
	{"codex", "codex"},
	{"gemini", "gemini-cli"},
	{"openhands", "openhands"},
	{"mini-swe-agent", "mini-swe-agent"},
	{"mini_swe_agent", "mini-swe-agent"},
	{"swe-agent", "swe-agent"},
	{"sweagent", "swe-agent"},
	{"swe_agent", "swe-agent"},
	{"copilot", "copilot"},
	{"aura", "aura"},
	{"amp", "amp"},
	{"cursor", "cursor"},
	{"cline", "cline"},
}

// SessionProfile names the built-in profile of the agent that wrote a
// session, from the session's format ("codex-rollout", "gemini-cli") or,
// for formats that several agents write (ATIF, OpenTelemetry, tool-call
// records), its agent name. It returns "" when neither names a known agent.
func SessionProfile(format, agent string) string {
	for _, name := range []string{format, agent} {
		l := strings.ToLower(strings.TrimSpace(name))
		for _, sp := range sessionProfiles {
			if strings.HasPrefix(l, sp.prefix) {
				return sp.profile
			}
		}
	}
	return ""
}

// IsMCP reports whether a call of the tool goes to an MCP server.
func (r Rule) IsMCP(tool string) bool {
	if r.MCP != nil {
		return *r.MCP
	}
	if strings.HasPrefix(tool, "mcp__") || strings.HasPrefix(tool, "mcp_") {
		return true
	}
	// server__tool (Codex, Gemini CLI): a double underscore between two
	// names is how these agents join an MCP server's name to its tool's.
	server, name, ok := strings.Cut(tool, "__")
	return ok && mcpIdent(server) && mcpIdent(name)
}

func (r Rule) matches(tool string) bool {
	if r.Match == tool {
		return true
	}
	if !isGlob(r.Match) {
		return false
	}
	ok, _ := path.Match(r.Match, tool)
	return ok
}

func (r Rule) validate() error {
	if r.Match == "" {
		return fmt.Errorf("taxonomy rule has no match")
	}
	if _, err := path.Match(r.Match, ""); err != nil {
		return fmt.Errorf("taxonomy rule %q: bad glob: %v", r.Match, err)
	}
	if !slices.Contains(Categories, r.Category) {
		return fmt.Errorf("taxonomy rule %q: unknown category %q", r.Match, r.Category)
	}
	if !slices.Contains(Classes, r.Class) {
		return fmt.Errorf("taxonomy rule %q: unknown class %q", r.Match, r.Class)
	}
	switch {
	case r.By != "" && len(r.Cases) == 0:
		return &fieldError{".by", fmt.Errorf("taxonomy rule %q: by: %s needs cases: a map from its values to {category, class}", r.Match, r.By)}
	case r.By == "" && len(r.Cases) > 0:
		return &fieldError{"", fmt.Errorf("taxonomy rule %q: cases need by: the argument whose value selects a case", r.Match)}
	}
	for _, v := range slices.Sorted(maps.Keys(r.Cases)) {
		c := r.Cases[v]
		var err error
		switch {
		case c.validate() != nil:
			err = fmt.Errorf("taxonomy rule %q: case %q %v", r.Match, v, c.validate())
		case !slices.Contains(Categories, c.Category):
			err = fmt.Errorf("taxonomy rule %q: case %q: unknown category %q", r.Match, v, c.Category)
		case !slices.Contains(Classes, c.Class):
			err = fmt.Errorf("taxonomy rule %q: case %q: unknown class %q", r.Match, v, c.Class)
		}
		if err != nil {
			return &fieldError{".cases." + v, err}
		}
	}
	return nil
}

// A fieldError is a rule error found after decoding, with the YAML path of
// the field it is about below the rule (".by"), so that it can be reported
// at that field's line and column.
type fieldError struct {
	field string
	err   error
}

func (e *fieldError) Error() string { return e.err.Error() }
func (e *fieldError) Unwrap() error { return e.err }

// taxonomyFile is the YAML form of a taxonomy:
//
//	profile: my-agent        # optional name, shown in reports
//	tools:
//	  - match: "mcp__myindex__*"   # exact name or glob
//	    category: code_search      # a retrieval-events category
//	    class: semantic            # semantic | file_level | edit | other
//	    mcp: true                  # optional
//	    shell: false               # optional: arguments hold a shell command
//	  - match: str_replace_editor  # classified per call:
//	    by: command                # the argument whose value decides
//	    category: file_write       # when it is missing or not listed
//	    class: edit
//	    cases:
//	      view: {category: file_read, class: file_level}
type taxonomyFile struct {
	Profile string `yaml:"profile"`
	Tools   []Rule `yaml:"tools"`
}

// ParseTaxonomy parses a taxonomy file. Unknown keys, unknown categories and
// classes, bad globs and incomplete per-call rules are errors naming
// file:line:col.
func ParseTaxonomy(name string, data []byte) ([]Rule, error) {
	var f taxonomyFile
	if err := yamllimit.Unmarshal(name, data, &f, yamllimit.Limits{}, yaml.Strict()); err != nil {
		return nil, yamlerr.From(name, err)
	}
	if len(f.Tools) == 0 {
		return nil, &yamlerr.Error{File: name, Msg: "taxonomy has no tools: expected a `tools:` list of {match, category, class}"}
	}
	profile := f.Profile
	if profile == "" {
		profile = name
	}
	for i := range f.Tools {
		f.Tools[i].Profile = profile
		if err := f.Tools[i].validate(); err != nil {
			var field string
			if fe, ok := err.(*fieldError); ok {
				field = fe.field
			}
			if node := ruleNode(data, i, field); node != nil {
				return nil, yamlerr.At(name, node, "tools[%d]: %v", i, err)
			}
			return nil, &yamlerr.Error{File: name, Msg: fmt.Sprintf("tools[%d]: %v", i, err)}
		}
	}
	return f.Tools, nil
}

// ruleNode finds the YAML node of the i-th rule, or of a field below it
// (".by"), so that an error found after decoding still names its line and
// column. Without the field, or when the field's path cannot be followed, it
// returns the rule's node.
func ruleNode(data []byte, i int, field string) ast.Node {
	parsed, err := yamllimit.Parse("", data, yamllimit.Limits{})
	if err != nil {
		return nil
	}
	file := parsed.File
	find := func(path string) ast.Node {
		p, err := yaml.PathString(path)
		if err != nil {
			return nil
		}
		node, err := p.FilterFile(file)
		if err != nil {
			return nil
		}
		return node
	}
	rule := fmt.Sprintf("$.tools[%d]", i)
	if field != "" {
		if node := find(rule + field); node != nil {
			return node
		}
	}
	return find(rule)
}

// UnmarshalYAML checks the category while decoding, so that a bad value is
// reported at its line and column.
func (c *Category) UnmarshalYAML(node ast.Node) error {
	s, err := scalarString(node)
	if err == nil && !slices.Contains(Categories, Category(s)) {
		err = fmt.Errorf("unknown category %q (expected one of %s)", s, joinQuoted(Categories))
	}
	if err != nil {
		return yamlerr.At("", node, "%v", err)
	}
	*c = Category(s)
	return nil
}

// UnmarshalYAML checks the class while decoding.
func (c *Class) UnmarshalYAML(node ast.Node) error {
	s, err := scalarString(node)
	if err == nil && !slices.Contains(Classes, Class(s)) {
		err = fmt.Errorf("unknown class %q (expected one of %s)", s, joinQuoted(Classes))
	}
	if err != nil {
		return yamlerr.At("", node, "%v", err)
	}
	*c = Class(s)
	return nil
}

func scalarString(node ast.Node) (string, error) {
	sn, ok := node.(ast.ScalarNode)
	if !ok {
		return "", fmt.Errorf("expected a string, found %s", node.Type())
	}
	s, ok := sn.GetValue().(string)
	if !ok {
		return "", fmt.Errorf("expected a string, found %v", sn.GetValue())
	}
	return s, nil
}

func joinQuoted[T ~string](vals []T) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = string(v)
	}
	return strings.Join(parts, ", ")
}
