package report

import (
	"fmt"
	"io"

	"github.com/agentretrieval/agentretrieval/runs"
)

// WriteSummaryTable writes one row per configuration: trials, the counts
// of computable, non-computable and degraded ones (and failed ones, in a
// column of their own when any trial failed), and the mean (over tasks)
// of each metric asked for, headed by its label.
func WriteSummaryTable(w io.Writer, s *runs.Summary, metricNames []string) error {
	if len(metricNames) == 0 {
		metricNames = DefaultRetrievalMetrics
	}
	header := []string{"Config", "Trials", "Computable", "Non-computable", "Degraded"}
	anyFailed := len(s.FailedEntries()) > 0
	if anyFailed {
		header = append(header, "Failed")
	}
	for _, m := range metricNames {
		header = append(header, Escape(Label(m))+" (mean)")
	}
	var cells [][]string
	var notes footnotes
	for _, c := range s.Configs {
		line := []string{
			Escape(c.Config), fmt.Sprint(c.Trials),
			fmt.Sprint(c.Computable.Count), fmt.Sprint(c.NonComputable.Count), fmt.Sprint(c.Degraded.Count),
		}
		if anyFailed {
			failed := 0
			if c.Failed != nil {
				failed = c.Failed.Count
			}
			line = append(line, fmt.Sprint(failed))
		}
		for _, m := range metricNames {
			st, ok := c.Metrics[m]
			if !ok || st.N == 0 {
				line = append(line, "n/a"+notes.mark("no computable task has a value for "+Label(m)))
				continue
			}
			line = append(line, fmt.Sprintf("%s (n=%d)", FormatValue(m, st.Mean), st.N))
		}
		cells = append(cells, line)
	}
	if err := writeTable(w, header, cells); err != nil {
		return err
	}
	return notes.write(w)
}
