package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
)

const versionUsage = `Usage: retrievaltest version

Prints the module version of retrievaltest and, when the binary was built
from a git checkout, the commit, its time and whether the work tree had
uncommitted changes; then the Go version it was built with.

`

// runVersion is the "version" command.
func runVersion(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("version", versionUsage, stderr)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return failer("version", stderr)("takes no arguments, got %q", fs.Arg(0))
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		fmt.Fprintln(stdout, "retrievaltest: no build information in this binary")
		return exitOK
	}
	fmt.Fprintln(stdout, versionLine(info))
	return exitOK
}

// versionLine formats build information: "retrievaltest v0.3.0 (commit
// 1a2b3c4d5e6f, 2026-11-20T10:00:00Z, modified) go1.26.0". A binary built
// inside the module's own folder has the version "(devel)".
func versionLine(info *debug.BuildInfo) string {
	version := info.Main.Version
	if version == "" {
		version = "(devel)"
	}
	var vcs []string
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if rev := settings["vcs.revision"]; rev != "" {
		vcs = append(vcs, "commit "+rev[:min(12, len(rev))])
	}
	if t := settings["vcs.time"]; t != "" {
		vcs = append(vcs, t)
	}
	if settings["vcs.modified"] == "true" {
		vcs = append(vcs, "modified")
	}
	line := "retrievaltest " + version
	if len(vcs) > 0 {
		line += " (" + strings.Join(vcs, ", ") + ")"
	}
	return line + " " + info.GoVersion
}
