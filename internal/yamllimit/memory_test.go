package yamllimit

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// memoryChildEnv names the document a re-executed test binary parses and
// measures, so that the measure holds only that parse's memory.
const memoryChildEnv = "YAMLLIMIT_MEMORY_CHILD"

// memoryDocs are the densest documents each limit accepts: one-character
// items of a flow list (two tokens an item) and a block list of paths as
// a ground truth writes them.
var memoryDocs = map[string]struct {
	lim Limits
	doc func() string
}{
	"flow list at the default limit": {Limits{}, func() string {
		return "x: [" + strings.Repeat("1,", DefaultMaxTokens/2-3) + "1]\n"
	}},
	"block list at the ground-truth limit": {Limits{MaxTokens: GroundTruthMaxTokens}, func() string {
		var b strings.Builder
		b.WriteString("files:\n")
		for i := range GroundTruthMaxTokens/2 - 1 {
			fmt.Fprintf(&b, "  - pkg/d%d/f%d.go\n", i%1000, i)
		}
		return b.String()
	}},
}

type memoryReport struct {
	Size, Sys, TotalAlloc uint64
	Err                   string
}

// The memory a parse takes is bounded by the token limit: goccy/go-yaml
// takes a few hundred bytes a token, so the densest documents the limits
// accept take under 1 KiB a token (measured: about 500 bytes). Without
// the limit a 10 MB flow list took 4 GB. Measured in a child process, from
// the growth of the memory the runtime obtained from the system, which
// covers the peak of the heap.
func TestParsingMemoryIsBoundedByTheTokenLimit(t *testing.T) {
	if name := os.Getenv(memoryChildEnv); name != "" {
		measureChild(t, name)
		return
	}
	if testing.Short() {
		t.Skip("parses documents of a million tokens")
	}
	for name, d := range memoryDocs {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestParsingMemoryIsBoundedByTheTokenLimit$", "-test.v")
			cmd.Env = append(os.Environ(), memoryChildEnv+"="+name)
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
			i := strings.Index(string(out), "{")
			require.GreaterOrEqual(t, i, 0, "%s", out)
			var r memoryReport
			require.NoError(t, json.NewDecoder(strings.NewReader(string(out[i:]))).Decode(&r))
			require.Empty(t, r.Err)
			max := d.lim.withDefaults().MaxTokens
			t.Logf("%d bytes, %d tokens at most: the runtime's memory grew %d MB (%.1f× the file); %d MB allocated in all",
				r.Size, max, r.Sys>>20, float64(r.Sys)/float64(r.Size), r.TotalAlloc>>20)
			assert.LessOrEqual(t, r.Sys, uint64(max)<<10, "more than 1 KiB a token")
		})
	}
}

func measureChild(t *testing.T, name string) {
	d, ok := memoryDocs[name]
	require.True(t, ok, name)
	data := []byte(d.doc())
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f, err := Parse("f.yaml", data, d.lim)
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(f)
	r := memoryReport{Size: uint64(len(data)), Sys: after.Sys - before.Sys, TotalAlloc: after.TotalAlloc - before.TotalAlloc}
	if err != nil {
		r.Err = err.Error()
	}
	out, _ := json.Marshal(r)
	fmt.Printf("%s\n", out)
}
