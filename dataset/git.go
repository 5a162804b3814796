package dataset

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// BaseCommit returns the commit a case started from, given the commit that
// merged its change (final), in the git repository at repo: final's first
// parent, the evaluation-data pipeline's "parent commit of the final merged
// commit". For a merge commit that is the commit of the branch merged
// into, so the diff from it to final is the whole merged change; for an
// ordinary commit it is its parent. It runs the git found in PATH and
// returns a full commit hash. A root commit, having no parent, is an error.
func BaseCommit(ctx context.Context, repo, final string) (string, error) {
	if strings.HasPrefix(final, "-") {
		return "", fmt.Errorf("final commit %q: expected a revision, not an option", final)
	}
	if _, err := ResolveCommit(ctx, repo, final); err != nil {
		return "", err
	}
	base, err := ResolveCommit(ctx, repo, final+"^1")
	if err != nil {
		return "", fmt.Errorf("final commit %s has no parent (a root commit): %w", final, err)
	}
	return base, nil
}

// ResolveCommit returns the full hash of the commit rev names in the git
// repository at repo.
func ResolveCommit(ctx context.Context, repo, rev string) (string, error) {
	if strings.HasPrefix(rev, "-") {
		return "", fmt.Errorf("revision %q: expected a revision, not an option", rev)
	}
	out, err := git(ctx, repo, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("%s: %q is not a commit: %w", repo, rev, err)
	}
	return out, nil
}

// git runs git -C repo args and returns its trimmed standard output. A
// failure carries git's own message.
func git(ctx context.Context, repo string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", repo}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if msg := strings.TrimSpace(stderr.String()); msg != "" && errors.As(err, &exit) {
			return "", fmt.Errorf("git %s: %s", args[0], msg)
		}
		return "", fmt.Errorf("git %s: %w", args[0], err)
	}
	return strings.TrimSpace(stdout.String()), nil
}
