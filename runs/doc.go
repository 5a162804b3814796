// Package runs evaluates benchmark run folders: it walks the trials of a
// run laid out the way Harbor writes it, merges each trial's traces, finds
// its task's ground truth, writes per-trial artifacts and a run summary
// with statistics over tasks, and compares two configurations of a run.
//
// # Run folders
//
//	RUN/<config>/<batch>/<task>__<id>/result.json
//	                                  agent/trajectory.json   (ATIF)
//	                                  agent/claude-code.txt   (Claude Code stream-json)
//
// Configurations are the folders of RUN (baseline-…, mcp-…), batches the
// folders of a configuration (a timestamp or a job name); a trial folder
// is one with an agent/ folder, or a result.json naming a task or trial
// (a batch's job-level result.json does not). The task name and the
// verifier reward come from result.json (task_name,
// verifier_result.rewards.reward or verifier_result.reward); without it,
// from the folder name. Walk lists the trials.
//
// # Evaluation
//
// Evaluate measures every trial. When a trial has both traces they are
// merged (trace source "merged", MergeSessions): the trajectory gives the
// calls, arguments, timestamps and tokens, the transcript the result text
// and the subagent markers, joined on the call index. If the two disagree
// on the number of calls or on a tool name, the trajectory alone is used
// and a warning names the trial. A trace file that holds several sessions
// gives the one named by Options.Trace.SessionID, else the one whose task
// is the trial's (by Session.Task or Session.ID).
//
// The ground truth of a task is the task folder
// Options.GroundTruthRoot/<task> (groundtruth.Load). Without it the task
// is non-computable; without a usable trace it is degraded. Both are
// named in the summary, never scored.
//
// # Artifacts
//
// Evaluate writes beside the run, never inside a trial folder (by default
// into RUN/retrieval_events, OutDir):
//
//	<out>/run_retrieval_summary.json            Summary: statistics, counts, names
//	<out>/run_retrieval_trials.parquet          the entries, one row each (TrialsFile)
//	<out>/<config>/<task>.retrieval_events.json   events.Document (WriteTaskEvents)
//	<out>/<config>/<task>.retrieval_metrics.json  metrics.Result (WriteTaskMetrics)
//
// A task run more than once in one configuration keeps every trial, as
// <task>__<id>.retrieval_*.json. Artifact names are unique within a
// configuration by construction, and checked before anything is written:
// task names that map to the same file name ("fix/auth" and "fix_auth"),
// or differ only in case, get "~2", "~3"… in trial order; control
// characters become "_" and long names are cut. Every file is replaced
// atomically (a temporary file in the same folder, synced, then renamed;
// Evaluate syncs and renames all artifacts together after the last
// trial); an artifact that is a symbolic link is refused, not written
// through.
//
// The output folder is checked with symbolic links resolved: given inside
// the run (the default), it must resolve inside it, directly under the
// run folder; each configuration's folder in it must resolve inside it.
//
// # Failed trials
//
// A trial that cannot be evaluated, because its result.json exists but
// cannot be read (not a regular file, larger than MaxResultSize, an I/O
// error) or an artifact cannot be written, is an entry of status failed
// in the summary, with the reason; the other trials are evaluated, the
// summary is written, and Evaluate returns it with an error naming every
// failed trial. A malformed result.json is only a warning: the task name
// comes from the folder name.
//
// # Symbolic links
//
// Walk follows symbolic links to configuration, batch and trial folders.
// A link that leads back to the run folder or to a folder the walk is
// inside is a loop: it is skipped with a warning (Options.Warn with a nil
// trial).
//
// The summary is written from a temporary file that holds the entries in
// binary as the trials finish, so that a merge holds about a hundred bytes
// per trial (its path and its place in that file) and Evaluate about three
// hundred (its Trial, whose Rel, Folder, Task and Name share the bytes of
// its Dir where they can, and its place in that file; the warnings of the
// few trials that have any), with the figures the bootstrap needs, not the
// entries (Options.SummaryValues and SummaryWithoutEntries say what the
// returned summary keeps).
//
// The summary has, per configuration, the counts and names of computable,
// non-computable and degraded trials, and per metric the mean, median,
// standard deviation, n and bootstrap 95% CI over tasks: a task's trials
// are averaged first, so that a task run five times weighs as much as a
// task run once (Aggregation). Since schema 2.0 (SummarySchemaVersion) the
// entries are not in it: TrialsFile, the Parquet table beside it that
// "trials_table" names, holds them, one row per trial in the order 1.x
// listed them, one column per field, the warnings as a list, and one
// double column per figure (null where the trial has none), for DuckDB,
// pandas, Polars or Spark to read directly. ReadSummary reads both
// layouts, filling each configuration's Entries from the table for 2.x,
// and rejects another major version; Summarize builds a summary that
// holds its entries (1.1, InlineSummarySchemaVersion), which WriteSummary
// writes as it is.
//
// # Shards
//
// A run too large for one machine is cut into N shards that separate
// processes evaluate (a Kubernetes Indexed Job, a CI matrix, a Slurm
// array): EvaluateShard evaluates shard K, the trials whose path in the
// run hashes to it (ShardOf: FNV-1a 64 of Trial.Rel, mod N, the same on
// every machine), writes their artifacts and the partial summary
// run_retrieval_summary.shard-K-of-N.json (ShardSummary: the run id, a
// digest of the run's trial list, of the settings and of the ground
// truth, and a digest of the file itself) with, beside it, every trial's
// entry and coverage curve in binary, run_retrieval_summary.shard-K-of-N.trials
// (Shard.TrialsFileName; its SHA-256 is in the shard summary), which a
// merge reads without decoding JSON. MergeShards, or
// MergeShardFiles from the files, checks that every shard is there once,
// unedited (ReadShardSummary checks the digest), and of one run evaluated
// with one set of settings and ground truth, and computes the run summary
// from the trials' figures: the one Evaluate writes for the whole run,
// byte for byte. ParseShard reads "K/N", ShardFromEnv the batch engines'
// variables.
//
// WritePlan lists a run once and writes a plan of its shards (a header,
// then each shard's trials, one JSON line each); a shard given its part
// (ReadPlanPart, Options.Plan) neither walks the run nor reads other
// shards' result.json files or ground truth. MergeShardFilesWith reads
// the shard summaries one trial at a time and copies no artifact: the
// merged summary names them where the shards wrote them.
//
// # Comparisons
//
// Compare matches the tasks computable in two configurations of a summary
// (at least MinMatched) and gives, per metric, the mean paired difference
// with a seeded bootstrap CI, the exact Wilcoxon signed-rank and sign
// tests, and Spearman's ρ of the metric with the reward in each
// configuration. These are associations, not causes. ReadSummaries pools
// the configurations of several summaries; PickConfigs tells the baseline
// from the candidate by name. Package report renders summaries and
// comparisons as markdown.
package runs
