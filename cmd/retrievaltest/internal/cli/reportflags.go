package cli

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentretrieval/agentretrieval/report"
)

// ReportFlags are the flags that say where a check's reports go: -o in
// -format, and more reports of the same run with -junit, -json, -html or
// -format FORMAT=FILE, repeated.
type ReportFlags struct {
	Out, junit, json, html *string
	format                 reportFlag
}

// AddReportFlags defines -o, -format, -junit, -json and -html.
func AddReportFlags(fs *flag.FlagSet) *ReportFlags {
	f := &ReportFlags{format: reportFlag{main: "md"}}
	fs.Var(&f.format, "format", "report `FORMAT` ("+strings.Join(report.CheckFormats, ", ")+"), or FORMAT=FILE, repeated, for more reports (html too)")
	f.Out = fs.String("o", "", "write the report to `FILE` (atomically) instead of standard output")
	f.junit = fs.String("junit", "", "also write a JUnit XML report to `FILE` (atomically)")
	f.json = fs.String("json", "", "also write a JSON report to `FILE` (atomically)")
	f.html = fs.String("html", "", "also write a self-contained HTML report, with a timeline of each run's calls, to `FILE` (atomically)")
	return f
}

// Reports resolves the flags: the main report's format, the further
// report files and the HTML report's file ("" for none). others are the
// command's other output files (a baseline): no two outputs may name one
// file.
func (f *ReportFlags) Reports(others ...string) (format string, files []report.ReportFile, html string, err error) {
	files = slices.Clone(f.format.files)
	for _, r := range []report.ReportFile{{Format: "junit", File: *f.junit}, {Format: "json", File: *f.json}} {
		if r.File != "" {
			files = append(files, r)
		}
	}
	html = *f.html
	switch {
	case f.format.html != "" && html != "" && f.format.html != html:
		return "", nil, "", fmt.Errorf("-html %s and -format html=%s: give one HTML report", html, f.format.html)
	case f.format.html != "":
		html = f.format.html
	}
	names := append([]string{*f.Out, html}, others...)
	for _, r := range files {
		names = append(names, r.File)
	}
	seen := map[string]bool{}
	for _, n := range names {
		if n == "" || n == "-" {
			continue
		}
		if seen[filepath.Clean(n)] {
			return "", nil, "", fmt.Errorf("%s is named for two outputs: give each report its own file", n)
		}
		seen[filepath.Clean(n)] = true
	}
	return f.format.main, files, html, nil
}

// reportFlag is -format: the format of the main report, or FORMAT=FILE,
// repeated, for more reports of the same run.
type reportFlag struct {
	main  string
	files []report.ReportFile
	html  string
}

func (f *reportFlag) String() string {
	if f == nil {
		return ""
	}
	return f.main
}

func (f *reportFlag) Set(v string) error {
	name, file, toFile := strings.Cut(v, "=")
	known := append(slices.Clone(report.CheckFormats), "html")
	switch {
	case !slices.Contains(known, name):
		return fmt.Errorf("%q: expected one of %s, or FORMAT=FILE", name, strings.Join(known, ", "))
	case toFile && file == "":
		return fmt.Errorf("%q: no file after =", v)
	case name == "html" && !toFile:
		return errors.New("html is written to a file: -format html=FILE (or -html FILE)")
	case name == "html" && f.html != "":
		return fmt.Errorf("html=%s: one HTML report a run (already html=%s)", file, f.html)
	case name == "html":
		f.html = file
	case toFile:
		f.files = append(f.files, report.ReportFile{Format: name, File: file})
	default:
		f.main = name
	}
	return nil
}
