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
}

// Publish writes the report of a check in out.Format to out.File or
// out.Stdout, the annotations of its failures to out.Annotations, and,
// when GITHUB_STEP_SUMMARY is set, the markdown report cut to
// StepSummaryLimit (FitStepSummary) to the step summary, whose note then
// says where the full report is (opts.FullReport, else out.File, else the
// job log). Every output is written that can be: a failure of one does not
// stop the others, and the first error is returned.
func (c *Check) Publish(out CheckOutput, opts CheckOptions) error {
	var md, body bytes.Buffer
	if err := c.WriteMarkdown(&md, opts); err != nil {
		return err
	}
	if out.Format == "md" {
		body = md
	} else if err := c.Write(&body, out.Format, opts); err != nil {
		return err
	}
	var errs []error
	if out.File != "" {
		errs = append(errs, atomicfile.WriteBytes(out.File, body.Bytes()))
	} else {
		_, err := out.Stdout.Write(body.Bytes())
		errs = append(errs, err)
	}
	if out.Annotations != nil {
		errs = append(errs, WriteGitHubAnnotations(out.Annotations, c.Expectations))
	}
	where := opts.FullReport
	switch {
	case where != "":
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
