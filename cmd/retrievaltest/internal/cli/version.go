package cli

import (
	"runtime/debug"
	"strings"
)

// Stamp is what a release build sets with -ldflags -X (see
// .goreleaser.yaml): the version of its tag, its commit and the commit's
// time. An empty field is taken from the build information the go command
// records instead.
type Stamp struct {
	Version, Commit, Date string
}

// Version describes the running binary: "NAME v0.3.0 (commit 1a2b3c4d5e6f,
// 2026-11-20T10:00:00Z, modified) go1.26.0", or says that it carries no
// build information.
func Version(name string, s Stamp) string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return name + ": no build information in this binary"
	}
	return VersionLine(name, info, s)
}

// VersionLine formats build information. A binary built inside the
// module's own folder has the version "(devel)"; the commit, its time and
// whether the work tree was modified come from the version-control
// settings the go command records, unless the stamp names a commit: a
// release build is made from the tagged commit, clean.
func VersionLine(name string, info *debug.BuildInfo, s Stamp) string {
	version := s.Version
	if version == "" {
		version = info.Main.Version
	}
	if version == "" {
		version = "(devel)"
	}
	settings := map[string]string{}
	if s.Commit != "" {
		settings["vcs.revision"], settings["vcs.time"] = s.Commit, s.Date
	} else {
		for _, bs := range info.Settings {
			settings[bs.Key] = bs.Value
		}
	}
	var vcs []string
	if rev := settings["vcs.revision"]; rev != "" {
		vcs = append(vcs, "commit "+rev[:min(12, len(rev))])
	}
	if t := settings["vcs.time"]; t != "" {
		vcs = append(vcs, t)
	}
	if settings["vcs.modified"] == "true" {
		vcs = append(vcs, "modified")
	}
	line := name + " " + version
	if len(vcs) > 0 {
		line += " (" + strings.Join(vcs, ", ") + ")"
	}
	return line + " " + info.GoVersion
}
