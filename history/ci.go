package history

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"time"
)

// DetectRun fills a run's key, commit, branch, CI system and URL from the
// environment of GitHub Actions, GitLab CI or Buildkite, read through
// getenv (os.Getenv). Outside CI the key is "local:" and a random id, and
// commit and branch are left empty for the caller to fill (from flags or
// git). now is the run's time.
//
// The key of a CI run is the same in every job of the run, so that the
// shards of one run (a matrix, parallel jobs) record into one run; a
// re-run attempt of a GitHub Actions run is a run of its own.
func DetectRun(getenv func(string) string, now time.Time) Run {
	r := Run{Time: now.UTC()}
	switch {
	case getenv("GITHUB_ACTIONS") == "true":
		r.CI = "github"
		repo, id := getenv("GITHUB_REPOSITORY"), getenv("GITHUB_RUN_ID")
		if id != "" {
			r.Key = "github:" + repo + "/" + id + "/" + cmp.Or(getenv("GITHUB_RUN_ATTEMPT"), "1")
			r.URL = strings.TrimSuffix(cmp.Or(getenv("GITHUB_SERVER_URL"), "https://github.com"), "/") + "/" + repo + "/actions/runs/" + id
		}
		r.Commit = getenv("GITHUB_SHA")
		// A pull request's run names its head branch in GITHUB_HEAD_REF;
		// GITHUB_REF_NAME is then "123/merge".
		r.Branch = cmp.Or(getenv("GITHUB_HEAD_REF"), getenv("GITHUB_REF_NAME"))
	case getenv("GITLAB_CI") == "true":
		r.CI = "gitlab"
		if id := getenv("CI_PIPELINE_ID"); id != "" {
			r.Key = "gitlab:" + getenv("CI_PROJECT_PATH") + "/" + id
		}
		r.URL = getenv("CI_PIPELINE_URL")
		r.Commit = getenv("CI_COMMIT_SHA")
		r.Branch = cmp.Or(getenv("CI_MERGE_REQUEST_SOURCE_BRANCH_NAME"), getenv("CI_COMMIT_BRANCH"), getenv("CI_COMMIT_REF_NAME"))
	case getenv("BUILDKITE") == "true":
		r.CI = "buildkite"
		if id := getenv("BUILDKITE_BUILD_ID"); id != "" {
			r.Key = "buildkite:" + id
		}
		r.URL = getenv("BUILDKITE_BUILD_URL")
		r.Commit = getenv("BUILDKITE_COMMIT")
		r.Branch = getenv("BUILDKITE_BRANCH")
	}
	if r.Key == "" {
		b := make([]byte, 8)
		rand.Read(b)
		r.Key = "local:" + r.Time.Format("20060102T150405Z") + "-" + hex.EncodeToString(b)
	}
	return r
}
