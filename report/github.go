package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WriteGitHubAnnotations writes one GitHub Actions workflow command per
// failed expectation and per scenario problem that stopped a check,
//
//	::error file=scenarios/fix-bug.yaml,line=12,col=5,title=fix-bug: retrieval::recall@5 measured 0.00, required ≥ 1.00
//
// so that the runner shows each failure on the line of the scenario file
// that states the expectation, in the job and in the pull request's diff.
// Values are escaped as the runner expects: "%", "\r" and "\n" in the
// message, and ":" and "," too in the properties.
func WriteGitHubAnnotations(w io.Writer, rows []ExpectationRow) error {
	for _, r := range sortExpectations(rows) {
		var msg string
		switch r.Status {
		case Fail:
			msg = r.Message
		case Error:
			msg = strings.Join(r.Evidence, "\n")
		default:
			continue
		}
		props := annotationPos(r.Pos)
		props = append(props, "title="+escapeProperty(r.Scenario+": "+r.Name()))
		if _, err := fmt.Fprintf(w, "::error %s::%s\n", strings.Join(props, ","), escapeData(msg)); err != nil {
			return err
		}
	}
	return nil
}

// annotationPos turns "file:line:col" into the file, line and col
// properties; a position without a line gives the file alone.
func annotationPos(pos string) []string {
	if pos == "" {
		return nil
	}
	file, line, col := pos, "", ""
	if i := strings.LastIndexByte(file, ':'); i >= 0 && isNumber(file[i+1:]) {
		file, col = file[:i], file[i+1:]
		if j := strings.LastIndexByte(file, ':'); j >= 0 && isNumber(file[j+1:]) {
			file, line = file[:j], file[j+1:]
		} else {
			line, col = col, ""
		}
	}
	out := []string{"file=" + escapeProperty(file)}
	if line != "" {
		out = append(out, "line="+line)
	}
	if col != "" {
		out = append(out, "col="+col)
	}
	return out
}

func isNumber(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil && s != ""
}

// escapeData escapes the message of a workflow command.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a property value of a workflow command.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
