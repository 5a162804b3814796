// Package yamllimit parses YAML with bounds on what a document can make its
// reader do. Every YAML input of the project (scenario files, ground-truth
// files, which JSON is read as, benchmark files) goes through it, so that a
// small hostile or careless file is a clear error naming file:line:col
// instead of a stack overflow, an exponential walk or gigabytes of memory.
//
// Three things are bounded; the size of the input is bounded where the file
// is opened, not here:
//
//   - Tokens. A document of more than [Limits.MaxTokens] tokens is refused
//     before the parser runs. goccy/go-yaml holds every token of a
//     document, and then every node, at a few hundred bytes each, so a
//     10 MB flow list of five million one-character items would take
//     gigabytes. Tokens are counted from the bytes, as a bound the
//     scanner's own count never exceeds: each run of letters, digits and
//     "_-./" counts one, and every other character outside blanks one, so
//     a path counts one and a quoted sentence a token a word. The scanner's
//     tokens are counted again as they come.
//   - Nesting depth. Collections nested deeper than [Limits.MaxDepth] (flow
//     "[[[…]]]" and block "- - - …" alike) are refused before the parser
//     runs: goccy/go-yaml's parser keeps a path per level, so its memory
//     grows with the square of the depth.
//   - Alias expansion. An alias stands for a copy of its anchor's node, and
//     a merge key ("<<: *base") for a copy of its mapping; a decoder that
//     walks the expanded tree does that work each time. Aliases whose
//     expansion would add more than [Limits.MaxAliasNodes] nodes are
//     refused (chained anchors double the tree at each link), and so is an
//     alias inside its own anchor ("- &a {<<: *a}"), which expands forever.
//     Both are counted on the parsed tree with each anchor's size computed
//     once, so the check itself is linear.
//
// An alias names the latest anchor of that name before it, as YAML says.
// Decoders differ in how they look anchors up (goccy/go-yaml's struct
// decoder takes the last anchor of the whole document), so an anchor name
// defined twice, and an alias before its anchor, are refused as well: with
// them the expansion a decoder performs could differ from the one checked.
package yamllimit

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/scanner"
	"github.com/goccy/go-yaml/token"

	"github.com/agentretrieval/agentretrieval/internal/yamlerr"
)

// Defaults of Limits. Real scenario and ground-truth files nest a handful of
// levels and use anchors, if at all, to share a few keys; the defaults are
// far above that and far below what costs a reader noticeable time or memory
// (a thousand levels parse in a few MB). A configuration file (a scenario,
// a taxonomy) holds hundreds of tokens. goccy/go-yaml takes 400 to 800
// bytes of memory a token (measured with lists of short and of 100-byte
// paths), so DefaultMaxTokens bounds parsing to about 80 MB whatever the
// file. Ground truth read through the parser (graded entries, symbols,
// chunks, task files) takes GroundTruthMaxTokens, the same bound; a
// plain list of paths, the form a whole repository's files take, is read
// by package groundtruth without the YAML parser, in YAML or JSON, within
// eight times the file.
const (
	DefaultMaxDepth      = 1000
	DefaultMaxAliasNodes = 1_000_000
	DefaultMaxTokens     = 100_000
	GroundTruthMaxTokens = 100_000
)

// ErrTooManyTokens is the cause of the error for a document of more than
// Limits.MaxTokens tokens, for errors.Is.
var ErrTooManyTokens = errors.New("too many YAML tokens")

// Limits bound a YAML document. A zero field takes its default.
type Limits struct {
	// MaxDepth is the deepest nesting of collections allowed.
	MaxDepth int
	// MaxAliasNodes is the most nodes that expanding every alias and merge
	// key may add to the document as written.
	MaxAliasNodes int
	// MaxTokens is the most tokens the document may hold.
	MaxTokens int
}

func (l Limits) withDefaults() Limits {
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	if l.MaxAliasNodes <= 0 {
		l.MaxAliasNodes = DefaultMaxAliasNodes
	}
	if l.MaxTokens <= 0 {
		l.MaxTokens = DefaultMaxTokens
	}
	return l
}

// A File is a parsed YAML file within its limits.
type File struct {
	*ast.File
	anchors map[*ast.AliasNode]ast.Node
}

// Target returns the node an alias stands for (the value of its anchor),
// or nil when the alias names no anchor.
func (f *File) Target(a *ast.AliasNode) ast.Node {
	return f.anchors[a]
}

