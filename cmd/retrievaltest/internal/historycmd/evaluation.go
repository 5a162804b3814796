package historycmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/agentretrieval/agentretrieval/history"
	"github.com/agentretrieval/agentretrieval/runs"
)

// EvaluationFlags are the flags of run-dir and merge that record an
// evaluated run in a history database: check's, and for run-dir whether
// a shard records itself.
type EvaluationFlags struct {
	Flags
	shard *bool
}

// AddEvaluationFlags defines the flags on fs; shards adds -history-shard.
func AddEvaluationFlags(fs *flag.FlagSet, shards bool) EvaluationFlags {
	h := EvaluationFlags{Flags: AddFlags(fs)}
	if shards {
		h.shard = fs.Bool("history-shard", false, "with -shard and -history, record this shard's trials as a run of their own (its statistics over its own tasks); without it a shard records nothing, and merge -history records the whole run once")
	}
	return h
}

// Given reports whether -history names a database.
func (h EvaluationFlags) Given() bool { return *h.db != "" }

// Check refuses -history where it would record part of a run or nothing:
// a shard (unless -history-shard), a plan, and -history-shard alone.
func (h EvaluationFlags) Check(sharded, planning bool) error {
	asked := h.shard != nil && *h.shard
	if asked && (*h.db == "" || !sharded) {
		return errors.New("-history-shard records a shard of a run: give it with -shard K/N and -history DB")
	}
	if *h.db != "" && planning {
		return errors.New("-history: writing a plan evaluates no trial, so there is nothing to record; give -history to merge, which records the whole run")
	}
	if *h.db != "" && sharded && !asked {
		return errors.New("-history with -shard: a shard holds part of the run's trials; give -history to merge, which records the whole run once (or -history-shard to record this shard as a run of its own)")
	}
	return nil
}

// Reachable opens the -history database, if one is given, and closes it:
// a database that cannot be opened fails the command before an evaluation
// that may take hours, not after it.
func (h EvaluationFlags) Reachable(ctx context.Context) error {
	if *h.db == "" {
		return nil
	}
	st, err := history.Open(ctx, *h.db)
	if err != nil {
		return err
	}
	return st.Close()
}

// Record appends an evaluated run to the -history database, if one is
// given. Its key is -run-id, else the CI run's, else "run:" and the
// summary's run id, so that evaluating a run folder again replaces its
// record; suffix (a shard's) is added to it.
func (h EvaluationFlags) Record(ctx context.Context, cmd string, s *runs.Summary, suffix string, stderr io.Writer) error {
	if *h.db == "" {
		return nil
	}
	run := h.newRun()
	if *h.runID == "" && strings.HasPrefix(run.Key, "local:") {
		run.Key = "run:" + s.RunID
	}
	run.Key += suffix
	run.Evaluated = s.RunID
	run.Configs = history.Configs(s)
	where, err := record(ctx, *h.db, &run)
	if err != nil {
		return err
	}
	trials, _, _, _ := s.Totals()
	fmt.Fprintf(stderr, "retrievaltest %s: run %s (%d configuration(s), %d trial(s), branch %q, commit %.12s) recorded in %s\n",
		cmd, run.Key, len(run.Configs), trials, run.Branch, run.Commit, where)
	return nil
}
