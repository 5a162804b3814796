// Package expectations holds the scenario file format, the registry of
// expectation types, and the judgments of the gate: whether the runs of a
// task met what their scenario expects of their retrieval.
//
// A scenario file names the trace of a run (or the traces of repeated runs
// of one task), the task's ground truth, how to classify the agent's tools,
// and a list of expectations. Load reads and validates it, reporting every
// problem of the file at once, each at file:line:col; Evaluate measures the
// traces (trace → events → metrics) and checks every expectation on every
// run; the packages retrievaltest and report and the retrievaltest command
// turn the results into test failures, tables and exit codes.
//
// # A scenario file
//
//	# scenarios/fix-token-expiry.yaml
//	name: fix-token-expiry
//	description: The agent fixes token expiry and should find token.go through the index.
//	traces:                      # or trace: one file
//	  - runs/fix-token-expiry-*.claude.jsonl
//	format: claude-code          # default: detected from the file
//	profile: [claude-code, sourcegraph-mcp]
//	taxonomy: tools.yaml         # rules that override the profiles
//	ground_truth:
//	  files:
//	    - {path: pkg/auth/token.go, grade: 2}
//	    - pkg/auth/errors.go
//	  symbols:
//	    - {file: pkg/auth/token.go, symbol: ValidateToken}
//	  expected_edit_files: [pkg/auth/token.go]
//	  chunks:
//	    - {path: pkg/auth/token.go, start: 41, end: 50}
//	symbols: index.tags          # identifiers the index knows (one a line, or ctags)
//	runs:
//	  min_pass_rate: 0.8         # or at_least: 4, {k: 3, min_pass_at_k: 0.9}, {k: 3, min_pass_hat_k: 0.5},
//	                             # min_wilson_low: 0.6; default: every run must pass
//	tags: [auth, calibration]
//	expectations:
//	  - type: index_usage
//	    description: Agent should use semantic tools for discovery
//	    min_aura_tool_ratio: 0.6   # alias of min_semantic_ratio
//	    max_steps_to_target: 3
//	  - type: retrieval
//	    recall@5: {min: 0.8}
//	    read.mrr: {min: 0.5}
//	    irrelevant_retrieval: {max: 4}
//	  - type: line_coverage
//	    min_coverage: 0.7
//	  - type: patterns
//	    forbid: [fishing, guessing]
//	    require: [direct]
//	    fishing_min_run: 4
//	  - type: tools
//	    must_call: ["mcp__sourcegraph__*"]
//	    must_not_call: [WebFetch]
//	    calls: {Grep: {max: 2}}
//	    max_calls: 40
//	  - type: utilization
//	    min_read_before_write_ratio: 1
//	  - type: budget
//	    max_calls_before_first_relevant: 5
//	    max_total_tokens: 200000
//	  - type: answer
//	    flaky: true                # reported, never failing
//	    required: [ErrExpired, token.go]
//	    incorrect: [ErrInvalid]
//	  - type: sequence
//	    calls: ["class:semantic", {category: file_read, args: {file_path: "**/auth/*.go"}}, Edit]
//	  - type: before
//	    first: "category:file_read"
//	    then: "class:edit"
//	    same_file: true
//	  - type: errors
//	    max_retries: 1
//
// # Scenario keys
//
// Keys are snake_case. A key this package does not know is an error, with
// the nearest known key suggested: the harness this format replaces
// silently dropped a misspelt threshold, and no threshold ever applied.
//
//	name          string; default: the file name without its extension.
//	description   string.
//	trace         one trace file, or an http:// or https:// URL that serves
//	              one (read when the scenario is measured; see
//	              trace.ReadFile).
//	traces        trace files, URLs or globs (path/filepath.Match syntax),
//	              the runs of one task; expanded, de-duplicated and sorted. A
//	              glob that matches no file is an error. Give trace or
//	              traces, not both.
//	trace_id      the session to judge when a trace file holds several (an
//	              OpenTelemetry trace id, an OpenHands evaluation
//	              instance_id); without it such a file is an error that
//	              lists its sessions.
//	cwd           the agent's working directory, an absolute path. Paths
//	              below it, in the traces and in the ground truth, are made
//	              relative to it, so that ground_truth: [src/app.py]
//	              matches /root/src/app.py with cwd: /root. Default: the
//	              one each trace records (Codex and OpenHands do, Gemini
//	              CLI does not); set it when the trace records none.
//	format        trace format, one of trace.DefaultRegistry().Names();
//	              default: detected from each file.
//	profile       taxonomy profile or list of profiles (events.ProfileNames);
//	              default: all built-in profiles.
//	taxonomy      a taxonomy file (see package events) whose rules come
//	              before the profiles'.
//	ground_truth  the right answer, inline or loaded; see below.
//	symbols       index symbol file (metrics.LoadSymbols): identifiers the
//	              index knows, for the guessing pattern.
//	expectations  the list of expectations; at least one.
//	runs          min_pass_rate (in [0, 1]), at_least (≥ 1, and at most
//	              the number of traces), min_pass_at_k or min_pass_hat_k
//	              (in [0, 1]) with k (at most the number of traces), or
//	              min_wilson_low (in [0, 1]); see Runs below.
//	tags          list of strings, for selecting scenarios.
//	run           a command to record and then judge, instead of trace or
//	              traces: a command line (run by sh -c; cmd /C on Windows)
//	              or a list of the program and its arguments. Evaluate runs
//	              it in the scenario's folder with the exporter variables
//	              of an OTLP receiver on loopback (EvalOptions.Recorder,
//	              collect.Record in the command); each trace it exports is
//	              a run. A command that exits non-zero or exports nothing
//	              is an error. Without run, nothing is ever executed.
//
// Every path is relative to the scenario file's folder (an absolute path
// stays as written), and every named file must exist when the file is
// loaded: a taxonomy or symbol file is also read then, so its errors show
// up with the scenario's.
//
// # Ground truth
//
// ground_truth takes one of three forms:
//
//	ground_truth: [pkg/auth/token.go, pkg/auth/errors.go]    # a list of paths
//
//	ground_truth:                                            # the ground-truth file format
//	  files: [{path: pkg/auth/token.go, grade: 2}]           # (files, symbols,
//	  expected_edit_files: [pkg/auth/token.go]               # expected_edit_files, chunks)
//
//	ground_truth: {from: tasks/fix-token-expiry}             # a file, task folder, unified
//	                                                         # diff, SWE-bench instance or
//	                                                         # dataset rows of one case
//
// The inline forms are those of groundtruth.Parse, checked as strictly, with
// errors at their line in the scenario file. from is read by
// groundtruth.Load, which picks the loader from what the path is; a task
// folder without ground truth is an error, since the scenario said there
// would be one. Without ground_truth, every figure that needs it is
// non-computable, and an expectation on such a figure fails (see Judging).
//
// # Expectations
//
// Every expectation has a type and may have a description and flaky (true:
// the outcome is reported and never fails the scenario; for a check still
// being calibrated). The other keys are the type's, taken from its Params
// struct (see Type), checked as strictly as the scenario's: unknown keys,
// wrong types, numbers out of range, unknown enum values and malformed
// regular expressions or globs are errors. A threshold key that is
// absent is not checked; an expectation that sets no threshold at all is an
// error, since it could never fail. Thresholds are inclusive.
//
// index_usage (IndexUsage) — how much the agent used the semantic index,
// from metrics.AnalyzeIndex. The key spellings of the index-effectiveness
// plan are accepted: min_aura_tool_ratio is an alias of min_semantic_ratio
// (giving both is an error).
//
//	min_semantic_ratio            ratio; semantic / (semantic + file-level) calls
//	min_semantic_ratio_all_calls  ratio; semantic / all calls
//	max_steps_to_target           ≥ 1; the 1-based number of the first call that
//	                              touches a ground-truth file (without ground
//	                              truth: the first edit)
//	min_grade                     poor, fair, good or excellent (by semantic ratio:
//	                              excellent ≥ 0.70, good ≥ 0.60, fair ≥ 0.40)
//
// retrieval (Retrieval) — bounds on any metric of metrics.Definitions, the
// metric name as the key and {min, max} as the value (one or both). Names
// take a cutoff for the @k measures (recall@5, ndcg@10, precision@20: any
// cutoff is computed) and the prefix "read." for the read view (read.mrr).
// Bounds of metrics in [0, 1] must be ratios. An unknown name is an error
// with the nearest name suggested.
//
//	<metric>        {min: number, max: number}
//	level           ≥ 1; lowest relevance grade that counts as relevant
//	                (trec_eval -l; default 1)
//	include_writes  true: rank files the agent only wrote, too
//
// line_coverage (LineCoverage) — the ground truth's line ranges (chunks)
// against the lines the agent read: min_coverage, min_precision, min_f1,
// min_iou, each a ratio. Without chunks the figures are non-computable.
//
// patterns (Patterns) — behaviour patterns of the index analysis. forbid
// lists patterns that must not occur, require patterns that must (fishing,
// guessing, direct; a pattern in both is an error). The options re-run the
// analysis with: fishing_min_run (≥ 1, consecutive file-level calls that
// count as fishing; default 5), symbols (an index symbol file for
// guessing; default the scenario's symbols), text_search_tools (tool names
// or globs that count as text search). The evidence lists every
// occurrence with its step indices.
//
// tools (Tools) — tool calls by raw tool name, matched with path.Match
// globs ("mcp__sourcegraph__*"): must_call (each glob called at least
// once), must_not_call (never called), calls (a glob to {min, max} call
// counts), max_calls (all calls). Subagent calls count.
//
// utilization (Utilization) — whether the agent used what it retrieved:
// min_read_overlap (relevant files read / relevant files),
// min_write_overlap_expected_edit (expected edit files written / expected
// edit files), min_read_before_write_ratio (written files read before the
// write / written files; non-computable when nothing was written).
//
// budget (Budget) — the cost of reaching the first relevant file in the
// surfaced view (the first call that names a relevant file, in its
// arguments or results) and of the whole run: max_calls_before_first_relevant
// (calls before that call), max_tokens_before_first_relevant (cumulative
// tokens at that call), max_seconds_before_first_relevant (seconds from
// the start of the run to that call), max_total_calls, max_total_tokens
// (the session's token total; for a trace that records only cumulative
// tokens per call, the count at its last call, which leaves out the turns
// after it). A file never reached, or a trace without tokens or
// timestamps, has no figure.
//
// answer (Answer) — correct-first grading of the agent's final answer
// (trace.Session.Answer). The answer is correct when every keyword of
// required appears, or every keyword of one set of paraphrases does
// (case-insensitive substrings). incorrect patterns fail the answer only
// when it is not correct: "the budget rose from $1.2M to $1.4M" is correct
// for required [$1.4M] even with incorrect [$1.2M]: an answer is not
// correct for naming one required keyword, nor wrong for also naming a
// historical value. min_score, a ratio,
// passes an answer that is not correct when that share of required
// keywords appears and no incorrect pattern does. entities lists IDs the
// answer must name; they are extracted with entity_patterns (regular
// expressions; default \b[A-Z][A-Z0-9]*-\d+(?:-\d+)*\b, which finds
// INC-2024-089 and CVE-2024-12345) and compared exactly, so INC-2024-08
// does not match inside INC-2024-089.
//
// sequence (Sequence) — the order and arguments of the calls against an
// expected list, calls, of call patterns (below), in a mode: in_order
// (the calls appear in this order, other calls between them allowed;
// default), exact (the trace is these calls and nothing else, in order),
// unordered (the trace is these calls in any order), subset (every call of
// the trace matches one of them) or superset (each appears, in any order,
// other calls allowed). min and max bound the calls that match one
// expected call: by default at least 1; at most max(min, 1) in exact and
// unordered modes; min 0 in subset mode. In the ordered modes an expected
// call collects the calls that match it until a call matches the next
// one (once min is met), a call matching neither is a gap (in_order) or
// stops the match (exact); in the other modes a call counts for every
// expected call it matches. The evidence lists the steps each expected
// call matched, and a failure names the step where matching stopped and
// the expected call it was waiting for.
//
// A call pattern matches a call when every key given matches: tool (a
// name or path.Match glob), class (semantic, file_level, edit, other) and
// category (file_read, file_search, symbol_navigation, code_search,
// commit_search, deep_search, file_write, other) as the taxonomy gave
// them, and args. Written as a plain string it is the tool, or
// class:NAME or category:NAME: "class:semantic". args maps argument names
// to matchers: a string is a glob the whole value must match (* within a
// folder, ** across any number of folders, none included; a value without
// wildcards must be equal), {regex: RE} must find a match in the value,
// {glob, regex} both. A string argument that names a file is also
// compared after path normalization (see package events), so
// "**/checkout/*.go" matches /repo/services/checkout/discount.go; numbers
// and booleans compare by their text, a list matches when any item does,
// an object by its JSON text. match says how args apply: partial (the
// listed arguments match; default), exact (and the call has no other
// argument), ignore (arguments are not looked at). An empty pattern is an
// error: it would match every call.
//
// before (Before) — first and then, two call patterns: in mode first
// (default) both occur and the first call matching first precedes the
// first call matching then; in mode every, every then call has a first
// call before it, which is to say no then call before the first first
// call (a run without then calls passes). same_file: true (with mode
// every or no mode) judges each file apart: every then call that names a
// file needs an earlier first call that names one of the same files ("no
// edit before the first read of that file"); a call that creates a file
// counts too, so narrow then (then: Edit) where new files are expected.
// min and max are errors here.
//
// errors (CallErrors) — the calls the trace marks as failed: max_failed
// (in all), failed (a tool name or glob to {min, max}), failed_by_class
// (a class to {min, max}), max_retries (a retry loop is the same call,
// same tool and same arguments as canonical JSON, failing several times
// in a row; max_retries N allows N repeats after its first failure).
//
// answer also accepts the grading rubric's key names: correct_keywords
// for required, acceptable_paraphrases for paraphrases (each a keyword
// set) and incorrect_patterns for incorrect; giving both spellings of one
// key is an error.
//
// An expectation key whose value is a mapping with a shorthand field (a
// call pattern's tool, an argument matcher's glob) may be written as that
// plain value; the JSON Schema says so with anyOf.
//
// # Judging
//
// Each expectation is checked on each run, and returns an Outcome: pass or
// fail, the measured value, the threshold, the evidence (step indices,
// files) and one sentence for people:
//
//	semantic ratio measured 0.45, required ≥ 0.60 (9 semantic of 20 semantic +
//	file-level calls; fishing at steps 1–5)
//
// Messages, evidence and reports number steps from 1: step N is the N-th
// tool call of the trace (subagent calls included), the event whose
// step_index in the retrieval-events document is N-1, and a steps-to-target
// figure of N names that same step. "steps 1–5" are five calls in a row;
// "steps 2–3, 8" are calls with others between them. A figure that does not
// exist for the run — non-computable because the task has no ground truth,
// or null because the trace does not record it (no timestamps, nothing
// written, no chunks) — makes its check fail, with the reason in the
// message ("recall@5 has no figure (not computable: no ground-truth
// file), required ≥ 0.80"). It never passes by default, because a gate that
// passes without a measurement would pass every broken pipeline, and it is
// never scored 0, because 0 would claim a measurement that was not made.
// Where a missing figure is acceptable, leave the threshold out, or mark
// the expectation flaky while the data is incomplete.
//
// # Runs
//
// With several traces, the per-run outcomes combine by the runs rule:
// every run must pass by default; min_pass_rate r needs ⌈r·n⌉ of n runs;
// at_least k needs k runs. The estimator rules judge the c passes of n
// runs by metrics.PassAtK (min_pass_at_k with k: 1 − C(n−c,k)/C(n,k), the
// chance that one of k runs drawn passes), metrics.PassHatK
// (min_pass_hat_k: C(c,k)/C(n,k), all k pass) or the lower bound of the
// 95% Wilson score interval of c/n (min_wilson_low), which asks for a
// pass rate that holds with confidence rather than on the runs at hand.
// Result.PassRate holds the pass rate, its Wilson interval, and pass@k
// and pass^k at every k, and the last evidence line words them. The
// Result keeps every run's outcome. An
// expectation marked flaky is reported with its status and never fails the
// scenario (Result.Failed). A scenario with no trace at all fails every
// expectation that is judged from a trace.
//
// # The harness's scenario files
//
// Anvil, the test harness that ran scenarios live against the Aura agent,
// wrote scenario files such as
//
//	name: add-user-validation
//	description: Add validation attributes to the User model
//	language: csharp
//	repository: c:/projects/my-app
//	executor: internal
//	timeoutSeconds: 600
//	story:
//	  title: Add User Model Validation
//	  description: Add [Required] and [EmailAddress] to src/Models/User.cs.
//	expectations:
//	  - type: compiles
//	    description: Changes should compile
//	  - type: file_contains
//	    path: src/Models/User.cs
//	    pattern: '\[Required\]'
//	  - type: index_usage
//	    min_aura_tool_ratio: 0.6
//	    max_steps_to_target: 3
//	tags: [validation]
//
// Such files load unchanged. Its top-level keys (story, repository,
// executor, timeoutSeconds, language, setup, prompt, steps, model, agent)
// keep their spelling and are kept in Scenario.Harness without being
// interpreted; a file with any of them may omit trace until a trace is
// recorded. Its expectation types that need the worktree of a live run
// (compiles, tests_pass, file_exists, file_contains, file_not_contains,
// build_succeeds, command_succeeds) are validated like any other and
// reported as skipped, with the reason, never failed and never dropped.
//
// # Errors
//
// Load reports every problem of a file together, as Errors, one
// *yamlerr.Error each, in file order:
//
//	scenarios/fix-bug.yaml:9:5: unknown key "min_aura_tool_raito" in index_usage; did you mean min_aura_tool_ratio?
//	scenarios/fix-bug.yaml:12:26: min_aura_tool_ratio: 6 is out of range [0, 1] (a ratio: did you mean 0.6, or 0.06 for 6%?)
//	scenarios/fix-bug.yaml:14:13: unknown expectation type "index_usgae"; did you mean index_usage?
//	scenarios/fix-bug.yaml:3:3: traces[0]: scenarios/runs/*.json matches no file
//
// Anchors, aliases and merge keys ("<<: *base") may share keys between
// expectations. A file of more than 100,000 YAML tokens (a word, a number
// or a path counts one, and so does each bracket, comma, colon or other
// mark; real scenarios hold hundreds), whose collections nest deeper than
// 1000 levels, whose aliases would expand to more than a million nodes,
// that merges a mapping into itself, defines an anchor name twice or uses an
// alias before its anchor is refused with one error at the place, before
// anything else is checked. A byte-order mark at the start of the file is
// skipped.
//
// # Types of your own
//
// An expectation type is a name, a parameter struct whose tags define its
// keys, and a check function; a Registry holds them. RegisterFunc registers
// one with a typed check:
//
//	type MaxEdits struct {
//		Max *int `yaml:"max" doc:"most edit calls" min:"0"`
//	}
//	reg := expectations.DefaultRegistry()
//	err := expectations.RegisterFunc(reg, "max_edits", "edit calls are few",
//		func(p *MaxEdits, run *expectations.Run) expectations.Outcome { … })
//
// Its keys are validated as strictly as the built-in ones and appear in
// reg.JSONSchema(), the JSON Schema (draft 2020-12) of scenario files for
// editors, generated from the same structs. Registry.Register takes a Type
// value instead, for a type that also checks its keys together (Validate:
// a set of keys that could never fail) or takes keys of its own naming
// (InlineKey, as retrieval takes metric names).
//
// A run's session holds its calls only when some expectation of its
// scenario may read them: a type registered with RegisterFunc may, and a
// Type says it never does, or for which params, with ReadsCalls. The
// built-in types read events, not calls, but for sequence, before and
// the retries of errors, which match arguments. Without calls a session
// still counts them (trace.Session.NumCalls) and gives their tokens
// (CallTokens). Results are kept only for a report that shows them
// (MeasureOptions.KeepResults keeps what it returns of them).
package expectations