// Parse parses data, refusing documents beyond lim (see the package
// documentation). A UTF-8 byte-order mark at the start of data is skipped,
// as editors on Windows write one. Errors are *yamlerr.Error naming file
// and, where the problem has one, its line and column.
func Parse(file string, data []byte, lim Limits, opts ...parser.Option) (*File, error) {
	lim = lim.withDefaults()
	data = TrimBOM(data)
	if line, col, ok := prescanTokens(data, lim.MaxTokens); !ok {
		return nil, tokensError(&yamlerr.Error{File: file, Line: line, Col: col}, lim.MaxTokens)
	}
	if line, col, ok := prescanDepth(data, lim.MaxDepth); !ok {
		return nil, &yamlerr.Error{File: file, Line: line, Col: col, Msg: depthMessage(lim.MaxDepth)}
	}
	tokens, err := tokenize(file, data, lim)
	if err != nil {
		return nil, err
	}
	f, err := parser.Parse(tokens, 0, opts...)
	if err != nil {
		return nil, yamlerr.From(file, err)
	}
	pf := &File{File: f, anchors: map[*ast.AliasNode]ast.Node{}}
	if err := pf.checkAliases(file, lim.MaxAliasNodes); err != nil {
		return nil, err
	}
	return pf, nil
}

// Unmarshal decodes the first document of data into v, as
// yaml.UnmarshalWithOptions does, after Parse has checked it against lim.
// Duplicate keys are errors. Errors name file:line:col.
func Unmarshal(file string, data []byte, v any, lim Limits, opts ...yaml.DecodeOption) error {
	f, err := Parse(file, data, lim)
	if err != nil {
		return err
	}
	for _, doc := range f.Docs {
		if doc == nil || doc.Body == nil {
			continue
		}
		return decode(file, doc.Body, v, opts)
	}
	return nil
}

// decode decodes body into v. goccy/go-yaml's decoder panics on a tagged
// value where it expects a sequence ("files: !x 5"); the panic becomes an
// error at the first tag of the document, or at the file when there is
// none.
func decode(file string, body ast.Node, v any, opts []yaml.DecodeOption) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if tag := firstTag(body); tag != nil {
				err = yamlerr.At(file, tag, "tag %s: this value cannot be decoded with a tag; remove it", tag.Start.Value)
				return
			}
			err = &yamlerr.Error{File: file, Msg: fmt.Sprintf("the YAML decoder failed: %v", r)}
		}
	}()
	return yamlerr.From(file, yaml.NewDecoder(bytes.NewReader(nil), opts...).DecodeFromNode(body, v))
}

// firstTag returns the first tag node under n in document order.
func firstTag(n ast.Node) *ast.TagNode {
	var found *ast.TagNode
	ast.Walk(visitFunc(func(n ast.Node) bool {
		if t, ok := n.(*ast.TagNode); ok && found == nil {
			found = t
		}
		return found == nil
	}), n)
	return found
}

type visitFunc func(ast.Node) bool

func (f visitFunc) Visit(n ast.Node) ast.Visitor {
	if f(n) {
		return f
	}
	return nil
}

// tokenize splits data into tokens, as lexer.Tokenize does, and bounds the
// nesting of collections as the tokens come, so that a deep document is
// refused before it is all in memory. Flow collections are counted by
// their brackets. Block collections are counted by indentation: each entry
// ("-", "?" or a key before ":") at a column right of the entries it is
// under opens a level. A sequence written at its parent key's column is not
// counted, so the count may fall short of the real depth by up to half; the
// limit is generous for that reason.
func tokenize(file string, data []byte, lim Limits) (token.Tokens, error) {
	var s scanner.Scanner
	s.Init(string(data))
	var tokens token.Tokens
	var block []int // columns of the open block levels
	flow := 0
	var prev *token.Token
	for {
		sub, err := s.Scan()
		if err == io.EOF {
			return tokens, nil
		}
		if len(tokens)+len(sub) > lim.MaxTokens {
			return nil, tokensError(yamlerr.AtToken(file, sub[lim.MaxTokens-len(tokens)], ""), lim.MaxTokens)
		}
		for _, tk := range sub {
			key := prev
			prev = tk
			col := 0
			switch tk.Type {
			case token.DocumentHeaderType, token.DocumentEndType:
				block, flow = block[:0], 0
				continue
			case token.SequenceStartType, token.MappingStartType:
				flow++
			case token.SequenceEndType, token.MappingEndType:
				flow = max(flow-1, 0)
				continue
			case token.SequenceEntryType, token.MappingKeyType:
				col = tk.Position.Column
			case token.MappingValueType:
				if key == nil || key.Position == nil {
					continue
				}
				col = key.Position.Column
			default:
				continue
			}
			if flow == 0 {
				for len(block) > 0 && block[len(block)-1] > col {
					block = block[:len(block)-1]
				}
				if len(block) == 0 || block[len(block)-1] < col {
					block = append(block, col)
				}
			}
			if depth := flow + len(block); depth > lim.MaxDepth {
				return nil, yamlerr.AtToken(file, tk, "%s", depthMessage(lim.MaxDepth))
			}
		}
		tokens.Add(sub...)
	}
}

