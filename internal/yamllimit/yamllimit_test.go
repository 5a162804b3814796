package yamllimit

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/internal/yamlerr"
)

// chainedMerges writes n anchors, each merging the one before it twice, so
// that the last one expands to 2^n copies of the first.
func chainedMerges(n int) string {
	var b strings.Builder
	b.WriteString("l0: &l0 {a: 1, b: 2}\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "l%d: &l%d {<<: [*l%d, *l%d]}\n", i, i, i-1, i-1)
	}
	return b.String()
}

func TestDocumentsBeyondTheLimitsAreErrorsAtTheirPlace(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		doc       string
		lim       Limits
		line, col int
		msg       string
	}{
		{
			name: "a mapping merged into itself is refused",
			doc:  "files:\n  - &a\n    path: x\n    <<: *a\n",
			line: 4, col: 9, msg: "alias *a is inside its own anchor",
		},
		{
			name: "a sequence holding itself is refused",
			doc:  "a: &s [1, *s]\n",
			line: 1, col: 11, msg: "inside its own anchor",
		},
		{
			name: "forty chained merge keys are refused without being expanded",
			doc:  chainedMerges(40),
			line: 17, col: 17, msg: "aliases expand to more than 1000000 nodes",
		},
		{
			name: "aliases adding more nodes than the limit are refused",
			doc:  "a: &a [1, 2, 3]\nb: [*a, *a, *a]\n",
			lim:  Limits{MaxAliasNodes: 10},
			line: 2, col: 13, msg: "more than 10 nodes",
		},
		{
			name: "flow collections nested past the limit are refused",
			doc:  "tags: " + strings.Repeat("[", 30000) + strings.Repeat("]", 30000) + "\n",
			line: 1, col: 1006, msg: "nested more than 1000 deep",
		},
		{
			name: "block sequences nested past the limit are refused",
			doc:  "tags:\n" + strings.Repeat("- ", 5) + "x\n",
			lim:  Limits{MaxDepth: 4},
			line: 2, col: 9, msg: "nested more than 4 deep",
		},
		{
			name: "block mappings nested past the limit are refused",
			doc:  "a:\n b:\n  c:\n   d: 1\n",
			lim:  Limits{MaxDepth: 3},
			line: 4, col: 4, msg: "nested more than 3 deep",
		},
		{
			name: "a flow list past the token limit is refused at its first token over",
			doc:  "x: [" + strings.Repeat("1,", 100) + "1]\n",
			lim:  Limits{MaxTokens: 11},
			// x : [ 1 , 1 , 1 , 1 , 1: the twelfth token is the fifth 1.
			line: 1, col: 13, msg: "more than 11 YAML tokens",
		},
		{
			name: "a block list past the token limit is refused",
			doc:  "files:\n" + strings.Repeat("- a.go\n", 100),
			lim:  Limits{MaxTokens: 10},
			// files : then "-" and "a.go" on each line: the 11th is line 6's "-".
			line: 6, col: 1, msg: "more than 10 YAML tokens",
		},
		{
			name: "a comment counts a token for its # and one a word",
			doc:  strings.Repeat("# note\n", 20) + "a: 1\n",
			lim:  Limits{MaxTokens: 5},
			line: 3, col: 3, msg: "more than 5 YAML tokens",
		},
		{
			name: "an anchor name defined twice is refused",
			doc:  "a: &x 1\nb: &x 2\nc: *x\n",
			line: 2, col: 4, msg: "anchor &x is defined twice (first at line 1)",
		},
		{
			name: "an alias before its anchor is refused",
			doc:  "a: *x\nb: &x 2\n",
			line: 1, col: 4, msg: "alias *x: no anchor &x before it",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse("f.yaml", []byte(tt.doc), tt.lim)
			var ye *yamlerr.Error
			require.True(t, errors.As(err, &ye), "got %v", err)
			assert.Equal(t, "f.yaml", ye.File)
			assert.Equal(t, []int{tt.line, tt.col}, []int{ye.Line, ye.Col}, "%v", err)
			assert.Contains(t, ye.Msg, tt.msg)
		})
	}
}

func TestDocumentsWithinTheLimitsParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		doc  string
		lim  Limits
	}{
		{"anchors shared a few times", "base: &b {grade: 2}\nfiles:\n  - {<<: *b, path: a.go}\n  - {<<: *b, path: b.go}\n", Limits{}},
		{"nesting exactly at the limit", "tags: [[[1]]]\n", Limits{MaxDepth: 4}},
		{"block nesting exactly at the limit", "a:\n b:\n  c: 1\n", Limits{MaxDepth: 3}},
		{"ten chained merge keys", chainedMerges(10), Limits{}},
		{"tokens exactly at the limit", "x: [1, 2]\n# c\n", Limits{MaxTokens: 9}},
		{"a path counts one token", "- pkg/auth/token-v2_test.go\n", Limits{MaxTokens: 2}},
		{"a byte-order mark before the first key", "\ufeffname: x\n", Limits{MaxTokens: 3}},
		{"an anchor reused in a second document", "a: &x 1\n---\nb: &x 2\nc: *x\n", Limits{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse("f.yaml", []byte(tt.doc), tt.lim)
			assert.NoError(t, err)
		})
	}
}

