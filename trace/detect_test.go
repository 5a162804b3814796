package trace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// byName names the format of a file from its name: the first suffix that
// matches wins, and the empty suffix matches every name. A format of ""
// says that the file is not a trace: no detector may accept it.
type byName [][2]string

func (b byName) format(name string) string {
	for _, rule := range b {
		if strings.HasSuffix(name, rule[0]) {
			return rule[1]
		}
	}
	panic("no rule names the format of " + name)
}

func only(format string) byName { return byName{{"", format}} }

// fixtureFormats maps each fixture folder to the formats of its files.
var fixtureFormats = map[string]byName{
	"../testdata/traces/atif":      only("atif"),
	"../testdata/traces/claude":    {{".stream.jsonl", "claude-stream-json"}, {"", "claude-code"}},
	"../testdata/traces/toolcalls": only("tool-calls"),
	codexFixtures:                  {{".exec.jsonl", "codex-exec-json"}, {"", "codex"}},
	geminiFixtures:                 only("gemini-cli"),
	miniFixtures:                   only("mini-swe-agent"),
	openHandsFixtures:              {{"output.jsonl", "openhands-eval"}, {"v1-events.jsonl", "openhands-v1"}, {"", "openhands"}},
	"testdata/otel":                only("otel"),
	sweAgentFixtures:               only("swe-agent"),
	ampFixtures:                    only("amp"),
	copilotFixtures:                only("copilot-chat"),
	cursorFixtures:                 {{".py", ""}, {"", "cursor"}},
	cursorTranscriptFixtures:       only("cursor-agent-transcript"),
}

// sampleFormats maps each folder of samplesDir to the formats of its
// files.
var sampleFormats = map[string]byName{
	"atif":                    {{".md", ""}, {"", "atif"}},
	"claude-code-jsonl":       only("claude-code"),
	"claude-stream-json":      only("claude-stream-json"),
	"codex":                   only("codex"),
	"gemini-cli":              only("gemini-cli"),
	"mini-swe-agent":          only("mini-swe-agent"),
	"openhands":               only("openhands"),
	"otel":                    only("otel"),
	"swe-agent":               only("swe-agent"),
	"amp":                     only("amp"),
	"copilot-chat":            only("copilot-chat"),
	"cursor-vscdb":            only("cursor"),
	"cursor-agent-transcript": only("cursor-agent-transcript"),
}

// detectors lists the registered formats whose Detect accepts the start of
// data, as Read sees it.
func detectors(data []byte) []string {
	prefix := trimLeading(data[:min(len(data), DetectSize)])
	reg := DefaultRegistry()
	var names []string
	for _, name := range reg.Names() {
		if f, _ := reg.Lookup(name); f.Detect(prefix) {
			names = append(names, name)
		}
	}
	return names
}

// checkDetection checks that exactly the expected detector accepts file
// and that reading it without a forced format gives that format.
func checkDetection(t *testing.T, file, want string) {
	t.Run(filepath.Base(file), func(t *testing.T) {
		t.Parallel()
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		if want == "" {
			assert.Empty(t, detectors(data), "a file that is not a trace is claimed")
			return
		}
		require.Equal(t, []string{want}, detectors(data), "exactly one detector accepts the file")
		all, err := ReadFileAll(file, Options{})
		require.NoError(t, err)
		require.NotEmpty(t, all)
		for _, s := range all {
			assert.Equal(t, want, s.Format)
		}
	})
}

// Every fixture file is accepted by its own format's detector alone, and
// reading it detects that format.
func TestEachFixtureIsDetectedAsItsFormatAlone(t *testing.T) {
	t.Parallel()
	for dir, formats := range fixtureFormats {
		t.Run(dir, func(t *testing.T) {
			t.Parallel()
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			require.NotEmpty(t, entries)
			for _, e := range entries {
				if !e.IsDir() {
					checkDetection(t, filepath.Join(dir, e.Name()), formats.format(e.Name()))
				}
			}
		})
	}
}

// unreadSamples are the folders of ../shared/samples whose formats have no
// reader yet (none, since the editor agents' stores are read).
var unreadSamples = map[string]bool{}

// Every real sample is accepted by its own format's detector alone, and
// reading it detects that format.
func TestEachSampleIsDetectedAsItsFormatAlone(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(samplesDir); err != nil {
		t.Skipf("no samples at %s", samplesDir)
	}
	dirs, err := os.ReadDir(samplesDir)
	require.NoError(t, err)
	n := 0
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		if unreadSamples[d.Name()] {
			// No reader yet: each file is refused as in no known format,
			// until a reader for it is added here and to sampleFormats.
			files, err := os.ReadDir(filepath.Join(samplesDir, d.Name()))
			require.NoError(t, err)
			for _, f := range files {
				_, err := ReadFile(filepath.Join(samplesDir, d.Name(), f.Name()), Options{})
				assert.Error(t, err, "%s/%s is read by a format: add it to sampleFormats", d.Name(), f.Name())
			}
			continue
		}
		formats, ok := sampleFormats[d.Name()]
		if !assert.True(t, ok, "no format is expected for the samples in %s", d.Name()) {
			continue
		}
		t.Run(d.Name(), func(t *testing.T) {
			t.Parallel()
			files, err := os.ReadDir(filepath.Join(samplesDir, d.Name()))
			require.NoError(t, err)
			require.NotEmpty(t, files)
			for _, f := range files {
				checkDetection(t, filepath.Join(samplesDir, d.Name(), f.Name()), formats.format(f.Name()))
			}
		})
		n++
	}
	assert.Equal(t, len(sampleFormats), n, "a folder of samples is missing")
}

// A V1 conversation folder is recognized by the folder reader.
func TestOpenHandsV1FoldersAreDetected(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{"v1-conversation", "v1-delegate"} {
		s, err := ReadFile(filepath.Join(openHandsFixtures, dir), Options{})
		require.NoError(t, err)
		assert.Equal(t, "openhands-v1", s.Format, dir)
	}
}
