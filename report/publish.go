package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/agentretrieval/agentretrieval/internal/atomicfile"
)

// CheckOutput says where the check command's report goes.
type CheckOutput struct {
	// Format is one of CheckFormats.
	Format string
	// File, when set, receives the report (atomically) instead of Stdout.
	File   string
	Stdout io.Writer
	// Annotations, when set, receives a GitHub annotation of every
	// failure (WriteGitHubAnnotations) besides the report.
	Annotations io.Writer
	// Files are further reports of the same check, each in its format:
	// markdown for a summary, JUnit XML for a test tab, JSON to keep.
	Files []ReportFile
}

// A ReportFile is one report of a check written to a file.
type ReportFile struct {
	// Format is one of CheckFormats.
	Format string
	File   string
}

// Publish writes the report of a check in out.Format to out.File or
// out.Stdout, the annotations of its failures to out.Annotations, and,
// when GITHUB_STEP_SUMMARY is set, the markdown report cut to
// StepSummaryLimit (FitStepSummary) to the step summary, whose note then
// says where the full report is (opts.FullReport, else out.File, else the
// job log). Every output is written that can be: a failure of one does not
// stop the others, and the first error is returned.
func (c *Check) Publish(out CheckOutput, opts CheckOptions) error {
	var md bytes.Buffer
	if err := c.WriteMarkdown(&md, opts); err != nil {
		return err
	}
	rendered := map[string][]byte{"md": md.Bytes()}
	render := func(format string) ([]byte, error) {
		if b, ok := rendered[format]; ok {
			return b, nil
		}
		var b bytes.Buffer
		if err := c.Write(&b, format, opts); err != nil {
			return nil, err
		}
		rendered[format] = b.Bytes()
		return b.Bytes(), nil
	}
	body, err := render(out.Format)
	if err != nil {
		return err
	}
	// Every file is written atomically, and all of them together: a run
	// leaves the reports of one check, never a mix of two.
	var files []atomicfile.File
	for _, f := range append([]ReportFile{{Format: out.Format, File: out.File}}, out.Files...) {
		if f.File == "" {
			continue
		}
		b, err := render(f.Format)
		if err != nil {
			return err
		}
		files = append(files, atomicfile.File{Path: f.File, Write: func(w io.Writer) error { _, err := w.Write(b); return err }})
	}
	var errs []error
	if out.File == "" {
		_, err := out.Stdout.Write(body)
		errs = append(errs, err)
	}
	var batch atomicfile.Batch
	if err := batch.WriteAll(files...); err != nil {
		errs = append(errs, err)
	} else {
		errs = append(errs, batch.Commit())
	}
	if out.Annotations != nil {
		errs = append(errs, WriteGitHubAnnotations(out.Annotations, c.Expectations))
	}
	where := opts.FullReport
	mdFile := ""
	for _, f := range out.Files {
		if f.Format == "md" && mdFile == "" {
			mdFile = f.File
		}
	}
	switch {
	case where != "":
	case mdFile != "" && (out.File == "" || out.Format != "md"):
		where = fmt.Sprintf("in %s (upload it as an artifact to keep it)", mdFile)
	case out.File != "" && out.Format == "md":
		where = fmt.Sprintf("in %s (the -o file; upload it as an artifact to keep it)", out.File)
	case out.File != "":
		where = fmt.Sprintf("in %s (the -o file, in %s; upload it as an artifact to keep it)", out.File, out.Format)
	default:
		where = "in the job log (the standard output of retrievaltest check)"
	}
	errs = append(errs, AppendGitHubStepSummary(FitStepSummary(md.Bytes(), StepSummaryLimit-1, Escape(where))))
	return errors.Join(errs...)
}
