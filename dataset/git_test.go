package dataset_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/dataset"
)

// gitRepo creates a repository with a root commit, a feature branch merged
// into main with a merge commit, and returns it with its commits by name.
func gitRepo(t *testing.T) (string, map[string]string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
			"GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %s: %s", strings.Join(args, " "), out)
		return strings.TrimSpace(string(out))
	}
	commit := func(file, text, msg string) string {
		require.NoError(t, os.WriteFile(filepath.Join(dir, file), []byte(text), 0o644))
		run("add", file)
		run("commit", "-q", "-m", msg)
		return run("rev-parse", "HEAD")
	}
	run("init", "-q", "-b", "main")
	c := map[string]string{}
	c["root"] = commit("a.go", "package a\n", "root")
	run("checkout", "-q", "-b", "feature")
	c["feature"] = commit("b.go", "package a\n", "feature work")
	run("checkout", "-q", "main")
	c["main"] = commit("c.go", "package a\n", "main moves on")
	run("merge", "-q", "--no-ff", "-m", "merge feature", "feature")
	c["merge"] = run("rev-parse", "HEAD")
	return dir, c
}

func TestBaseCommitIsTheFirstParentOfTheFinalCommit(t *testing.T) {
	t.Parallel()
	repo, c := gitRepo(t)
	ctx := context.Background()
	tests := []struct {
		name, final, want string
	}{
		{"a merge commit's base is the branch merged into", c["merge"], c["main"]},
		{"a revision name works as well as a hash", "main", c["main"]},
		{"an ordinary commit's base is its parent", c["feature"], c["root"]},
		{"an abbreviated hash is resolved to the full one", c["main"][:8], c["root"]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := dataset.BaseCommit(ctx, repo, tt.final)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	_, err := dataset.BaseCommit(ctx, repo, c["root"])
	assert.ErrorContains(t, err, "has no parent")
	_, err = dataset.BaseCommit(ctx, repo, "no-such-branch")
	assert.ErrorContains(t, err, `"no-such-branch" is not a commit`)
	_, err = dataset.BaseCommit(ctx, repo, "--all")
	assert.ErrorContains(t, err, "not an option")
}

func TestGenerateDerivesTheBaseCommitWithGit(t *testing.T) {
	t.Parallel()
	repo, c := gitRepo(t)
	out := t.TempDir()
	cfg := exampleConfig(out)
	cfg.Base, cfg.Repo, cfg.Final = "", repo, c["merge"]
	_, err := dataset.Generate(context.Background(), cfg)
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(out, dataset.FileB))
	require.NoError(t, err)
	assert.Contains(t, string(b), `"baseCommit":"`+c["main"]+`","needsQuery":false,"needsBaseCommit":false`)

	out = t.TempDir()
	cfg = exampleConfig(out)
	cfg.Repo, cfg.Base = repo, "feature"
	_, err = dataset.Generate(context.Background(), cfg)
	require.NoError(t, err)
	b, err = os.ReadFile(filepath.Join(out, dataset.FileB))
	require.NoError(t, err)
	assert.Contains(t, string(b), `"baseCommit":"`+c["feature"]+`"`, "-base with -repo is resolved to a full hash")
}
