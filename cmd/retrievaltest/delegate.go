package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/blobio"
	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/handoff"
	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/historycmd"
	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/runcmd"
	"github.com/agentretrieval/agentretrieval/history"
	"github.com/agentretrieval/agentretrieval/runs"
)

// delegatedEnv marks a process started by runIn: a build without drivers
// found under the name of the one with them hands nothing on again.
const delegatedEnv = "RETRIEVALTEST_DELEGATED"

// cloudsBinary returns the build that has the bucket and database drivers
// and the Parquet library when this one lacks what the arguments need (an
// argument names a bucket, the command opens a history database, or it
// writes or reads a run's per-trial table): retrievaltest-clouds
// beside this executable (as the release archives place it), else on PATH.
// It returns "" when this build runs the command itself, or when there is
// no such build (the command then says how to get one).
func cloudsBinary(args []string) string {
	if os.Getenv(delegatedEnv) != "" {
		return ""
	}
	bucket := !blobio.Linked("s3") && blobio.NamesBucket(args)
	db := !history.DriversLinked && historycmd.NamesDatabase(args)
	table := !runs.ParquetLinked && runcmd.NeedsTable(args)
	if !bucket && !db && !table {
		return ""
	}
	name := handoff.Name(blobio.CloudsBinary, runtime.GOOS)
	if self, err := os.Executable(); err == nil {
		if resolved, err := filepath.EvalSymlinks(self); err == nil {
			self = resolved
		}
		beside := filepath.Join(filepath.Dir(self), name)
		if info, err := os.Stat(beside); err == nil && info.Mode().IsRegular() {
			return beside
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	return ""
}

// runIn runs the command in bin with the same arguments, standard streams
// and environment, marked as handed on, and returns its exit code.
func runIn(bin string, args []string) int {
	if err := os.Setenv(delegatedEnv, "1"); err != nil {
		os.Stderr.WriteString("retrievaltest: " + err.Error() + "\n")
		return exitFailed
	}
	return handoff.Run(bin, args, handoff.Exec, os.Stdin, os.Stdout, os.Stderr)
}

// missingLibrary returns why this build cannot run the command itself,
// when no build that can was found to hand it to: checked before the
// command starts, so that run-dir does not evaluate a whole run to fail
// at its table.
func missingLibrary(args []string) error {
	if !runs.ParquetLinked && runcmd.NeedsTable(args) {
		return runs.ErrNoParquet
	}
	return nil
}
