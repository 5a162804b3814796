package report

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentretrieval/agentretrieval/trace"
)

// bareFormat is a Format that does not describe itself, and reads several
// sessions from one input.
type bareFormat struct{ trace.Format }

func (bareFormat) Name() string { return "bare" }

func (bareFormat) ReadAll(io.Reader, trace.Options) ([]*trace.Session, error) { return nil, nil }

func TestWriteFormats(t *testing.T) {
	t.Parallel()
	infos := trace.NewRegistry(trace.ToolCalls{}, bareFormat{}).Infos()
	infos[1].Folder = true // as a DirFormat reports it
	var b bytes.Buffer
	require.NoError(t, WriteFormats(&b, infos))
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Len(t, lines, 4)
	assert.Regexp(t, "^\\| `tool-calls` +\\| no +\\| one +\\| `run\\.toolcalls\\.json` +\\| your own harness, or by hand +\\| a JSON object with a \"toolCalls\" array", lines[2])
	assert.Regexp(t, "^\\| `bare` +\\| yes +\\| several +\\| n/a +\\| n/a +\\| n/a +\\|$", lines[3], "a format without a description is listed by name")
}
