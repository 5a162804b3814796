package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An OpenHands V1 folder hands its calls over as it reads them and drops
// them: the events still carry each call's cumulative tokens.
func TestEventsOfAnOpenHandsV1FolderKeepTheirTokens(t *testing.T) {
	t.Parallel()
	code, out, stderr := runCLI(t, nil, "events", "../../trace/testdata/openhands/v1-conversation")
	require.Equal(t, exitOK, code, stderr)
	docs := decodeDocs(t, out)
	require.Len(t, docs, 1)
	var tokens []any
	for _, e := range docs[0].Events {
		if e.CumulativeTokens != nil {
			tokens = append(tokens, *e.CumulativeTokens)
		}
	}
	assert.Equal(t, []any{int64(5320), int64(11160), int64(11160), int64(11160), int64(23410)}, tokens)
}
