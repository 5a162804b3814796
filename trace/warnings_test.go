package trace

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMalformedLinesKeepTheFirstWarningsAndCountTheRest(t *testing.T) {
	t.Parallel()
	const bad = MaxWarnings + 1234
	s, err := Read(bytes.NewReader(malformedTrace(bad)), Options{Source: "t.jsonl"})
	require.NoError(t, err)
	require.Len(t, s.Warnings, MaxWarnings)
	for i, w := range s.Warnings {
		assert.Equal(t, i+2, w.Line, "warning %d names its line", i)
	}
	assert.Equal(t, 1234, s.WarningsDropped)
	assert.Equal(t, bad, s.WarningCount())
	assert.Equal(t, "t.jsonl: and 1,234 more warnings, not kept", s.WarningsSummary())
}

func TestWarningsSummaryIsEmptyWhenNothingWasDropped(t *testing.T) {
	t.Parallel()
	s := &Session{Source: "t.jsonl"}
	s.Warnf(3, "one")
	assert.Empty(t, s.WarningsSummary())
	assert.Equal(t, 1, s.WarningCount())
}

func TestWarningsFromAnotherSessionShareTheCap(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                  string
		own, other            int
		wantKept, wantDropped int
	}{
		{"both fit", 3, 4, 7, 0},
		{"the other fills the rest and is counted past it", MaxWarnings - 2, 5, MaxWarnings, 3},
		{"a full session counts every added warning", MaxWarnings + 7, 2, MaxWarnings, 9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, other := &Session{Source: "a"}, &Session{Source: "b"}
			for i := range tt.own {
				s.Warnf(i+1, "own %d", i)
			}
			for i := range tt.other {
				other.Warnf(i+1, "other %d", i)
			}
			s.AddWarnings(other)
			assert.Len(t, s.Warnings, tt.wantKept)
			assert.Equal(t, tt.wantDropped, s.WarningsDropped)
			assert.Equal(t, tt.own+tt.other, s.WarningCount())
		})
	}
}

func TestFileWarningsComeBeforeTheSessionsOwn(t *testing.T) {
	t.Parallel()
	file, s := &Session{Source: "f"}, &Session{Source: "f"}
	file.Warnf(1, "about the file")
	for i := range MaxWarnings {
		s.Warnf(i+2, "own")
	}
	s.prependWarnings(file)
	require.Len(t, s.Warnings, MaxWarnings)
	assert.Equal(t, "about the file", s.Warnings[0].Message)
	assert.Equal(t, 1, s.WarningsDropped)
}

func TestThousandsGroupsDigitsByThree(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 9999990: "9,999,990", 123456: "123,456"} {
		assert.Equal(t, want, thousands(n), fmt.Sprint(n))
	}
}

func TestAWarningShowsControlCharactersEscaped(t *testing.T) {
	t.Parallel()
	w := Warning{Source: "evil\x1b]0;x\a.jsonl", Line: 3, Message: "tool \u009b\r\nname"}
	assert.Equal(t, `evil\u001b]0;x\a.jsonl:3: tool \u009b\r\nname`, w.String())
}
