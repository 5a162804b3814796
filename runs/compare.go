package runs

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentretrieval/agentretrieval/metrics"
)

// MinMatched is the fewest matched tasks a comparison needs (the
// retrieval-eval framework's rule): with fewer, no statistic means much.
const MinMatched = 3

// ErrTooFewMatched is returned, wrapped, by Compare when fewer than
// MinMatched tasks are computable in both configurations.
var ErrTooFewMatched = errors.New("too few matched tasks")

// DefaultCompareMetrics are the metrics a comparison reports when none are
// asked for.
var DefaultCompareMetrics = []string{
	"recall@5", "precision@5", "mrr", "map", "ndcg@10", "file_recall",
	"ttfr_steps", "semantic_ratio", "steps_to_target", "total_calls",
}

// A Comparison is a matched comparison of two configurations of a run.
type Comparison struct {
	Baseline, Candidate string
	// Matched are the tasks computable in both configurations, sorted.
	Matched []string
	// OnlyBaseline and OnlyCandidate are tasks run in one configuration
	// only; NotComputable are tasks run in both but computable in at most
	// one, with the reason. They are left out of the paired figures.
	OnlyBaseline, OnlyCandidate []string
	NotComputable               map[string]string
	Metrics                     []MetricComparison
	// Correlations are Spearman's ρ of each metric with the reward, per
	// configuration (baseline first), over that configuration's
	// computable tasks with a reward.
	Correlations []Correlation
	// Models lists the models seen in each configuration; a comparison
	// across models is flagged in the report.
	Models map[string][]string
}

// A MetricComparison is one metric over the matched tasks.
type MetricComparison struct {
	Metric string
	// N is the number of matched tasks with the figure in both
	// configurations.
	N                           int
	BaselineMean, CandidateMean float64
	// Diff summarizes the paired differences candidate − baseline: its
	// mean, and the percentile-bootstrap 95% CI of the mean with a fixed
	// seed (metrics.Aggregate).
	Diff     metrics.Stats
	Wilcoxon metrics.WilcoxonResult
	Sign     metrics.SignResult
}

// A Correlation is Spearman's ρ between a metric and the reward in one
// configuration.
type Correlation struct {
	Config, Metric string
	metrics.SpearmanResult
}

