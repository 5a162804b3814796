package expectations

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/agentretrieval/agentretrieval/metrics"
)

// Retrieval are the parameters of the retrieval expectation: bounds on any
// metric of metrics.Definitions by name ("recall@5", "read.mrr",
// "irrelevant_retrieval"), written directly under the expectation.
type Retrieval struct {
	Metrics       map[string]Bound `yaml:",inline"`
	Level         int              `yaml:"level" doc:"lowest relevance grade that counts as relevant (trec_eval -l)" min:"1"`
	IncludeWrites bool             `yaml:"include_writes" doc:"rank files the agent only wrote"`
}

func retrievalType() Type {
	return Type{
		Name:        "retrieval",
		Description: "bounds on retrieval metrics by name (recall@5, read.mrr, ndcg@10, …; see metrics.Definitions), written directly under the expectation as {min, max}",
		Params:      Retrieval{},
		ReadsCalls:  readsNoCalls,
		Check:       func(p any, run *Run) Outcome { return checkRetrieval(p.(*Retrieval), run) },
		InlineKey:   metricKey,
		Validate: func(p any) error {
			r := p.(*Retrieval)
			if len(r.Metrics) == 0 {
				return errors.New("no metric: give at least one, such as recall@5: {min: 0.8}")
			}
			for _, name := range slices.Sorted(maps.Keys(r.Metrics)) {
				b := r.Metrics[name]
				switch {
				case b.Min == nil && b.Max == nil:
					return fmt.Errorf("%s: give min, max or both", name)
				case b.Min != nil && b.Max != nil && *b.Min > *b.Max:
					return fmt.Errorf("%s: min %s is above max %s: no figure can pass", name, formatNumber(*b.Min), formatNumber(*b.Max))
				}
			}
			return nil
		},
	}
}

// metricKey accepts the metric names of metrics.Define; bounded metrics
// take ratio bounds.
func metricKey(key string) (bool, error) {
	if d, ok := metrics.Define(key); ok {
		return d.Bounded, nil
	}
	if s := closest(key, metricCandidates(key)); s != "" {
		return false, fmt.Errorf("unknown metric %s in retrieval; did you mean %s?", quoteKey(key), s)
	}
	var names []string
	for _, d := range metrics.Definitions() {
		names = append(names, d.Name)
	}
	return false, fmt.Errorf("unknown metric %s in retrieval (metrics: %s; \"read.\" before a name of a ranked measure selects the read view, and k is a cutoff such as 5)", quoteKey(key), strings.Join(names, ", "))
}

// metricCandidates spells every metric name the way key is spelled: with
// its cutoff and view, so that "read.recal@20" is near "read.recall@20".
func metricCandidates(key string) []string {
	k := "5"
	if i := strings.LastIndexByte(key, '@'); i >= 0 {
		if _, err := strconv.Atoi(key[i+1:]); err == nil {
			k = key[i+1:]
		}
	}
	var out []string
	for _, d := range metrics.Definitions() {
		name := strings.Replace(d.Name, "@k", "@"+k, 1)
		out = append(out, name)
		if d.Views {
			out = append(out, "read."+name)
		}
	}
	return out
}

func checkRetrieval(p *Retrieval, run *Run) Outcome {
	if run == nil || run.Metrics == nil {
		return fail("the run was not measured")
	}
	res := recompute(run, p)
	var cs checks
	for _, name := range slices.Sorted(maps.Keys(p.Metrics)) {
		b := p.Metrics[name]
		d, _ := metrics.Define(name)
		var v *float64
		if x, ok := res.Metric(name); ok {
			v = &x
		}
		c := numberCheck(name, v, b.Min, b.Max, d.Bounded, whyMissing(res, name))
		if v != nil {
			c.detail = rankDetail(res, name)
		}
		cs.add(c)
	}
	return cs.outcome()
}

