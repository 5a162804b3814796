package expectations

import (
	"errors"
	"fmt"
)

// LineCoverage are the parameters of the line_coverage expectation.
type LineCoverage struct {
	MinCoverage  *float64 `yaml:"min_coverage" doc:"lowest share of ground-truth chunk lines read" min:"0" max:"1"`
	MinPrecision *float64 `yaml:"min_precision" doc:"lowest share of lines read that are ground-truth chunk lines" min:"0" max:"1"`
	MinF1        *float64 `yaml:"min_f1" doc:"lowest F1 of line coverage and line precision" min:"0" max:"1"`
	MinIoU       *float64 `yaml:"min_iou" doc:"lowest intersection over union of the lines read and the ground-truth chunk lines" min:"0" max:"1"`
}

func lineCoverageType() Type {
	return Type{
		Name:        "line_coverage",
		Description: "how much of the ground-truth line ranges (chunks) the agent read",
		Params:      LineCoverage{},
		ReadsCalls:  readsNoCalls,
		Check:       func(p any, run *Run) Outcome { return checkLineCoverage(p.(*LineCoverage), run) },
		Validate: func(p any) error {
			c := p.(*LineCoverage)
			if c.MinCoverage == nil && c.MinPrecision == nil && c.MinF1 == nil && c.MinIoU == nil {
				return errors.New("no threshold: give at least one of min_coverage, min_precision, min_f1, min_iou")
			}
			return nil
		},
	}
}

func checkLineCoverage(p *LineCoverage, run *Run) Outcome {
	if run == nil || run.Metrics == nil {
		return fail("the run was not measured")
	}
	res := run.Metrics
	ll := res.Lines
	var cs checks
	figure := func(label, name string, min *float64, detail string) {
		if min == nil {
			return
		}
		var v *float64
		if x, ok := res.Metric(name); ok {
			v = &x
		}
		c := numberCheck(label, v, min, nil, true, whyMissing(res, name))
		if v != nil {
			c.detail = detail
		}
		cs.add(c)
	}
	var gt, read, overlap int
	if ll != nil {
		gt, read, overlap = ll.GroundTruthLines, ll.LinesRead, ll.OverlapLines
	}
	figure("line coverage", "line_coverage", p.MinCoverage, fmt.Sprintf("%d of %d ground-truth lines read", overlap, gt))
	figure("line precision", "line_precision", p.MinPrecision, fmt.Sprintf("%d of %d lines read are ground-truth lines", overlap, read))
	figure("line F1", "line_f1", p.MinF1, fmt.Sprintf("%d overlapping, %d read, %d ground-truth lines", overlap, read, gt))
	figure("line IoU", "line_iou", p.MinIoU, fmt.Sprintf("%d overlapping of %d lines read or in the ground truth", overlap, read+gt-overlap))
	if ll != nil {
		for _, f := range ll.Files {
			if f.GroundTruthLines > 0 {
				cs.evidenceOf(fmt.Sprintf("%s: %d of %d ground-truth lines read", f.Path, f.OverlapLines, f.GroundTruthLines))
			}
		}
	}
	return cs.outcome()
}
