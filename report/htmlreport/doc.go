// Package htmlreport writes retrieval reports as one self-contained HTML
// file that people look at rather than read: a browser opens it from disk
// or as a CI artifact, with no network.
//
// Three reports share one page layout:
//
//   - WriteCheck: evaluated scenarios (the check command's -html). The
//     overall verdict comes first (FLAKY, not PASS, when a flaky
//     expectation failed and nothing else did), then a failures-first
//     table of every expectation that failed, was flaky or could not be
//     checked (scenario, expectation, measured, threshold, evidence, a
//     link to the scenario); a table of every scenario's figures (result,
//     semantic ratio, steps to target, patterns and the retrieval
//     metrics, as the markdown report's index-effectiveness and retrieval
//     tables); then each scenario, folded when it passed,
//     with its expectations and, for each of its runs, the figures, the
//     timeline and the calls.
//   - WriteTraces: measured traces without expectations (the view
//     command), loaded with Load.
//   - WriteRun: an evaluated run folder, runs.Summary (report -html and
//     run-dir's report.html): per configuration the statistics of each
//     metric over tasks and the task table (its rows written one at a
//     time, read back from the table beside the summary file when it was
//     returned without its entries, so that the page of a run of any
//     size is written without holding them); the paired comparison of two
//     configurations, each metric's bootstrap CI drawn as an interval
//     against zero; and a coverage-over-calls curve per configuration,
//     drawn from the retrieval-events documents beside the summary.
//
// WriteFile writes any of them atomically; Open shows a file in the
// desktop's browser. docs/viewer.md is the reader's guide to the pages.
//
// # The timeline
//
// A trace's timeline is an inline SVG on an axis of steps numbered from 1.
// Up to one call per unit of its width it has one mark per call, in call
// order; a mark's colour is its tool class (semantic, file-level, edit,
// other, each at least 3:1 against the page) and carries the class's
// letter when there is room. Past that, each lane is drawn as density
// columns: one column per two units, split into the shares of each class
// of the calls it covers, its tooltip naming the steps and the counts.
// Subagent calls have their own lane, calls that name a ground-truth file a
// dot in the ground-truth row (the first one ringed and labelled "first
// hit: step N"), failed calls one in their own row, and each fishing run,
// guessing search and direct edit a band over its steps, in a row labelled
// with the pattern's name, its steps written in it or its first step
// beside it. A mark's tooltip names the call's tool, class, time, query,
// files, lines and patterns.
//
// The timeline is one Tab stop, a slider for screen readers: arrow keys
// move a cursor between calls (with Shift ten at a time; with a filter,
// between the calls it shows), Home and End go to the ends, Enter opens
// the call, and its description is spoken. Clicking a mark opens its call.
// Dragging across the timeline selects a range of calls: the list shows
// only them, and a strip under the timeline draws them enlarged; dragging
// the range moves it, + and - narrow and widen it around the cursor.
//
// # The call list
//
// A trace's calls travel in the page as two data blocks, each
// gzip-compressed JSON in URL-safe base64 inside a script element whose
// type is not JavaScript, so it is never run: the calls without their
// arguments and results, which the page's script reads when the page
// loads, and the arguments and results, the bulk, which it reads when a
// call is first opened or a search first looks through them. The script
// puts the calls in the document 200 at a time, and a call's whole entry
// (what it ran, the query, patterns, symbols, files, lines, the arguments
// and the result) only when it is opened. A session of 21,710 calls (101 MB) gives
// a page of about 8 MB (BenchmarkViewOfALargeSession). The page keeps a
// call's arguments up to 64 KiB and its result's first 80 lines up to
// 6,000 bytes (ShownResult), and says what it left out. Each entry's
// summary line shows what the call ran (a shell command, a subagent's
// description) before what it found ("ls -la → 15 files"); the trace's
// prompt and final answer, when its format records them, are folded
// entries before and after the calls.
//
// Above the list a filter bar searches the tool, what it ran, the
// arguments, the result and the files of every call, and filters by class,
// tool, pattern, failed calls, ground-truth hits and subagent calls; every
// choice says how many calls it would leave with the other filters kept,
// and the marks the filter leaves out are dimmed. Under each call the
// search found, a line says where (what it ran, the query, the arguments,
// the result or the files) with the match marked. The URL fragment keeps
// the filter and the range (#t1?class=F&q=token&from=10&to=40), so that a
// link opens the same view; #t1-c12 opens call 12 of trace t1.
//
// # Accessibility and printing
//
// Colour never carries meaning alone: every row is labelled, classes have
// letters and a legend, verdicts are words, and the coverage curves differ
// in dash pattern and have a table of the same figures. Headings go in
// order, a skip link leads past the header to the calls or the failures,
// and tables scroll inside their box rather than widen the page (at a
// phone's 390 px nothing is wider than the screen). Verdicts, figures,
// timelines and tables are static HTML and SVG; without the script, the
// call lists are missing and say so. A print style sheet keeps colours and
// avoids breaking tables and timelines across pages.
//
// # Untrusted text
//
// Every string from a trace, a scenario or a summary is untrusted. Pages
// are generated with html/template, which escapes each value for its
// context (element text, attribute, URL); control characters, bidi
// overrides and invalid bytes are first made visible with the escapes of
// package printable. The page declares a Content-Security-Policy
// (ContentSecurityPolicy) that allows no network access and only the
// page's own style sheet and script, by hash, so that text which escaped
// its context still could not run or load anything. The page's script puts
// the text of the calls in the document as text (textContent), never as
// markup.
package htmlreport