// recompute measures the run again when the expectation asks for a level,
// a cutoff or a treatment of writes that the run was not measured with.
// metrics.Compute is pure, so this is the same figure a caller with those
// options would get.
func recompute(run *Run, p *Retrieval) *metrics.Result {
	res := run.Metrics
	o := res.Options
	changed := false
	if p.Level > 0 && p.Level != o.Level {
		o.Level, changed = p.Level, true
	}
	if p.IncludeWrites != o.IncludeWrites {
		o.IncludeWrites, changed = p.IncludeWrites, true
	}
	ks, budgets := slices.Clone(o.Ks), slices.Clone(o.LineBudgets)
	for name := range p.Metrics {
		if i := strings.LastIndexByte(name, '@'); i >= 0 {
			k, err := strconv.Atoi(name[i+1:])
			switch {
			case err != nil:
			case strings.HasPrefix(name, "line_recall@"):
				// A budget in lines, not a rank cutoff.
				if !slices.Contains(budgets, k) {
					budgets, changed = append(budgets, k), true
				}
			case !slices.Contains(ks, k):
				ks, changed = append(ks, k), true
			}
		}
	}
	if !changed || run.Document == nil {
		return res
	}
	slices.Sort(ks)
	o.Ks = ks
	o.LineBudgets = budgets
	// The run's grades live in its judgments once defaults are filled in.
	o.Grades = maps.Clone(res.Judgments)
	return metrics.Compute(run.Document, o)
}

// whyMissing says why a result has no figure under name.
func whyMissing(res *metrics.Result, name string) string {
	if _, ok := metrics.Define(name); !ok {
		return "unknown metric"
	}
	base, read := strings.CutPrefix(name, "read.")
	isIndex := slices.Contains(metrics.IndexFigures, base)
	if !res.Computable && !isIndex {
		reason := "no ground truth"
		if res.NonComputableReason != nil {
			reason = *res.NonComputableReason
		}
		return "not computable: " + reason
	}
	view := metrics.Surfaced
	if read {
		view = metrics.Read
	}
	switch {
	case isIndex:
		if res.IndexEffectiveness == nil {
			return "the trace has no usable tool calls"
		}
		if base == "steps_to_target" && res.IndexEffectiveness.StepsToTargetReason != "" {
			return res.IndexEffectiveness.StepsToTargetReason
		}
		return "null for this trace: " + metricDefinition(base)
	case strings.HasPrefix(base, "line_"), base == "chunk_recall":
		if res.Lines != nil && res.Lines.Reason != "" {
			return res.Lines.Reason
		}
	case base == "symbol_recall", strings.HasPrefix(base, "symbol_acc@"):
		if res.Symbols != nil && res.Symbols.Reason != "" {
			return res.Symbols.Reason
		}
	case strings.HasPrefix(base, "coverage_auc"):
		if res.CoverageOverTime != nil && res.CoverageOverTime.Reason != "" {
			return res.CoverageOverTime.Reason
		}
	case strings.HasPrefix(base, "ttfr_"), strings.HasPrefix(base, "ttar_"):
		if res.Time != nil {
			m := res.Time.View(view).First
			if strings.HasPrefix(base, "ttar_") {
				m = res.Time.View(view).All
			}
			if m.Reason != "" {
				return m.Reason
			}
		}
	case strings.HasPrefix(base, "util_"), base == "evidence_drop":
		if res.Utilization != nil && res.Utilization.Reason != "" {
			return res.Utilization.Reason
		}
	}
	return "null for this trace: " + metricDefinition(base)
}

func metricDefinition(name string) string {
	if d, ok := metrics.Define(name); ok {
		return d.Definition
	}
	return name
}

// rankDetail explains a ranked file measure by where the relevant files
// are in its list: "relevant: pkg/a.go at rank 3, pkg/b.go not surfaced".
func rankDetail(res *metrics.Result, name string) string {
	base, read := strings.CutPrefix(name, "read.")
	if _, ok := res.FileLevel[base]; !ok || len(res.Relevant) == 0 {
		return ""
	}
	view, missed := metrics.Surfaced, "not surfaced"
	if read {
		view, missed = metrics.Read, "not read"
	}
	list := res.Ranked.List(view)
	var parts []string
	for _, f := range res.Relevant {
		if i := slices.Index(list, f); i >= 0 {
			parts = append(parts, fmt.Sprintf("%s at rank %d", f, i+1))
		} else {
			parts = append(parts, f+" "+missed)
		}
	}
	const most = 5
	if len(parts) > most {
		parts = append(parts[:most], fmt.Sprintf("%d more", len(parts)-most))
	}
	return "relevant: " + strings.Join(parts, ", ")
}
