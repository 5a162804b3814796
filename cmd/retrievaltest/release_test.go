package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/blobio"
)

// The parts of .goreleaser.yaml that the command depends on. goreleaser
// check (run by .ci/run) validates the whole file against goreleaser's
// own schema; this test checks that it builds what the command and the
// documentation say it does.
type releaseConfig struct {
	Version int `yaml:"version"`
	Builds  []struct {
		ID      string   `yaml:"id"`
		Main    string   `yaml:"main"`
		Binary  string   `yaml:"binary"`
		Env     []string `yaml:"env"`
		Goos    []string `yaml:"goos"`
		Goarch  []string `yaml:"goarch"`
		Tags    []string `yaml:"tags"`
		Ldflags []string `yaml:"ldflags"`
	} `yaml:"builds"`
	Archives []struct {
		IDs []string `yaml:"ids"`
	} `yaml:"archives"`
	Checksum struct {
		NameTemplate string `yaml:"name_template"`
		Algorithm    string `yaml:"algorithm"`
	} `yaml:"checksum"`
}

func TestTheReleaseBuildsBothProgramsForEveryPlatformStamped(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "..", ".goreleaser.yaml"))
	require.NoError(t, err)
	var cfg releaseConfig
	require.NoError(t, yaml.Unmarshal(data, &cfg))
	assert.Equal(t, 2, cfg.Version, "goreleaser's configuration version")

	var binaries []string
	for _, b := range cfg.Builds {
		binaries = append(binaries, b.Binary)
		assert.Equal(t, "./cmd/retrievaltest", b.Main, b.ID)
		assert.ElementsMatch(t, []string{"linux", "darwin", "windows"}, b.Goos, b.ID)
		assert.ElementsMatch(t, []string{"amd64", "arm64"}, b.Goarch, b.ID)
		assert.Contains(t, b.Env, "CGO_ENABLED=0", "%s: a static binary runs on any system of its kind", b.ID)
		flags := strings.Join(b.Ldflags, " ")
		// The variables of version.go; a -X of a name that does not
		// exist is silently ignored by the linker.
		_, _, _ = version, commit, date
		for _, v := range []string{"-X main.version=", "-X main.commit=", "-X main.date="} {
			assert.Contains(t, flags, v, b.ID)
		}
		assert.Equal(t, b.Binary == blobio.CloudsBinary, slices.Contains(b.Tags, "allclouds"),
			"%s: only %s has the bucket drivers", b.ID, blobio.CloudsBinary)
		assert.Equal(t, b.Binary != blobio.CloudsBinary, slices.Contains(b.Tags, "nodb"),
			"%s: only %s has the database drivers", b.ID, blobio.CloudsBinary)
		assert.Equal(t, b.Binary != blobio.CloudsBinary, slices.Contains(b.Tags, "noparquet"),
			"%s: only %s has the Parquet library", b.ID, blobio.CloudsBinary)
	}
	assert.ElementsMatch(t, []string{"retrievaltest", blobio.CloudsBinary}, binaries)
	require.Len(t, cfg.Archives, 1)
	assert.ElementsMatch(t, []string{"retrievaltest", blobio.CloudsBinary}, cfg.Archives[0].IDs, "one archive holds both programs")
	assert.Equal(t, "checksums.txt", cfg.Checksum.NameTemplate, "docs/install.md names it")
	assert.Equal(t, "sha256", cfg.Checksum.Algorithm, "docs/install.md checks it with sha256sum")
}

func TestTheReleaseWorkflowRunsGoreleaserOnVersionTags(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "..", ".github", "workflows", "release.yml"))
	require.NoError(t, err)
	var wf struct {
		On struct {
			Push struct {
				Tags []string `yaml:"tags"`
			} `yaml:"push"`
		} `yaml:"on"`
		Jobs map[string]struct {
			Steps []struct {
				Uses string            `yaml:"uses"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	require.NoError(t, yaml.Unmarshal(data, &wf))
	assert.Equal(t, []string{"v*"}, wf.On.Push.Tags)
	var args []string
	for _, job := range wf.Jobs {
		for _, s := range job.Steps {
			if strings.HasPrefix(s.Uses, "goreleaser/goreleaser-action@") {
				args = append(args, s.With["args"])
			}
		}
	}
	assert.Equal(t, []string{"release --clean"}, args)
}