// Compare matches the tasks of two configurations of a summary and
// compares each metric over the tasks that have it in both: the mean
// paired difference (candidate − baseline) with its bootstrap CI, the
// Wilcoxon signed-rank and sign tests, and per configuration the Spearman
// correlation of the metric with the verifier reward. Per-task figures are
// means over the task's computable trials (Summary's aggregation).
//
// A task is matched when it is computable in both configurations; a
// reward is not required, since the paired differences do not use it (the
// correlations use only tasks that have one). Fewer than MinMatched matched
// tasks is an error wrapping ErrTooFewMatched.
func Compare(s *Summary, baseline, candidate string, metricNames []string) (*Comparison, error) {
	bc, cc := s.Config(baseline), s.Config(candidate)
	for name, c := range map[string]*ConfigSummary{baseline: bc, candidate: cc} {
		if c == nil {
			return nil, fmt.Errorf("no configuration %q in the run (have: %s)", name, strings.Join(s.ConfigNames(), ", "))
		}
	}
	if len(metricNames) == 0 {
		metricNames = DefaultCompareMetrics
	}
	cmp := &Comparison{Baseline: baseline, Candidate: candidate, NotComputable: map[string]string{}, Models: map[string][]string{}}
	bs, cs := bc.TaskStatuses(), cc.TaskStatuses()
	for t, be := range bs {
		ce, ok := cs[t]
		switch {
		case !ok:
			cmp.OnlyBaseline = append(cmp.OnlyBaseline, t)
		case be.Status == Computable && ce.Status == Computable:
			cmp.Matched = append(cmp.Matched, t)
		case be.Status != Computable && ce.Status != Computable:
			cmp.NotComputable[t] = fmt.Sprintf("%s in %s (%s); %s in %s (%s)", be.Status, baseline, be.Reason, ce.Status, candidate, ce.Reason)
		case be.Status != Computable:
			cmp.NotComputable[t] = fmt.Sprintf("%s in %s: %s", be.Status, baseline, be.Reason)
		default:
			cmp.NotComputable[t] = fmt.Sprintf("%s in %s: %s", ce.Status, candidate, ce.Reason)
		}
	}
	for t := range cs {
		if _, ok := bs[t]; !ok {
			cmp.OnlyCandidate = append(cmp.OnlyCandidate, t)
		}
	}
	slices.Sort(cmp.Matched)
	slices.Sort(cmp.OnlyBaseline)
	slices.Sort(cmp.OnlyCandidate)
	for _, c := range []*ConfigSummary{bc, cc} {
		cmp.Models[c.Config] = c.modelNames()
	}
	if len(cmp.Matched) < MinMatched {
		return cmp, fmt.Errorf("%w: %d task(s) computable in both %s and %s, at least %d needed",
			ErrTooFewMatched, len(cmp.Matched), baseline, candidate, MinMatched)
	}

	bv, cv := bc.TaskValues(), cc.TaskValues()
	for _, m := range metricNames {
		mc := MetricComparison{Metric: m}
		var diffs, bx, cx []float64
		for _, t := range cmp.Matched {
			b, okb := bv[t][m]
			c, okc := cv[t][m]
			if okb && okc {
				bx, cx = append(bx, b), append(cx, c)
				diffs = append(diffs, c-b)
			}
		}
		mc.N = len(diffs)
		if mc.N > 0 {
			mc.BaselineMean = mean(bx)
			mc.CandidateMean = mean(cx)
			mc.Diff = metrics.Aggregate(diffs)
		}
		mc.Wilcoxon = metrics.WilcoxonSignedRank(diffs)
		mc.Sign = metrics.SignTest(diffs)
		cmp.Metrics = append(cmp.Metrics, mc)
	}
	for _, c := range []*ConfigSummary{bc, cc} {
		values, rewards := c.TaskValues(), c.TaskRewards()
		tasks := slices.Sorted(maps.Keys(values))
		for _, m := range metricNames {
			var x, y []float64
			for _, t := range tasks {
				v, ok := values[t][m]
				r, okr := rewards[t]
				if ok && okr {
					x, y = append(x, v), append(y, r)
				}
			}
			cmp.Correlations = append(cmp.Correlations, Correlation{Config: c.Config, Metric: m, SpearmanResult: metrics.Spearman(x, y)})
		}
	}
	return cmp, nil
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// ReadSummaries reads the summary of every argument (see FindSummary) and
// pools their configurations into one summary, so that configurations
// evaluated separately can be compared. A configuration name may appear
// only once among them.
func ReadSummaries(args ...string) (*Summary, error) {
	pooled := &Summary{SchemaVersion: SummarySchemaVersion, Aggregation: Aggregation}
	from := map[string]string{}
	var ids []string
	for _, a := range args {
		p, err := FindSummary(a)
		if err != nil {
			return nil, err
		}
		s, err := ReadSummary(p)
		if err != nil {
			return nil, err
		}
		ids = append(ids, s.RunID)
		for _, c := range s.Configs {
			if prev, ok := from[c.Config]; ok {
				return nil, fmt.Errorf("configuration %q is in both %s and %s; compare needs distinct configuration names", c.Config, prev, p)
			}
			from[c.Config] = p
			pooled.Configs = append(pooled.Configs, c)
		}
	}
	pooled.RunID = strings.Join(ids, "+")
	return pooled, nil
}

// FindSummary finds the summary a path names: the file itself, or in a
// folder the evaluation's output (OutDir/SummaryFile) or the folder's own
// SummaryFile.
func FindSummary(path string) (string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !info.IsDir() {
		return path, nil
	}
	for _, p := range []string{
		filepath.Join(path, OutDir, SummaryFile),
		filepath.Join(path, SummaryFile),
	} {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s has no %s (run \"retrievaltest run-dir %s\" first)", path, SummaryFile, path)
}

// PickConfigs resolves the baseline and candidate configurations among
// all. A non-empty base or cand is taken as given; otherwise the baseline
// is the only configuration whose name starts with "baseline", and the
// candidate the only other configuration, or the only other one starting
// with "mcp".
func PickConfigs(all []string, base, cand string) (string, string, error) {
	have := strings.Join(all, ", ")
	only := func(pred func(string) bool, what string) (string, error) {
		var found []string
		for _, c := range all {
			if pred(c) {
				found = append(found, c)
			}
		}
		if len(found) != 1 {
			return "", fmt.Errorf("cannot tell the %s configuration (have: %s); name it with -%s-config", what, have, what)
		}
		return found[0], nil
	}
	var err error
	if base == "" {
		if base, err = only(func(c string) bool { return strings.HasPrefix(c, "baseline") }, "baseline"); err != nil {
			return "", "", err
		}
	}
	if cand == "" {
		others := func(c string) bool { return c != base }
		if cand, err = only(others, "candidate"); err != nil {
			if cand, err = only(func(c string) bool { return c != base && strings.HasPrefix(c, "mcp") }, "candidate"); err != nil {
				return "", "", err
			}
		}
	}
	if base == cand {
		return "", "", fmt.Errorf("the baseline and candidate are both %q", base)
	}
	return base, cand, nil
}

// Unmatched lists the tasks left out of the comparison, sorted, each with
// why: "task: reason".
func (c *Comparison) Unmatched() []string {
	var out []string
	for _, t := range slices.Sorted(maps.Keys(c.NotComputable)) {
		out = append(out, t+": "+c.NotComputable[t])
	}
	for _, t := range c.OnlyBaseline {
		out = append(out, t+": only in "+c.Baseline)
	}
	for _, t := range c.OnlyCandidate {
		out = append(out, t+": only in "+c.Candidate)
	}
	return out
}
