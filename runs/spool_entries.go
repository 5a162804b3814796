package runs

import (
	"fmt"
	"io"
	"os"
)

// spooledEntries are a summary's entries as a spool holds them: the spool's
// file, its table of metric names, and per configuration, in the
// summary's order, where each entry lies (24 bytes a trial). A summary
// written without its entries reads them from there (EachEntry) rather
// than from the table it wrote: the same entries, decoded from the
// records the table's rows were made of, at a fraction of the cost of
// reading Parquet.
type spooledEntries struct {
	file    io.ReaderAt // the spool's *os.File; nil once closed
	metrics []string
	recs    [][]spoolRec // by configuration, as Summary.Configs
}

// close releases the spool's file and its records; each then fails.
func (se *spooledEntries) close() error {
	var err error
	if c, ok := se.file.(io.Closer); ok {
		err = c.Close()
	}
	se.file, se.recs = nil, nil
	return err
}

// each calls f with every entry of every configuration of s, in order,
// until f returns an error, which it returns.
func (se *spooledEntries) each(s *Summary, f func(c *ConfigSummary, e *TaskEntry) error) error {
	if se.file == nil {
		return fmt.Errorf("the summary's entries were released by Close: %w", os.ErrClosed)
	}
	if len(se.recs) != len(s.Configs) {
		return fmt.Errorf("the spool holds the entries of %d configurations, the summary has %d", len(se.recs), len(s.Configs))
	}
	var b []byte
	var r trialRec
	for i, c := range s.Configs {
		for _, rec := range se.recs[i] {
			var err error
			if b, err = rec.read(se.file, b, &r, len(se.metrics)); err != nil {
				return fmt.Errorf("the spool's entry at %d of configuration %s: %w", rec.off, c.Config, err)
			}
			e := r.entry
			e.Values = r.valuesMap(se.metrics)
			if err := f(c, &e); err != nil {
				return err
			}
		}
	}
	return nil
}
