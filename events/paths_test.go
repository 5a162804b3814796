package events

import (
	"path"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPathNormalizerFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		n      PathNormalizer
		in     string
		origin PathOrigin
		want   string
		ok     bool
	}{
		{"an absolute path under the working directory becomes relative to it", PathNormalizer{CWD: "/root"}, "/root/data/x.txt", FromArgument, "data/x.txt", true},
		{"the working directory may end in a slash", PathNormalizer{CWD: "/root/"}, "/root/data/x.txt", FromArgument, "data/x.txt", true},
		{"a workspace prefix is stripped", PathNormalizer{}, "/testbed/src/a.py", FromArgument, "src/a.py", true},
		{"every default prefix is stripped", PathNormalizer{}, "/tmp/agent_work/pkg/a.go", FromArgument, "pkg/a.go", true},
		{"the working directory wins over a prefix it lies under", PathNormalizer{CWD: "/workspace/repo"}, "/workspace/repo/a.go", FromArgument, "a.go", true},
		{"a path outside a known working directory stays absolute, even under a prefix", PathNormalizer{CWD: "/root"}, "/app/main.py", FromArgument, "/app/main.py", true},
		{"a bare prefix directory is not a file", PathNormalizer{}, "/testbed", FromArgument, "", false},
		{"a prefix directory with a slash is not a file", PathNormalizer{}, "/testbed/", FromArgument, "", false},
		{"the working directory itself is not a file", PathNormalizer{CWD: "/root"}, "/root", FromArgument, "", false},
		{"custom prefixes replace the defaults", PathNormalizer{Prefixes: []string{"/src/"}}, "/testbed/a.py", FromArgument, "/testbed/a.py", true},
		{"a custom prefix without slashes still matches whole elements", PathNormalizer{Prefixes: []string{"repo"}}, "/repo/a.py", FromArgument, "a.py", true},
		{"a path outside the workspace stays absolute", PathNormalizer{CWD: "/root"}, "/etc/hosts", FromArgument, "/etc/hosts", true},
		{"a prefix must match whole elements", PathNormalizer{}, "/testbedx/a.py", FromArgument, "/testbedx/a.py", true},
		{"a real top-level folder named a survives an argument", PathNormalizer{}, "a/b.go", FromArgument, "a/b.go", true},
		{"a real top-level folder named b survives text", PathNormalizer{}, "b/c.go", FromText, "b/c.go", true},
		{"a diff path loses a/", PathNormalizer{}, "a/src/x.go", FromDiff, "src/x.go", true},
		{"a diff path loses b/", PathNormalizer{}, "b/src/x.go", FromDiff, "src/x.go", true},
		{"a diff path of a real folder a keeps it after the prefix", PathNormalizer{}, "b/a/b.go", FromDiff, "a/b.go", true},
		{"an absolute diff path is normalized like any other", PathNormalizer{}, "/workspace/game.py", FromDiff, "game.py", true},
		{"/dev/null in a diff is not a file", PathNormalizer{}, "/dev/null", FromDiff, "", false},
		{"an apostrophe inside a name is part of it", PathNormalizer{}, "docs/it's.md", FromArgument, "docs/it's.md", true},
		{"an apostrophe inside a name found in text is part of it", PathNormalizer{}, "docs/it's.md", FromText, "docs/it's.md", true},
		{"a quote at the start is not part of a path", PathNormalizer{}, "'a.md", FromText, "", false},
		{"a double quote inside a name an argument gives is part of it", PathNormalizer{}, `/testbed/x"y.go`, FromArgument, `x"y.go`, true},
		{"a double quote inside a name found in text is a quote", PathNormalizer{}, `x"y.go`, FromText, "", false},
		{"a double quote inside a diff path is a quote", PathNormalizer{}, `a/x"y.go`, FromDiff, "", false},
		{"a double quote at the start of an argument is a quote", PathNormalizer{}, `"a.go`, FromArgument, "", false},
		{"a double quote at the end of an argument is a quote", PathNormalizer{}, `a.go"`, FromArgument, "", false},
		{"a quote at the end is not part of a path", PathNormalizer{}, "a.md'", FromText, "", false},
		{"a leading ./ is dropped", PathNormalizer{}, "./src/a.go", FromText, "src/a.go", true},
		{"double slashes are cleaned", PathNormalizer{}, "src//a.go", FromArgument, "src/a.go", true},
		{"dot-dot elements are resolved", PathNormalizer{}, "src/x/../a.go", FromArgument, "src/a.go", true},
		{"dot-dot above an absolute workspace path is resolved first", PathNormalizer{}, "/testbed/src/../a.py", FromArgument, "a.py", true},
		{"a relative path above the working directory is resolved against it", PathNormalizer{CWD: "/testbed/src"}, "../setup.py", FromArgument, "/testbed/setup.py", true},
		{"a relative path above the working directory may leave the workspace", PathNormalizer{CWD: "/root/src"}, "../../etc/x.conf", FromArgument, "/etc/x.conf", true},
		{"a relative path above an unknown directory stays as written", PathNormalizer{}, "../x.go", FromArgument, "../x.go", true},
		{"a home path is kept as written", PathNormalizer{CWD: "/root"}, "~/.claude/settings.json", FromArgument, "~/.claude/settings.json", true},
		{"a home path is still cleaned", PathNormalizer{}, "~/x/../y.md", FromText, "~/y.md", true},
		{"a file URI loses its scheme", PathNormalizer{}, "file:///testbed/src/a.go", FromArgument, "src/a.go", true},
		{"a file URI with a host loses the host", PathNormalizer{}, "file://localhost/testbed/a.go", FromArgument, "a.go", true},
		{"a file URI is unescaped", PathNormalizer{}, "file:///testbed/my%20file.go", FromArgument, "my file.go", true},
		{"an http URL is not a file", PathNormalizer{}, "https://example.com/a.go", FromArgument, "", false},
		{"a Sourcegraph blob address keeps the repository path", PathNormalizer{}, "github.com/org/repo/-/blob/pkg/a.go", FromText, "pkg/a.go", true},
		{"a Sourcegraph blob URL drops its line anchor", PathNormalizer{}, "https://sourcegraph.com/github.com/org/repo@main/-/blob/pkg/a.go?L10-20", FromText, "pkg/a.go", true},
		{"an empty string is not a file", PathNormalizer{}, "", FromArgument, "", false},
		{"blanks are not a file", PathNormalizer{}, "   ", FromArgument, "", false},
		{"a star glob is not a file", PathNormalizer{}, "src/*.go", FromArgument, "", false},
		{"a question-mark glob is not a file", PathNormalizer{}, "src/a?.go", FromArgument, "", false},
		{"a character class glob is not a file", PathNormalizer{}, "src/[a-z].go", FromArgument, "", false},
		{"a negated character class is not a file", PathNormalizer{}, "src/[!x].go", FromText, "", false},
		{"a Next.js route folder is a real directory", PathNormalizer{}, "app/[id]/page.tsx", FromArgument, "app/[id]/page.tsx", true},
		{"a Next.js catch-all folder is a real directory", PathNormalizer{}, "app/[...slug]/page.tsx", FromText, "app/[...slug]/page.tsx", true},
		{"a grep fragment with a line number is not a file", PathNormalizer{}, "src/a.go:12", FromArgument, "", false},
		{"a git revision path is not a file", PathNormalizer{}, "HEAD:src/a.go", FromText, "", false},
		{"a colon a file address encodes is a colon", PathNormalizer{}, "file:///src/a.go%3A12", FromText, "", false},
		{"a quote a file address encodes is a quote", PathNormalizer{}, "file:///src/a%22.go", FromText, "", false},
		{"a colon first is not a drive", PathNormalizer{}, ":src/a.go", FromText, "", false},
		{"a dash is a character of a name", PathNormalizer{}, "src/a-b.go", FromText, "src/a-b.go", true},
		{"a shell variable is not a file", PathNormalizer{}, "$HOME/a.go", FromArgument, "", false},
		{"a command substitution is not a file", PathNormalizer{}, "`pwd`/a.go", FromArgument, "", false},
		{"a pipe is not a file", PathNormalizer{}, "a.go | head", FromText, "", false},
		{"a path ending in a slash is a directory", PathNormalizer{}, "src/", FromArgument, "", false},
		{"dot is not a file", PathNormalizer{}, ".", FromArgument, "", false},
		{"dot-dot is not a file", PathNormalizer{}, "..", FromArgument, "", false},
		{"a path ending in /. is a directory", PathNormalizer{}, "src/.", FromArgument, "", false},
		{"an argument without an extension is trusted", PathNormalizer{}, "bin/run", FromArgument, "bin/run", true},
		{"text without an extension is a directory", PathNormalizer{}, "src/pkg", FromText, "", false},
		{"a known extensionless name in text is a file", PathNormalizer{}, "docker/Dockerfile", FromText, "docker/Dockerfile", true},
		{"the lowercase makefile spelling is a file", PathNormalizer{}, "makefile", FromText, "makefile", true},
		{"a folder named build is not Bazel's BUILD file", PathNormalizer{}, "out/build", FromText, "", false},
		{"CODEOWNERS is a file", PathNormalizer{}, ".github/CODEOWNERS", FromText, ".github/CODEOWNERS", true},
		{"a dotfile is a file", PathNormalizer{}, ".gitignore", FromText, ".gitignore", true},
		{"a dotfile in a folder is a file", PathNormalizer{}, "config/.env", FromText, "config/.env", true},
		{"the .git directory is not a file", PathNormalizer{}, "/testbed/.git", FromText, "", false},
		{"a version-like name is not a file", PathNormalizer{}, "releases/v1.2", FromText, "", false},
		{"a name ending in a dot is not a file", PathNormalizer{}, "e.g.", FromText, "", false},
		{"a double extension is a file", PathNormalizer{}, "dist/app.tar.gz", FromText, "dist/app.tar.gz", true},
		{"a file name with a space is a file", PathNormalizer{}, "docs/My Notes.md", FromText, "docs/My Notes.md", true},
		{"case matters by default", PathNormalizer{CWD: "/Root"}, "/root/a.go", FromArgument, "/root/a.go", true},
		{"folding case matches the working directory in any case", PathNormalizer{CWD: "/Root", FoldCase: true}, "/root/a.go", FromArgument, "a.go", true},
		{"folding case keeps the path's own spelling", PathNormalizer{FoldCase: true}, "/TESTBED/Src/A.go", FromArgument, "Src/A.go", true},
		{"a sibling folder whose name extends the working directory's stays absolute", PathNormalizer{CWD: "/Root", FoldCase: true}, "/rootx/a.go", FromArgument, "/rootx/a.go", true},
		{"a path made of the working directory's name and more is outside it", PathNormalizer{CWD: "/repo"}, "/repo.go", FromArgument, "/repo.go", true},
		{"a path as long as the working directory, and not it, is outside it", PathNormalizer{CWD: "/repo"}, "/rexo", FromArgument, "/rexo", true},
		{"an unclean path is cleaned before it is made relative", PathNormalizer{CWD: "/repo"}, "/repo//src/./b/../a.go", FromText, "src/a.go", true},
		{"a glob after a file URI is decoded is not a file", PathNormalizer{}, "file:///testbed/%2A.go", FromArgument, "", false},
		{"a Windows path uses forward slashes", PathNormalizer{}, `C:\Users\me\a.go`, FromArgument, "C:/Users/me/a.go", true},
		{"a Windows path under a Windows working directory is relative", PathNormalizer{CWD: `C:\repo`}, `C:\repo\src\a.go`, FromArgument, "src/a.go", true},
		{"a backslash-only relative path uses forward slashes", PathNormalizer{}, `src\a.go`, FromText, "src/a.go", true},
		{"a path with a newline is not a file", PathNormalizer{}, "a.go\nb.go", FromText, "", false},
		{"a very long string is not a path", PathNormalizer{}, strings.Repeat("a/", 3000) + "x.go", FromText, "", false},
		{"the root directory is not a file", PathNormalizer{}, "/", FromArgument, "", false},
		{"a root working directory does not make everything relative", PathNormalizer{CWD: "/"}, "/etc/hosts", FromArgument, "/etc/hosts", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := tt.n.File(tt.in, tt.origin)
			assert.Equal(t, tt.ok, ok, "ok for %q", tt.in)
			assert.Equal(t, tt.want, got, "path for %q", tt.in)
		})
	}
}

func TestPathNormalizerKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		n    PathNormalizer
		in   string
		want string
	}{
		{"keys are the path itself by default", PathNormalizer{}, "Src/A.go", "Src/A.go"},
		{"keys are lowercase when folding case", PathNormalizer{FoldCase: true}, "Src/A.go", "src/a.go"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.n.Key(tt.in))
		})
	}
}

// normalizedPath reports whether p is what File promises: non-empty,
// clean, and not a directory-looking name.
func normalizedPath(p string) bool {
	return p != "" && p != "." && path.Clean(p) == p && !strings.HasPrefix(p, "./") && !strings.HasSuffix(p, "/")
}

func FuzzPathNormalizerFile(f *testing.F) {
	for _, s := range []string{"/testbed/a.py", "a/b.go", "file:///x/y.go", "~/x", "C:\\a\\b.go", "../../x", "src/[id]/a.tsx", "/-/blob/"} {
		f.Add(s, "/testbed", uint8(0))
	}
	f.Fuzz(func(t *testing.T, p, cwd string, origin uint8) {
		n := PathNormalizer{CWD: cwd}
		got, ok := n.File(p, PathOrigin(origin%3))
		if ok && !normalizedPath(got) {
			t.Fatalf("File(%q) = %q, not normalized", p, got)
		}
		if !ok && got != "" {
			t.Fatalf("File(%q) rejected but returned %q", p, got)
		}
	})
}

func TestPathNormalizerOrCWDKeepsAGivenDirectory(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "/repo", PathNormalizer{}.OrCWD("/repo").CWD)
	assert.Equal(t, "/given", PathNormalizer{CWD: "/given"}.OrCWD("/repo").CWD)
	assert.True(t, PathNormalizer{FoldCase: true}.OrCWD("/repo").FoldCase, "other options are kept")
}
