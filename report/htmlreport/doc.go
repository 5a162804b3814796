// Package htmlreport writes retrieval reports as one self-contained HTML
// file that people look at rather than read: a browser opens it from disk
// or as a CI artifact, with no network.
//
// Three reports share one page layout:
//
//   - WriteCheck: evaluated scenarios (the check command's -html). The
//     overall verdict comes first; then each scenario's verdict, its
//     expectations with measured value, threshold and evidence, and for
//     each of its runs the figures, the timeline and the calls.
//   - WriteTraces: measured traces without expectations (the view
//     command), loaded with Load.
//   - WriteRun: an evaluated run folder, runs.Summary (report -html and
//     run-dir's report.html): per configuration the statistics of each
//     metric over tasks and the task table; the paired comparison of two
//     configurations, each metric's bootstrap CI drawn as an interval
//     against zero; and a coverage-over-calls curve per configuration,
//     drawn from the retrieval-events documents beside the summary.
//
// WriteFile writes any of them atomically; Open shows a file in the
// desktop's browser.
//
// # The timeline
//
// A trace's timeline is an inline SVG with one mark per tool call, in call
// order on an axis of steps numbered from 1. A mark's colour is its tool
// class (semantic, file-level, edit, other) and carries the class's letter
// when there is room; subagent calls have their own lane, calls that name
// a ground-truth file a dot in the ground-truth row, failed calls one in
// their own row, and each fishing run, guessing search and direct edit a
// band over its steps, in a row labelled with the pattern's name. A mark's
// tooltip (an SVG <title>) names the call's tool, class, time, query,
// files and lines; it links to the call in the list below, a <details>
// element with the tool, the arguments, the files and lines, and the first
// lines of the result.
//
// # Accessibility and printing
//
// Colour never carries meaning alone: every row is labelled, classes have
// letters and a legend, verdicts are words, and the coverage curves differ
// in dash pattern and have a table of the same figures. Everything is
// static HTML and SVG; the only script opens the call a timeline mark
// links to, which works without it as a jump. A print style sheet keeps
// colours and avoids breaking tables and timelines across pages.
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
// its context still could not run or load anything.
package htmlreport
