package expectations

import (
	"errors"
	"fmt"
	"slices"
)

// Utilization are the parameters of the utilization expectation (the
// utilization probes of metrics).
type Utilization struct {
	MinReadOverlap              *float64 `yaml:"min_read_overlap" doc:"lowest share of relevant files read" min:"0" max:"1"`
	MinWriteOverlapExpectedEdit *float64 `yaml:"min_write_overlap_expected_edit" doc:"lowest share of expected edit files written" min:"0" max:"1"`
	MinReadBeforeWriteRatio     *float64 `yaml:"min_read_before_write_ratio" doc:"lowest share of written files read before being written" min:"0" max:"1"`
}

func utilizationType() Type {
	return Type{
		Name:        "utilization",
		Description: "whether the agent used what it retrieved (the utilization probes)",
		Params:      Utilization{},
		ReadsCalls:  readsNoCalls,
		Check:       func(p any, run *Run) Outcome { return checkUtilization(p.(*Utilization), run) },
		Validate: func(p any) error {
			u := p.(*Utilization)
			if u.MinReadOverlap == nil && u.MinWriteOverlapExpectedEdit == nil && u.MinReadBeforeWriteRatio == nil {
				return errors.New("no threshold: give at least one of min_read_overlap, min_write_overlap_expected_edit, min_read_before_write_ratio")
			}
			return nil
		},
	}
}

func checkUtilization(p *Utilization, run *Run) Outcome {
	if run == nil || run.Metrics == nil {
		return fail("the run was not measured")
	}
	res := run.Metrics
	u := res.Utilization
	var cs checks
	figure := func(label, name string, min *float64, detail func() string) {
		if min == nil {
			return
		}
		var v *float64
		if x, ok := res.Metric(name); ok {
			v = &x
		}
		c := numberCheck(label, v, min, nil, true, whyMissing(res, name))
		if v != nil && u != nil {
			c.detail = detail()
		}
		cs.add(c)
	}
	figure("read overlap", "util_read_overlap_with_relevant_files", p.MinReadOverlap, func() string {
		return fmt.Sprintf("%d of %d relevant files read", countIn(res.Relevant, filesRead(run)), len(res.Relevant))
	})
	figure("expected-edit overlap", "util_write_overlap_with_expected_edit_files", p.MinWriteOverlapExpectedEdit, func() string {
		var edits []string
		if run.Document != nil {
			edits = run.Document.GroundTruth.ExpectedEditFiles
		}
		return fmt.Sprintf("%d of %d expected edit files written", countIn(edits, u.FilesWritten), len(edits))
	})
	figure("read before write", "util_read_before_write_ratio", p.MinReadBeforeWriteRatio, func() string {
		return fmt.Sprintf("%d of %d written files read first", len(u.ReadBeforeWrite), len(u.FilesWritten))
	})
	if u != nil {
		for _, f := range u.FilesWritten {
			if slices.Contains(u.ReadBeforeWrite, f) {
				cs.evidenceOf("wrote " + f + " after reading it")
			} else {
				cs.evidenceOf("wrote " + f + " without reading it")
			}
		}
	}
	return cs.outcome()
}

// filesRead are the files the run's events read, in the spelling of the
// document.
func filesRead(run *Run) []string {
	if run.Document == nil {
		return nil
	}
	var out []string
	for _, ev := range run.Document.Events {
		out = append(out, ev.FilesRead...)
	}
	return out
}

func countIn(want, have []string) int {
	n := 0
	for _, w := range want {
		if slices.Contains(have, w) {
			n++
		}
	}
	return n
}
