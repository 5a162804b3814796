package dataset

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/agentretrieval/agentretrieval/groundtruth"
	"github.com/agentretrieval/agentretrieval/internal/input"
	"github.com/agentretrieval/agentretrieval/trace"
)

// Config is one run of the producer: the merged change, the traces of the
// work that led to it, and where the rows go.
type Config struct {
	// Diff is the unified diff of the merged change (git's or a plain one).
	Diff string
	// Traces are trace files or folders, each of any supported format; "-"
	// is standard input. Every session of every trace is one case (a trace
	// that holds several tasks gives one case per task; Trace.SessionID
	// picks one). With no trace, the case is the diff alone, and CaseID
	// must name it.
	Traces []string
	// Out is the folder the two dataset files are written to; it is
	// created when missing.
	Out string
	// Repo is a git repository. With it, Base is resolved to a full commit
	// hash, and Final (the commit that merged the change) gives the base
	// commit as its first parent (BaseCommit). Without it, Base is written
	// as given and Final cannot be used.
	Repo, Base, Final string
	// Query is the task the cases worked on. Empty means each session's
	// first user prompt (trace.Session.Prompt), when its trace records one;
	// a row left without a query is marked needsQuery.
	Query string
	// CaseID names the case; it can name only one. Empty means each
	// session's own name (CaseID).
	CaseID string
	// Full rewrites the dataset files instead of adding to them.
	Full bool
	// Trace holds the trace reading options (Format, SessionID,
	// MaxInputSize); Source is set per trace.
	Trace trace.Options
	// Options control how tool calls become entries.
	Options Options
	// Warn receives warnings: trace lines that were skipped, existing rows
	// that could not be read. Nil drops them.
	Warn func(string)
}

// Generate builds one case per session of cfg.Traces against the golden
// diff, and writes them with Write. Errors name the input they are about;
// a trace that cannot be read stops the run before anything is written.
func Generate(ctx context.Context, cfg Config) (*WriteResult, error) {
	warn := cfg.Warn
	if warn == nil {
		warn = func(string) {}
	}
	if cfg.Out == "" {
		return nil, errors.New("no output folder given")
	}
	golden, err := readDiff(cfg.Diff)
	if err != nil {
		return nil, err
	}
	base, err := baseCommit(ctx, cfg)
	if err != nil {
		return nil, err
	}
	var cases []*Case
	for _, name := range cfg.Traces {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		opts := cfg.Trace
		opts.Source = name
		sessions, err := trace.ReadFileAll(name, opts)
		if err != nil {
			return nil, err
		}
		for _, s := range sessions {
			for _, w := range s.Warnings {
				warn(w.String())
			}
			if more := s.WarningsSummary(); more != "" {
				warn(more)
			}
			c := Build(golden, s, cfg.Options)
			c.ID, c.Query = CaseID(s), s.Prompt
			cases = append(cases, c)
		}
	}
	if len(cfg.Traces) == 0 {
		if cfg.CaseID == "" {
			return nil, errors.New("no trace given: a case from the diff alone needs a case id")
		}
		cases = append(cases, Build(golden, nil, cfg.Options))
	}
	if cfg.CaseID != "" {
		if len(cases) > 1 {
			return nil, fmt.Errorf("case id %q names one case, but the traces hold %d sessions: pick one session of a trace, or leave each session its own id", cfg.CaseID, len(cases))
		}
		cases[0].ID = cfg.CaseID
	}
	for _, c := range cases {
		c.BaseCommit = base
		if cfg.Query != "" {
			c.Query = cfg.Query
		}
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, err
	}
	return Write(cfg.Out, cases, cfg.Full, warn)
}

func readDiff(name string) (*groundtruth.Truth, error) {
	if name == "" {
		return nil, errors.New("no diff given: the golden entries come from the merged change's unified diff")
	}
	f, err := input.Open(name, input.DataLimit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return groundtruth.ParseDiff(name, f)
}

func baseCommit(ctx context.Context, cfg Config) (string, error) {
	switch {
	case cfg.Base != "" && cfg.Final != "":
		return "", errors.New("both a base and a final commit given: give the base, or the final commit to derive it from")
	case cfg.Final != "" && cfg.Repo == "":
		return "", fmt.Errorf("final commit %s given without a repository: the base commit is derived with git in one", cfg.Final)
	case cfg.Final != "":
		return BaseCommit(ctx, cfg.Repo, cfg.Final)
	case cfg.Base != "" && cfg.Repo != "":
		return ResolveCommit(ctx, cfg.Repo, cfg.Base)
	}
	return cfg.Base, nil
}
