//go:build noparquet

package runs

import "io"

// ParquetLinked reports whether this build has the Parquet library that
// writes and reads TrialsFile. A build made with -tags noparquet (the
// release's lean retrievaltest) leaves it out: run-dir, merge, report and
// compare then fail with ErrNoParquet, and the command hands them to the
// build that has it.
const ParquetLinked = false

// A trialTable would write TrialsFile; this build has none.
type trialTable struct{}

func newTrialTable(io.Writer, []string) (*trialTable, error) { return nil, ErrNoParquet }

func (t *trialTable) addRec(string, *trialRec) error { return ErrNoParquet }

func (t *trialTable) close() error { return ErrNoParquet }

func readTrialTable(string, func(row int, config string, e *TaskEntry) error) error {
	return ErrNoParquet
}
