package expectations

import (
	"errors"
	"fmt"
	"slices"

	"github.com/agentretrieval/agentretrieval/metrics"
)

// Patterns are the parameters of the patterns expectation.
type Patterns struct {
	Forbid          []string `yaml:"forbid" doc:"patterns that must not occur" enum:"fishing,guessing,direct"`
	Require         []string `yaml:"require" doc:"patterns that must occur" enum:"fishing,guessing,direct"`
	FishingMinRun   int      `yaml:"fishing_min_run" doc:"consecutive file-level calls that count as fishing (default 5)" min:"1"`
	Symbols         string   `yaml:"symbols" doc:"index symbol file for guessing, relative to the scenario file" format:"file"`
	TextSearchTools []string `yaml:"text_search_tools" doc:"tool names or globs that count as text search" format:"glob"`
}

func patternsType() Type {
	return Type{
		Name:        "patterns",
		Description: "behaviour patterns of the index-effectiveness analysis (fishing, guessing, direct) that must not or must occur, with the steps as evidence",
		Params:      Patterns{},
		ReadsCalls:  readsNoCalls,
		Check:       func(p any, run *Run) Outcome { return checkPatterns(p.(*Patterns), run) },
		Validate: func(p any) error {
			pt := p.(*Patterns)
			if len(pt.Forbid) == 0 && len(pt.Require) == 0 {
				return errors.New("no pattern: give forbid, require or both")
			}
			for _, f := range pt.Forbid {
				if slices.Contains(pt.Require, f) {
					return fmt.Errorf("%s is both forbidden and required: no run can pass", f)
				}
			}
			return nil
		},
	}
}

func checkPatterns(p *Patterns, run *Run) Outcome {
	ie, why := indexOf(run)
	if ie == nil {
		return fail("no index analysis: %s", why)
	}
	if p.FishingMinRun > 0 || p.Symbols != "" || len(p.TextSearchTools) > 0 {
		if run.Document == nil {
			return fail("the run has no retrieval-events document to analyse with the expectation's pattern options")
		}
		// The options change what counts as a pattern, so the analysis is
		// run again with them; everything else stays as measured.
		opts := run.Metrics.Options.Index
		if p.FishingMinRun > 0 {
			opts.FishingMinRun = p.FishingMinRun
		}
		if p.Symbols != "" {
			syms, err := metrics.LoadSymbols(p.Symbols)
			if err != nil {
				return fail("symbols: %v", err)
			}
			opts.Symbols = syms
		}
		if len(p.TextSearchTools) > 0 {
			opts.TextSearchTools = p.TextSearchTools
		}
		ie = metrics.AnalyzeIndex(run.Document, opts)
	}
	var cs checks
	judge := func(name string, forbidden bool) {
		occ := ie.Occurrences(name)
		var steps []int
		for _, o := range occ {
			steps = append(steps, o.Steps...)
		}
		c := check{name: name, measured: "none"}
		if len(occ) > 0 {
			c.measured = plural1(len(occ), "occurrence", "occurrences") + " at " + stepsText(steps)
			c.detail = patternDetail(occ[0])
		}
		if forbidden {
			c.threshold, c.ok = "none", len(occ) == 0
		} else {
			c.threshold, c.ok = "at least one", len(occ) > 0
		}
		cs.add(c)
	}
	for _, name := range p.Forbid {
		judge(name, true)
	}
	for _, name := range p.Require {
		judge(name, false)
	}
	// Only the patterns the expectation names are its evidence.
	cs.evidenceOf(patternEvidence(ie, slices.Concat(p.Forbid, p.Require)...)...)
	return cs.outcome()
}
