package cli

import (
	"flag"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/groundtruth"
	"github.com/agentretrieval/agentretrieval/internal/input"
	"github.com/agentretrieval/agentretrieval/metrics"
	"github.com/agentretrieval/agentretrieval/report"
	"github.com/agentretrieval/agentretrieval/runs"
	"github.com/agentretrieval/agentretrieval/trace"
)

// MaxInput is the -max-input-size flag: one size that, when given, bounds
// every input a command reads, whatever its kind; zero keeps each kind's
// default.
type MaxInput int64

func (m *MaxInput) String() string {
	if m == nil || *m == 0 {
		return ""
	}
	return input.FormatSize(int64(*m))
}

func (m *MaxInput) Set(s string) error {
	n, err := input.ParseSize(s)
	if err != nil {
		return err
	}
	*m = MaxInput(n)
	return nil
}

// AddMaxInput defines -max-input-size on fs.
func AddMaxInput(fs *flag.FlagSet) *MaxInput {
	m := new(MaxInput)
	fs.Var(m, "max-input-size", "largest input file read, of any kind, as a `SIZE` such as 64MiB or 8GiB (default: "+
		input.FormatSize(input.TraceLimit)+" for a trace, "+input.FormatSize(input.DataLimit)+" for a diff, dataset, symbol, qrels or run file, "+
		input.FormatSize(input.TruthLimit)+" for another ground-truth file, "+input.FormatSize(input.ConfigLimit)+" for a scenario, taxonomy, result.json, summary or baseline)")
	return m
}

// OrTrace returns the limit of a trace: the flag's, or the default.
func (m *MaxInput) OrTrace() int64 { return input.Or(int64(*m), trace.DefaultMaxInputSize) }

// Apply sets the limit of every package that reads inputs, when the flag
// was given, and returns the function that restores the defaults. (The
// limits of those packages are process-wide; a command sets them for its
// run.) Trace and scenario limits are options, set by the commands.
func (m *MaxInput) Apply() (restore func()) {
	if *m == 0 {
		return func() {}
	}
	setters := []func(int64){groundtruth.SetMaxInputSize, events.SetMaxInputSize, metrics.SetMaxInputSize, runs.SetMaxInputSize, report.SetMaxInputSize}
	for _, set := range setters {
		set(int64(*m))
	}
	return func() {
		for _, set := range setters {
			set(0)
		}
	}
}

// Size is a flag holding a size of at least one byte, written as 4MiB,
// 16 MiB or 1024.
type Size int64

func (s *Size) String() string { return input.FormatSize(int64(*s)) }

func (s *Size) Set(v string) error {
	n, err := input.ParseSize(v) // refuses 0
	if err == nil {
		*s = Size(n)
	}
	return err
}
