package lazyre

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewCompilesOnceOnFirstUse(t *testing.T) {
	re := New(`^a(b+)$`)
	first := re()
	assert.Same(t, first, re(), "compiled once")
	assert.Equal(t, []string{"abb", "bb"}, first.FindStringSubmatch("abb"))
	assert.False(t, first.MatchString("ac"))
}

func TestABadExpressionPanicsOnlyWhenUsed(t *testing.T) {
	re := New(`a(`)
	assert.PanicsWithValue(t, "regexp: Compile(`a(`): error parsing regexp: missing closing ): `a(`", func() { re() })
}

// No package of the module compiles a regular expression in a package
// variable's initializer, where every run of the binary would compile it.
func TestNoPackageVariableCompilesARegexp(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.VAR {
				continue
			}
			ast.Inspect(gen, func(n ast.Node) bool {
				if _, ok := n.(*ast.FuncLit); ok {
					return false // runs when called, not at start
				}
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
					if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "regexp" && strings.Contains(sel.Sel.Name, "Compile") {
						found = append(found, fset.Position(call.Pos()).String())
					}
				}
				return true
			})
		}
		return nil
	})
	require.NoError(t, err)
	assert.Empty(t, found, "compiled when the program starts; use lazyre.New")
}
