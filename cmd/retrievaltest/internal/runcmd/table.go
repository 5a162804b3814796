package runcmd

import "github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/cli"

// NeedsTable reports whether the command line (the command, then its
// arguments) writes or reads a run's per-trial table (runs.TrialsFile):
// run-dir over a whole run and merge write it, report and compare read a
// summary's entries from it. A shard (-shard) and a plan (-plan) need no
// table, nor does a request for help.
func NeedsTable(args []string) bool {
	if len(args) == 0 || cli.HasFlag(args[1:], "h", "help") {
		return false
	}
	switch args[0] {
	case "merge", "report", "compare":
		return true
	case "run-dir":
		return !cli.HasFlag(args[1:], "shard", "plan")
	}
	return false
}
