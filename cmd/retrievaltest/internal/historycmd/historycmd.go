// Package historycmd is the command's history wiring: the flags of check,
// run-dir and merge that record a run in a history database, the -baseline
// DB@REF reader, and the history and trend commands.
package historycmd

import (
	"bytes"
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/cli"
	"github.com/agentretrieval/agentretrieval/history"
	"github.com/agentretrieval/agentretrieval/internal/atomicfile"
	"github.com/agentretrieval/agentretrieval/metrics"
	"github.com/agentretrieval/agentretrieval/report"
)

// Flags are check's flags that record the run in a history database.
type Flags struct {
	db, runID, commit, branch, reportURL *string
}

// record appends run to the history database db and returns the
// database's name, for the line that says where the run went.
func record(ctx context.Context, db string, run *history.Run) (string, error) {
	st, err := history.Open(ctx, db)
	if err != nil {
		return "", err
	}
	defer st.Close()
	if err := st.Record(ctx, run); err != nil {
		return "", err
	}
	return st.Name(), nil
}

// AddFlags defines the flags on fs.
func AddFlags(fs *flag.FlagSet) Flags {
	return Flags{
		db:        fs.String("history", "", "append this run to the history database `DB` (a SQLite file, created when absent, or a postgres:// URL)"),
		runID:     fs.String("run-id", "", "the run's `ID` in -history (default: the CI run id of GitHub Actions, GitLab CI or Buildkite; shards sharing an id add up to one run)"),
		commit:    fs.String("commit", "", "the commit recorded in -history (default: from CI, else git rev-parse HEAD)"),
		branch:    fs.String("branch", "", "the branch recorded in -history (default: from CI, else git's current branch)"),
		reportURL: fs.String("report-url", "", "where this run's report is published, recorded in -history"),
	}
}

// Record appends the checked run to the -history database, if one is given.
func (h Flags) Record(ctx context.Context, c *report.Check, stderr io.Writer) error {
	if *h.db == "" {
		return nil
	}
	run := h.newRun()
	scenarios, err := history.Scenarios(c)
	if err != nil {
		return fmt.Errorf("-history: %w", err)
	}
	run.Scenarios = scenarios
	where, err := record(ctx, *h.db, &run)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "retrievaltest check: run %s (%d scenario(s), branch %q, commit %.12s) recorded in %s\n",
		run.Key, len(scenarios), run.Branch, run.Commit, where)
	return nil
}

// newRun is the run the flags and the environment describe: its key,
// commit, branch, CI page and report.
func (h Flags) newRun() history.Run {
	run := history.DetectRun(os.Getenv, time.Now())
	if *h.runID != "" {
		run.Key = *h.runID
	}
	run.Commit = cmp.Or(*h.commit, run.Commit, git("rev-parse", "HEAD"))
	run.Branch = cmp.Or(*h.branch, run.Branch, git("branch", "--show-current"))
	run.ReportURL = *h.reportURL
	return run
}

// git runs git in the current folder and returns its output's first line,
// or "" when git fails (not a repository, no git).
func git(args ...string) string {
	out, err := exec.Command("git", args...).Output()
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(line)
}

// IsRef reports whether a -baseline names a run of a history (DB@BRANCH
// or DB@COMMIT) rather than a baseline file.
func IsRef(spec string) bool {
	_, _, ok := history.SplitRef(spec)
	return ok
}

// ReadBaseline reads -baseline: a baseline file, or DB@REF, the latest run
// of a branch or commit in a history database.
func ReadBaseline(ctx context.Context, spec string, stderr io.Writer) (*report.Baseline, error) {
	db, ref, ok := history.SplitRef(spec)
	if !ok {
		return report.ReadBaseline(spec)
	}
	st, err := history.Open(ctx, db)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	b, key, err := st.Baseline(ctx, ref)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "retrievaltest check: baseline: run %s of %s\n", key, ref)
	return b, nil
}

// parseWithDB parses flags that may come before or after the one
// argument, the database.
func parseWithDB(fs *flag.FlagSet, args []string, fail func(string, ...any) int) (string, int, bool) {
	if code, ok := cli.Parse(fs, args); !ok {
		return "", code, false
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return "", fail("no history database given"), false
	}
	db := fs.Arg(0)
	if code, ok := cli.Parse(fs, fs.Args()[1:]); !ok {
		return "", code, false
	}
	if fs.NArg() > 0 {
		return "", fail("unexpected argument %q: expected one database", fs.Arg(0)), false
	}
	return db, 0, true
}

