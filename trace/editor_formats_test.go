package trace

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The error for an input in no known format names the editor agents'
// formats among those it tried, so that a user of Cursor, Copilot, Cline
// or Amp sees that they are read.
func TestUnknownFormatErrorListsTheEditorAgentsFormats(t *testing.T) {
	t.Parallel()
	_, err := Read(strings.NewReader(`{"hello": "world"}`), Options{Source: "x.json"})
	var fe *FormatError
	require.True(t, errors.As(err, &fe), "%v", err)
	for _, name := range []string{"amp", "copilot-chat", "cursor", "cursor-agent-transcript", "cline"} {
		assert.Contains(t, fe.Tried, name)
		assert.Contains(t, err.Error(), name)
	}
}