// tokensError completes e, placed at the first token past the limit.
func tokensError(e *yamlerr.Error, maxTokens int) *yamlerr.Error {
	e.Msg = fmt.Sprintf("more than %d YAML tokens (a word, a path or a number counts one, and so does each bracket, comma, colon or other mark): split the file (the token limit bounds the memory parsing takes)", maxTokens)
	e.Err = ErrTooManyTokens
	return e
}

// TrimBOM returns data without a leading UTF-8 byte-order mark.
func TrimBOM(data []byte) []byte {
	return bytes.TrimPrefix(data, []byte("\ufeff"))
}

func depthMessage(maxDepth int) string {
	return fmt.Sprintf("collections nested more than %d deep: flatten the document (the nesting limit bounds the memory parsing takes)", maxDepth)
}

// checkAliases resolves every alias of f to its anchor and bounds what
// expanding them adds.
func (f *File) checkAliases(file string, maxNodes int) error {
	c := &aliasCheck{
		file:     file,
		max:      int64(maxNodes),
		byName:   map[string]*ast.AnchorNode{},
		size:     map[*ast.AnchorNode]int64{},
		targets:  f.anchors,
		expanded: map[*ast.AnchorNode]bool{},
	}
	for _, doc := range f.Docs {
		// Anchors are local to a document.
		clear(c.byName)
		if doc != nil {
			if _, err := c.walk(doc.Body); err != nil {
				return err
			}
		}
	}
	return nil
}

type aliasCheck struct {
	file string
	max  int64
	// added is how many nodes the aliases seen so far expand to.
	added  int64
	byName map[string]*ast.AnchorNode
	// size is the expanded size of each anchor's value, once walked.
	size    map[*ast.AnchorNode]int64
	targets map[*ast.AliasNode]ast.Node
	// expanded marks the anchors being walked: an alias to one of them is
	// inside its own anchor.
	expanded map[*ast.AnchorNode]bool
}

// walk returns the number of nodes n stands for with its aliases expanded.
func (c *aliasCheck) walk(n ast.Node) (int64, error) {
	switch n := n.(type) {
	case nil:
		return 0, nil
	case *ast.AnchorNode:
		name := anchorName(n.Name)
		if prev, dup := c.byName[name]; dup {
			line := 0
			if tk := prev.GetToken(); tk != nil && tk.Position != nil {
				line = tk.Position.Line
			}
			return 0, yamlerr.At(c.file, n, "anchor &%s is defined twice (first at line %d): give each anchor its own name", name, line)
		}
		c.byName[name] = n
		c.expanded[n] = true
		s, err := c.walk(n.Value)
		delete(c.expanded, n)
		c.size[n] = s
		return s + 1, err
	case *ast.AliasNode:
		name := anchorName(n.Value)
		a, ok := c.byName[name]
		if !ok {
			return 0, yamlerr.At(c.file, n, "alias *%s: no anchor &%s before it", name, name)
		}
		if c.expanded[a] {
			return 0, yamlerr.At(c.file, n, "alias *%s is inside its own anchor, so it would expand forever", name)
		}
		c.targets[n] = a.Value
		s := c.size[a]
		c.added += s
		if c.added > c.max {
			return 0, yamlerr.At(c.file, n, "aliases expand to more than %d nodes: write the values out or share less through anchors (the limit bounds the work decoding takes)", c.max)
		}
		return s, nil
	case *ast.TagNode:
		s, err := c.walk(n.Value)
		return s + 1, err
	case *ast.MappingNode:
		total := int64(1)
		for _, v := range n.Values {
			s, err := c.walk(v)
			if err != nil {
				return 0, err
			}
			total += s
		}
		return total, nil
	case *ast.MappingValueNode:
		k, err := c.walk(n.Key)
		if err != nil {
			return 0, err
		}
		v, err := c.walk(n.Value)
		return 1 + k + v, err
	case *ast.MappingKeyNode:
		s, err := c.walk(n.Value)
		return s + 1, err
	case *ast.SequenceNode:
		total := int64(1)
		for _, v := range n.Values {
			s, err := c.walk(v)
			if err != nil {
				return 0, err
			}
			total += s
		}
		return total, nil
	}
	return 1, nil
}

func anchorName(n ast.Node) string {
	if n == nil {
		return ""
	}
	if tk := n.GetToken(); tk != nil {
		return tk.Value
	}
	return fmt.Sprint(n)
}
