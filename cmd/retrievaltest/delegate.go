package main

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/blobio"
	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/historycmd"
	"github.com/agentretrieval/agentretrieval/history"
)

// delegatedEnv marks a process started by runIn: a build without drivers
// found under the name of the one with them hands nothing on again.
const delegatedEnv = "RETRIEVALTEST_DELEGATED"

// cloudsBinary returns the build that has the bucket and database drivers
// when this one lacks those the arguments need (an argument names a
// bucket, or the command opens a history database): retrievaltest-clouds
// beside this executable (as the release archives place it), else on PATH.
// It returns "" when this build runs the command itself, or when there is
// no such build (the command then says how to get one).
func cloudsBinary(args []string) string {
	if os.Getenv(delegatedEnv) != "" {
		return ""
	}
	bucket := !blobio.Linked("s3") && blobio.NamesBucket(args)
	db := !history.DriversLinked && historycmd.NamesDatabase(args)
	if !bucket && !db {
		return ""
	}
	name := cloudsName(runtime.GOOS)
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

// cloudsName is the file name of the build with the drivers on goos.
func cloudsName(goos string) string {
	if goos == "windows" {
		return blobio.CloudsBinary + ".exe"
	}
	return blobio.CloudsBinary
}

// runIn runs the command in bin with the same arguments, standard streams
// and environment, and returns its exit code.
func runIn(bin string, args []string) int {
	return handOff(bin, args, execve, os.Stdin, os.Stdout, os.Stderr)
}

// handOff marks the environment as handed on (delegatedEnv), then replaces
// the process by bin with replace (execve). Where replace cannot (Windows
// has no exec, and a file that is no program fails it), bin runs as a
// child with the streams given, and handOff returns its exit code.
func handOff(bin string, args []string, replace func(string, []string) error, stdin io.Reader, stdout, stderr io.Writer) int {
	if err := os.Setenv(delegatedEnv, "1"); err != nil {
		io.WriteString(stderr, "retrievaltest: "+err.Error()+"\n")
		return exitFailed
	}
	if err := replace(bin, args); err == nil {
		return exitOK // replaced: execve does not return when it succeeds
	}
	// Ignored only now: an ignored signal stays ignored across exec, and
	// the build replace starts must stop on an interrupt.
	signal.Ignore(os.Interrupt) // the child gets it too, and says when it is done
	cmd := exec.Command(bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode()
	case err != nil:
		io.WriteString(stderr, "retrievaltest: running "+bin+": "+err.Error()+"\n")
		return exitFailed
	}
	return exitOK
}
