package yamllimit

import (
	"testing"
)

// FuzzPrescan checks that the bound on tokens taken from the bytes holds:
// the scanner never makes more tokens of a document than prescanTokens
// counts, so the limit applied before the parser holds any token is one
// the parser cannot exceed. Positions it reports lie in the document.
func FuzzPrescan(f *testing.F) {
	for _, seed := range []string{
		"a: [1, 2, {b: c}]\n",
		"files:\n  - a.go\n  - {path: b.go, grade: 2}\n# note\n",
		"- - - x\n? k\n: v\n",
		"a: |\n  text [ {\n  more\nb: 'it''s' # c\n",
		"\"multi\n line\": &x !t [*x, \"q\\\"\"]\n",
		"%YAML 1.2\n---\na: b\n...\n",
		"\ufeffname: x\n",
		`{"a":{"b":[1,"x"]}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<12 {
			return
		}
		const unbounded = 1 << 30
		line, col, ok := prescanTokens(data, 100)
		if !ok {
			lines := 1
			for _, c := range data {
				if c == '\n' {
					lines++
				}
			}
			if line < 1 || line > lines || col < 1 || col > len(data)+1 {
				t.Fatalf("prescan placed a problem at %d:%d, outside the document", line, col)
			}
		}
		tokens, err := tokenize("f.yaml", data, Limits{MaxDepth: unbounded, MaxTokens: unbounded})
		if err != nil || len(tokens) == 0 {
			return
		}
		if _, _, ok := prescanTokens(data, len(tokens)-1); ok {
			t.Fatalf("the scanner made %d tokens; the prescan estimated fewer", len(tokens))
		}
	})
}
