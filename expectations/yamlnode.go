package expectations

import (
	"fmt"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"

	"github.com/agentretrieval/agentretrieval/internal/yamlerr"
	"github.com/agentretrieval/agentretrieval/internal/yamllimit"
)

// The loader walks goccy/go-yaml's AST itself instead of decoding into
// structs: the decoder stops at the first problem, and a scenario author
// should see every problem of a file in one run.

// nodeErrs collects the problems of one file.
type nodeErrs struct {
	file string
	errs Errors
	// yaml is the parsed file, which resolves aliases.
	yaml *yamllimit.File
	// merging are the mappings whose merge keys are being expanded, so
	// that a mapping merged into itself is reported, not followed.
	merging map[ast.Node]bool
}

func (c *nodeErrs) at(n ast.Node, format string, args ...any) {
	e := yamlerr.At(c.file, n, format, args...)
	if n != nil {
		e.Line, e.Col = nodeLineCol(n)
	}
	c.errs = append(c.errs, e)
}

// nodeLineCol is where a node starts as a reader sees it. goccy positions
// a block mapping at the ':' of its first key; an author looks for the key.
func nodeLineCol(n ast.Node) (int, int) {
	switch m := n.(type) {
	case *ast.MappingNode:
		if !m.IsFlowStyle && len(m.Values) > 0 {
			return nodeLineCol(m.Values[0])
		}
	case *ast.MappingValueNode:
		return nodeLineCol(m.Key)
	case *ast.AnchorNode:
		if m.Start != nil {
			return tokenLineCol(m.Start)
		}
	}
	tk := n.GetToken()
	return tokenLineCol(tk)
}

func tokenLineCol(tk *token.Token) (int, int) {
	if tk == nil || tk.Position == nil {
		return 0, 0
	}
	return tk.Position.Line, tk.Position.Column
}

// resolve strips anchors, tags and comments from a node and follows
// aliases, so that the checks see the value an author meant. The parser
// (package yamllimit) has refused aliases inside their own anchors and
// bounded what aliases expand to; the loop bound is a second guard.
func (c *nodeErrs) resolve(n ast.Node) ast.Node {
	for range 64 {
		switch v := n.(type) {
		case *ast.AnchorNode:
			n = v.Value
		case *ast.TagNode:
			n = v.Value
		case *ast.AliasNode:
			var target ast.Node
			if c.yaml != nil {
				target = c.yaml.Target(v)
			}
			if target == nil {
				return n
			}
			n = target
		case *ast.CommentGroupNode:
			return nil
		default:
			return n
		}
	}
	return n
}

// entry is one key of a mapping.
type entry struct {
	key     string
	keyNode ast.Node
	value   ast.Node
}

// entries returns the keys of a mapping node in order, with merge keys
// ("<<: *base") expanded: keys written in the mapping override merged ones.
// ok is false when n is not a mapping.
func (c *nodeErrs) entries(n ast.Node) (out []entry, ok bool) {
	m := c.resolve(n)
	var values []*ast.MappingValueNode
	switch m := m.(type) {
	case *ast.MappingNode:
		values = m.Values
	case *ast.MappingValueNode:
		values = []*ast.MappingValueNode{m}
	default:
		return nil, false
	}
	if c.merging == nil {
		c.merging = map[ast.Node]bool{}
	}
	c.merging[m] = true
	defer delete(c.merging, m)
	var merged []entry
	for _, mv := range values {
		if _, isMerge := mv.Key.(*ast.MergeKeyNode); isMerge {
			if c.merging[c.resolve(mv.Value)] {
				c.at(mv.Value, "<<: the mapping is merged into itself")
			} else if sub, ok := c.entries(mv.Value); ok {
				merged = append(merged, sub...)
			} else {
				c.at(mv.Value, "<<: a merge key takes an alias of a mapping")
			}
			continue
		}
		out = append(out, entry{key: keyText(mv.Key), keyNode: mv.Key, value: mv.Value})
	}
	if len(merged) == 0 {
		return out, true
	}
	written := make(map[string]bool, len(out))
	for _, e := range out {
		written[e.key] = true
	}
	for _, e := range merged {
		if !written[e.key] {
			written[e.key] = true
			out = append(out, e)
		}
	}
	return out, true
}

func hasKey(es []entry, key string) bool {
	for _, e := range es {
		if e.key == key {
			return true
		}
	}
	return false
}

func keyText(k ast.MapKeyNode) string {
	if k == nil {
		return ""
	}
	if s, ok := k.(*ast.StringNode); ok {
		return s.Value
	}
	if tk := k.GetToken(); tk != nil {
		return tk.Value
	}
	return k.String()
}

// uniqueEntries reports keys given twice and returns the entries with the
// first of each.
func (c *nodeErrs) uniqueEntries(es []entry) []entry {
	seen := map[string]ast.Node{}
	out := es[:0:0]
	for _, e := range es {
		if first, dup := seen[e.key]; dup {
			line, _ := nodeLineCol(first)
			c.at(e.keyNode, "%s is given twice (first at line %d)", e.key, line)
			continue
		}
		seen[e.key] = e.keyNode
		out = append(out, e)
	}
	return out
}

// sequence returns the items of a sequence node; ok is false for anything
// else.
func (c *nodeErrs) sequence(n ast.Node) ([]ast.Node, bool) {
	s, ok := c.resolve(n).(*ast.SequenceNode)
	if !ok {
		return nil, false
	}
	return s.Values, true
}

// scalarText returns the text of a scalar as written (a number keeps its
// spelling: "1.40" stays "1.40"); ok is false for a mapping, a sequence or
// null.
func (c *nodeErrs) scalarText(n ast.Node) (string, bool) {
	switch v := c.resolve(n).(type) {
	case *ast.StringNode:
		return v.Value, true
	case *ast.LiteralNode:
		if v.Value != nil {
			return v.Value.Value, true
		}
		return "", true
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode:
		return v.GetToken().Value, true
	}
	return "", false
}

// kindOf names what a node holds, for messages.
func (c *nodeErrs) kindOf(n ast.Node) string {
	switch v := c.resolve(n).(type) {
	case nil, *ast.NullNode:
		return "nothing"
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a list"
	case *ast.StringNode, *ast.LiteralNode:
		return fmt.Sprintf("the string %q", strings.TrimSpace(mustText(c, v)))
	case *ast.IntegerNode, *ast.FloatNode:
		return "the number " + v.GetToken().Value
	case *ast.BoolNode:
		return v.GetToken().Value
	}
	return "a " + strings.ToLower(n.Type().String())
}

func mustText(c *nodeErrs, n ast.Node) string {
	s, _ := c.scalarText(n)
	return s
}

func isNull(n ast.Node) bool {
	if n == nil {
		return true
	}
	_, ok := n.(*ast.NullNode)
	return ok
}
