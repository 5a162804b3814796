package main

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/blobio"
)

// delegatedEnv marks a process started by runIn: a build without drivers
// found under the name of the one with them hands nothing on again.
const delegatedEnv = "RETRIEVALTEST_DELEGATED"

// cloudsBinary returns the build that has the bucket drivers when this
// one has none and an argument names a bucket: retrievaltest-clouds beside
// this executable (as the release archives place it), else on PATH. It
// returns "" when this build reads the arguments itself, or when there is
// no such build (the command then says how to get one).
func cloudsBinary(args []string) string {
	if blobio.Linked("s3") || !blobio.NamesBucket(args) || os.Getenv(delegatedEnv) != "" {
		return ""
	}
	name := blobio.CloudsBinary
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
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
// and environment, and returns its exit code.
func runIn(bin string, args []string) int {
	if err := os.Setenv(delegatedEnv, "1"); err != nil {
		os.Stderr.WriteString("retrievaltest: " + err.Error() + "\n")
		return exitFailed
	}
	if err := execve(bin, args); err != nil {
		// execve returns only where it cannot replace the process.
		signal.Ignore(os.Interrupt) // the child gets it too, and says when it is done
		cmd := exec.Command(bin, args...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
		err := cmd.Run()
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit):
			return exit.ExitCode()
		case err != nil:
			os.Stderr.WriteString("retrievaltest: running " + bin + ": " + err.Error() + "\n")
			return exitFailed
		}
	}
	return exitOK
}
