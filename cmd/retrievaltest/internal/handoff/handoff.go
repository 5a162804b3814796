// Package handoff runs a command line in another build of the command:
// the process is replaced by that build where the system allows it, else
// the build runs as a child with the same standard streams, and its exit
// code is the command's.
package handoff

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"os/signal"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/cli"
)

// Name is the file name of the program base on goos.
func Name(base, goos string) string {
	if goos == "windows" {
		return base + ".exe"
	}
	return base
}

// Run runs bin with args: first through replace (Exec), which does not
// return when it replaces the process. Where it cannot (Windows, or a file
// that is no program), bin runs as a child with the streams given, and Run
// returns its exit code.
func Run(bin string, args []string, replace func(string, []string) error, stdin io.Reader, stdout, stderr io.Writer) int {
	if err := replace(bin, args); err == nil {
		return cli.ExitOK // replaced: Exec does not return when it succeeds
	}
	// Ignored only now: an ignored signal stays ignored across exec, and
	// the build replace starts must stop on an interrupt.
	signal.Ignore(os.Interrupt) // the child gets it too, and says when it is done
	cmd := exec.Command(bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	if err != nil {
		io.WriteString(stderr, "retrievaltest: running "+bin+": "+err.Error()+"\n")
		return cli.ExitFailed
	}
	return cli.ExitOK
}