func TestAliasesResolveToTheirAnchorsValue(t *testing.T) {
	t.Parallel()
	f, err := Parse("f.yaml", []byte("a: &x [1, 2]\nb: *x\n"), Limits{})
	require.NoError(t, err)
	var targets []string
	for a, n := range f.anchors {
		targets = append(targets, a.String()+" -> "+n.String())
	}
	assert.Equal(t, []string{"*x -> [1, 2]"}, targets)
}

func TestUnmarshalDecodesTheFirstDocumentLikeTheLibrary(t *testing.T) {
	t.Parallel()
	type doc struct {
		Files []string `yaml:"files"`
		Grade int      `yaml:"grade"`
	}
	for _, src := range []string{
		"files: [a, b]\ngrade: 2\n",
		"base: &b [a, b]\n",
		"",
		"files: [a]\n---\nfiles: [b]\n",
	} {
		var got, want doc
		errGot := Unmarshal("f.yaml", []byte(src), &got, Limits{})
		errWant := yaml.Unmarshal([]byte(src), &want)
		assert.Equal(t, errWant == nil, errGot == nil, "%q: %v / %v", src, errGot, errWant)
		assert.Equal(t, want, got, "%q", src)
	}
	var v struct {
		Files []string `yaml:"files"`
	}
	err := Unmarshal("f.yaml", []byte("files: [a]\nfiles: [b]\n"), &v, Limits{}, yaml.Strict())
	assert.ErrorContains(t, err, "f.yaml:2:1:", "duplicate keys are errors")
	err = Unmarshal("f.yaml", []byte("fils: [a]\n"), &v, Limits{}, yaml.Strict())
	assert.ErrorContains(t, err, `f.yaml:1:1: unknown key "fils"`, "options reach the decoder")
}

func TestBracketsThatOpenNoCollectionAreNotCounted(t *testing.T) {
	t.Parallel()
	docs := map[string]string{
		"in plain scalars":         "a: x[[[[\nb: re{{{{\nc: x [[[[ y\n",
		"in quoted scalars":        "a: \"[[[[\"\nb: '{{{{ it''s'\nc: [\"[[[[\", '{{{{']\n",
		"in comments":              "a: 1 # [[[[\n# {{{{\nb: 2\n",
		"in a multi-line string":   "a: \"x\n  [[[[\n  y\"\n",
		"in a block scalar":        "a: |\n  [[ x ]]\n  {{ y }}\nb: 2\n",
		"balanced on one line":     "a: [[1], [2], {b: [3]}]\n",
		"after anchors and tags":   "a: &x [1]\nb: !!seq [2]\n",
		"JSON with its colons":     `{"a":{"b":[1]}}`,
		"flow spread across lines": "a: [\n  [1,\n   2],\n  3]\n",
	}
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse("f.yaml", []byte(doc), Limits{MaxDepth: 4})
			assert.NoError(t, err)
		})
	}
}

// A document nested a million deep is refused from its bytes: the parser's
// scanner would hold every token of the line (hundreds of megabytes) before
// the token check saw one.
func TestAMillionLevelsAreRefusedBeforeTokenizing(t *testing.T) {
	t.Parallel()
	for name, doc := range map[string]string{
		"flow":                     strings.Repeat("[", 1_000_000) + strings.Repeat("]", 1_000_000),
		"flow with anchors":        strings.Repeat("&a [", 100_000),
		"block entries on a line":  "x:\n" + strings.Repeat("- ", 1_000_000) + "y\n",
		"flow after a mapping key": "tags: " + strings.Repeat("{a: ", 100_000),
	} {
		line, col, ok := prescanDepth([]byte(doc), DefaultMaxDepth)
		assert.False(t, ok, name)
		assert.Positive(t, line, name)
		assert.Positive(t, col, name)
	}
}

// A 10 MB flow list of five million items is refused from its bytes, before
// the parser holds its tokens (which took 23 s and 4 GB).
func TestFiveMillionItemsAreRefusedBeforeTokenizing(t *testing.T) {
	t.Parallel()
	doc := "name: x\nx: [" + strings.Repeat("1,", 5_000_000) + "1]\n"
	_, err := Parse("s.yaml", []byte(doc), Limits{})
	var ye *yamlerr.Error
	require.True(t, errors.As(err, &ye), "got %v", err)
	assert.ErrorIs(t, err, ErrTooManyTokens)
	// name : x x : [ are six tokens; then "1" and "," alternate from
	// column 5, so token 100,001 is a "1" at column 5 + 99,994.
	assert.ErrorContains(t, err, "s.yaml:2:99999: more than 100000 YAML tokens")
}

// The exact count on the tokens refuses what the estimate let through.
func TestTheTokenCountIsExactOnTheTokens(t *testing.T) {
	t.Parallel()
	_, err := tokenize("f.yaml", []byte("a: [1, 2]\n"), Limits{MaxDepth: 10, MaxTokens: 4})
	assert.ErrorIs(t, err, ErrTooManyTokens)
	assert.ErrorContains(t, err, "f.yaml:1:6: more than 4 YAML tokens", "the fifth token is the comma")
	tokens, err := tokenize("f.yaml", []byte("a: [1, 2]\n"), Limits{MaxDepth: 10, MaxTokens: 7})
	require.NoError(t, err)
	assert.Len(t, tokens, 7)
}
