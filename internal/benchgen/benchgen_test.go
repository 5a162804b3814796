package benchgen

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	outFile = flag.String("benchgen.out", "", "write a generated session to this `FILE` (TestWriteFile)")
	outKind = flag.String("benchgen.kind", KindRealShaped, "kind of session to write: real, large or single-line")
	outSize = flag.String("benchgen.size", "100MB", "size of the session to write, in bytes or with a KB, MB or GB suffix")
)

// TestWriteFile writes a generated session for measurements on the
// command line (scripts/bench-events.sh):
//
//	go test ./internal/benchgen -run TestWriteFile -benchgen.out=/tmp/real.jsonl -benchgen.size=100MB
func TestWriteFile(t *testing.T) {
	if *outFile == "" {
		t.Skip("no -benchgen.out given")
	}
	size, err := parseSize(*outSize)
	require.NoError(t, err)
	f, err := os.Create(*outFile)
	require.NoError(t, err)
	require.NoError(t, Write(f, *outKind, size))
	require.NoError(t, f.Close())
}

func parseSize(s string) (int64, error) {
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}} {
		if rest, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = rest, u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n * mult, err
}

type genLine struct {
	Type        string `json:"type"`
	IsSidechain bool   `json:"isSidechain"`
	ParentUUID  *string
	UUID        string `json:"uuid"`
	Message     struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

func lines(t *testing.T, data []byte) []genLine {
	t.Helper()
	var out []genLine
	for _, raw := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		var l genLine
		require.NoError(t, json.Unmarshal(raw, &l), "every line is JSON")
		out = append(out, l)
	}
	return out
}

func TestRealShapedSessionsLookLikeARealOne(t *testing.T) {
	data := RealShaped(4 << 20)
	assert.GreaterOrEqual(t, len(data), 4<<20)
	ls := lines(t, data)
	side := 0
	for _, l := range ls {
		if l.IsSidechain {
			side++
		}
	}
	assert.Greater(t, float64(side)/float64(len(ls)), 0.8, "most lines are sidechain lines")
	avg := len(data) / len(ls)
	assert.Greater(t, avg, 500, "lines are small on average")
	assert.Less(t, avg, 4000, "lines are small on average")

	var sizes []int
	for _, l := range ls {
		var blocks []struct {
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(l.Message.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type == "tool_result" {
				sizes = append(sizes, len(b.Content))
			}
		}
	}
	slices.Sort(sizes)
	require.NotEmpty(t, sizes)
	assert.Less(t, sizes[len(sizes)/2], 2000, "the median result is small")
	assert.Greater(t, sizes[len(sizes)-1], 64<<10, "a few results are large")
}

func TestGeneratorsAreDeterministic(t *testing.T) {
	for _, kind := range []string{KindRealShaped, KindLargeResults, KindSingleLine} {
		assert.Equal(t, generate(kind, 1<<20), generate(kind, 1<<20), kind)
	}
}

func TestSingleLineHoldsOneLongLine(t *testing.T) {
	data := SingleLine(3 << 20)
	ls := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	require.Len(t, ls, 2)
	assert.Greater(t, len(ls[1]), 3<<20)
	lines(t, data)
}

func TestWriteRefusesAnUnknownKind(t *testing.T) {
	err := Write(&bytes.Buffer{}, "huge", 10)
	assert.ErrorContains(t, err, `unknown kind "huge"`)
}

func TestWriteFileWritesTheSizeAsked(t *testing.T) {
	n, err := parseSize("2KB")
	require.NoError(t, err)
	assert.Equal(t, int64(2048), n)
	path := filepath.Join(t.TempDir(), "s.jsonl")
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, Write(f, KindLargeResults, n))
	require.NoError(t, f.Close())
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, st.Size(), n)
}
