package history

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/agentretrieval/agentretrieval/metrics"
	"github.com/agentretrieval/agentretrieval/runs"
)

// A Config is one configuration of an evaluated benchmark run: what
// run-dir and merge summarize of it (runs.ConfigSummary).
type Config struct {
	Name string
	// Trials and Tasks are its trials and distinct tasks; Computable,
	// NonComputable, Degraded and Failed count the trials of each status.
	Trials, Tasks                               int
	Computable, NonComputable, Degraded, Failed int
	// Figures are the statistics over tasks of each figure, with its
	// interval, and of the verifier's reward under RewardFigure.
	Figures map[string]metrics.Stats
}

// RewardFigure is the name under which a configuration's reward
// statistics are recorded beside its retrieval figures.
const RewardFigure = "reward"

// Configs turns a run summary into the configurations of a run: counts,
// and statistics per figure (the reward's as RewardFigure).
func Configs(s *runs.Summary) []Config {
	out := make([]Config, 0, len(s.Configs))
	for _, c := range s.Configs {
		cf := Config{
			Name: c.Config, Trials: c.Trials, Tasks: c.Tasks,
			Computable: c.Computable.Count, NonComputable: c.NonComputable.Count, Degraded: c.Degraded.Count,
			Figures: maps.Clone(c.Metrics),
		}
		if c.Failed != nil {
			cf.Failed = c.Failed.Count
		}
		if cf.Figures == nil {
			cf.Figures = map[string]metrics.Stats{}
		}
		if c.Reward != nil {
			cf.Figures[RewardFigure] = *c.Reward
		}
		out = append(out, cf)
	}
	return out
}

// checkConfigs refuses what the history cannot hold: a configuration
// without a name or twice, and a figure whose statistics are not finite.
func checkConfigs(configs []Config) error {
	seen := map[string]bool{}
	for i, c := range configs {
		if c.Name == "" {
			return fmt.Errorf("configuration %d has no name", i+1)
		}
		if seen[c.Name] {
			return fmt.Errorf("configuration %q twice", c.Name)
		}
		seen[c.Name] = true
		for _, f := range slices.Sorted(maps.Keys(c.Figures)) {
			st := c.Figures[f]
			for _, v := range []float64{st.Mean, st.Median, st.Std, st.CILow, st.CIHigh, deref(st.WilsonLow), deref(st.WilsonHigh)} {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("configuration %s: figure %s has a statistic of %v, which the history cannot hold", c.Name, f, v)
				}
			}
		}
	}
	return nil
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// recordConfigs writes a run's configurations inside Record's
// transaction, replacing those of the same names.
func (s *Store) recordConfigs(ctx context.Context, tx *sql.Tx, runID int64, configs []Config) error {
	if len(configs) == 0 {
		return nil
	}
	names := make([]any, len(configs))
	for i, c := range configs {
		names[i] = c.Name
	}
	// Configurations are few (a handful per run): no need to chunk.
	if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM configs WHERE run_id = ? AND name IN (`+placeholders(len(names))+`)`),
		append([]any{runID}, names...)...); err != nil {
		return err
	}
	for _, c := range configs {
		var id int64
		err := tx.QueryRowContext(ctx, s.q(`INSERT INTO configs (run_id, name, trials, tasks, computable, non_computable, degraded, failed)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`),
			runID, c.Name, c.Trials, c.Tasks, c.Computable, c.NonComputable, c.Degraded, c.Failed).Scan(&id)
		if err != nil {
			return err
		}
		// A configuration's figures go in one statement (a few hundred
		// at most: the metrics' names), in parts that stay well under
		// SQLite's limit of 32,766 arguments.
		for part := range slices.Chunk(slices.Sorted(maps.Keys(c.Figures)), 1000) {
			var args []any
			for _, f := range part {
				st := c.Figures[f]
				args = append(args, id, f, st.N, st.Mean, st.Median, st.Std, st.CILow, st.CIHigh, nullable(st.WilsonLow), nullable(st.WilsonHigh))
			}
			if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO config_figures (config_id, figure, n, mean, median, std, ci_low, ci_high,
				wilson_low, wilson_high) VALUES `+tuples(len(part), 10)), args...); err != nil {
				return err
			}
		}
	}
	return nil
}

func nullable(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