// History runs the history command; usage is its -h text.
func History(ctx context.Context, args []string, stdout, stderr io.Writer, usage string) int {
	fs := cli.NewFlags("retrievaltest history", usage, stderr)
	var (
		branch   = fs.String("branch", "", "list the runs of `BRANCH` only")
		scenario = fs.String("scenario", "", "list the runs that recorded scenario `NAME`, with its outcome alone")
		since    = fs.String("since", "", "list the runs recorded since `WHEN`: a date (2026-11-30), a time (RFC 3339) or an age (36h, 30d)")
		limit    = fs.Int("n", 50, "list at most `N` runs, the latest first (0: all)")
		flaky    = fs.Bool("flaky", false, "list the flaky expectations of the last -window runs instead")
		window   = fs.Int("window", 50, "the runs of -branch (or all) that -flaky looks at")
	)
	fail := cli.Failer("retrievaltest history", stderr)
	db, code, ok := parseWithDB(fs, args, fail)
	if !ok {
		return code
	}
	f := history.Filter{Branch: *branch, Scenario: *scenario, Limit: *limit}
	if *since != "" {
		t, err := history.ParseSince(*since, time.Now())
		if err != nil {
			return fail("-since %v", err)
		}
		f.Since = t
	}
	if *limit < 0 {
		return fail("-n %d: expected 0 or more", *limit)
	}
	st, err := history.OpenExisting(ctx, db)
	if err != nil {
		return fail("%v", err)
	}
	defer st.Close()
	var buf bytes.Buffer
	if *flaky {
		list, err := st.Flaky(ctx, *branch, *window)
		if err != nil {
			return fail("%v", err)
		}
		history.WriteFlaky(&buf, list)
	} else {
		runs, err := st.Runs(ctx, f)
		if err != nil {
			return fail("%v", err)
		}
		history.WriteRuns(&buf, runs)
	}
	if _, err := stdout.Write(buf.Bytes()); err != nil {
		return fail("%v", err)
	}
	return cli.ExitOK
}

// Trend runs the trend command; usage is its -h text.
func Trend(ctx context.Context, args []string, stdout, stderr io.Writer, usage string) int {
	fs := cli.NewFlags("retrievaltest trend", usage, stderr)
	var (
		branch   = fs.String("branch", "", "show the runs of `BRANCH` (default: the branch of the latest run)")
		runs     = fs.Int("n", 20, "show the last `N` runs of the branch")
		figures  = fs.String("figure", strings.Join(report.DefaultRetrievalMetrics, ","), "the `FIGURES` shown, comma-separated metric names")
		scenario = fs.String("scenario", "", "show the figures of scenario `NAME` (default: the mean over each run's scenarios)")
		config   = fs.String("config", "", "show configuration `NAME` of the runs recorded by run-dir or merge -history, alone, over the runs that recorded it (default: every configuration of the runs shown)")
		outFile  = fs.String("o", "", "write the table to `FILE` (atomically) instead of standard output")
		htmlFile = fs.String("html", "", "also write a self-contained page with a chart per figure to `FILE` (atomically)")
	)
	fail := cli.Failer("retrievaltest trend", stderr)
	db, code, ok := parseWithDB(fs, args, fail)
	if !ok {
		return code
	}
	if *runs < 1 {
		return fail("-n %d: expected 1 or more", *runs)
	}
	names := cli.SplitList(*figures)
	if len(names) == 0 {
		return fail("-figure: expected one metric name or more")
	}
	for _, m := range names {
		if _, ok := metrics.Define(m); !ok && m != history.RewardFigure {
			return fail("-figure: %s", metrics.UnknownMetricError(m))
		}
	}
	st, err := history.OpenExisting(ctx, db)
	if err != nil {
		return fail("%v", err)
	}
	defer st.Close()
	t, err := st.Trend(ctx, history.TrendOptions{Branch: *branch, Runs: *runs, Figures: names, Scenario: *scenario, Config: *config})
	if err != nil {
		return fail("%v", err)
	}
	var flaky []history.FlakyExpectation
	if *config == "" { // a configuration's trend has no expectation
		if flaky, err = st.Flaky(ctx, t.Branch, *runs); err != nil {
			return fail("%v", err)
		}
	}
	if *scenario != "" {
		flaky = keepScenario(flaky, *scenario)
	}
	write := func(w io.Writer) error { return t.WriteMarkdown(w, flaky) }
	if *outFile != "" {
		err = atomicfile.Write(*outFile, write)
	} else {
		err = write(stdout)
	}
	if err != nil {
		return fail("%v", err)
	}
	if *htmlFile != "" {
		page := func(w io.Writer) error { return t.WriteHTML(w, flaky) }
		if err := atomicfile.Write(*htmlFile, page); err != nil {
			return fail("%v", err)
		}
	}
	return cli.ExitOK
}

func keepScenario(list []history.FlakyExpectation, name string) []history.FlakyExpectation {
	var out []history.FlakyExpectation
	for _, f := range list {
		if f.Scenario == name {
			out = append(out, f)
		}
	}
	return out
}

// NamesDatabase reports whether a command line (the command's name, then
// its arguments) opens a history database: the history and trend commands,
// -history DB, and -baseline DB@REF. A build without the database drivers
// hands such a command to the build that has them.
func NamesDatabase(args []string) bool {
	if len(args) == 0 {
		return false
	}
	if args[0] == "history" || args[0] == "trend" {
		return true
	}
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break // the rest are arguments, not flags
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, value, inline := strings.Cut(strings.TrimPrefix(a[1:], "-"), "=")
		if !inline && i+1 < len(args) {
			value = args[i+1]
		}
		if name == "history" && value != "" || name == "baseline" && IsRef(value) {
			return true
		}
	}
	return false
}
