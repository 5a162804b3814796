// Package dataset writes the two evaluation datasets of finished agent
// work, as the evaluation-data pipeline defines them: Dataset A, the ranked
// file paths each case needed, and Dataset B, the ranked line ranges. It
// builds them from what a team has after a change is merged: the traces of
// the agent that made it (any format package trace reads) and the merged
// change as a unified diff.
//
// # Rows
//
// Both datasets are JSON Lines, one row per case, in two files of one
// folder (FileA and FileB):
//
//	{"caseId":"fix-auth","caseIndex":0,"query":"Token expiry is off by one",
//	 "baseCommit":"3f9c…","needsQuery":false,"needsBaseCommit":false,
//	 "filePaths":[{"path":"pkg/auth/token.go","sources":["review_merge_diff","tool_call_args"]},
//	              {"path":"pkg/auth/session.go","sources":["tool_call_result"]}]}
//
//	{"caseId":"fix-auth","caseIndex":0,…,
//	 "lineRanges":[{"path":"pkg/auth/token.go","startLine":40,"endLine":44,"sources":["golden_diff"]},
//	               {"path":"pkg/auth/token.go","startLine":1,"endLine":80,"sources":["tool_call_args"]}]}
//
// A row whose query or base commit is unknown is marked needsQuery or
// needsBaseCommit; [Validate] lists such rows (file:line and what is
// missing) and [Export] writes only the complete ones, without the markers.
//
// # Ranking and sources
//
// Golden entries come first, from the diff: the files it touches
// (review_merge_diff) and its hunks (golden_diff), read by
// groundtruth.ParseDiff, so a rename names both paths, a deletion the old
// path, and a pure-deletion hunk its old lines. Then every tool call, in
// trace order, adds the files and line ranges it named: those of its
// arguments (tool_call_args), then those of its result (tool_call_result),
// as package events extracts them ([events.ExtractOrigins]). An entry seen
// again gains the source and keeps its first place. See [Build].
//
// A read window (Sidekick's read_file_lines: a line and a window size) is
// recorded as the lines the agent saw, line ± window; the pipeline's own
// extractor halved it.
//
// # Cases, ids and commits
//
// Each session of a trace is a case; a trace holding several tasks (an
// OpenTelemetry export, an OpenHands evaluation output) gives one case per
// task, named by the task. [Write] is incremental: a case whose id a file
// already holds is skipped, new rows are appended, and each file is
// replaced atomically. The base commit is given, or derived with git from
// the commit that merged the change ([BaseCommit]: its first parent). The
// query is given, or the session's first user prompt when its trace records
// one.
//
// # As ground truth
//
// groundtruth.LoadDataset reads Dataset B (and A) rows back: the golden
// entries become the files, expected edits and line ranges of a Truth, so a
// scenario can name the Dataset B file as its ground truth and judge a new
// run of the agent against it.
package dataset
