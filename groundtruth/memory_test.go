package groundtruth

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
const memoryChildEnv = "GROUNDTRUTH_MEMORY_CHILD"

// memoryDocs are large ground truths in the forms read without the YAML
// parser: the densest (the shortest distinct paths a line can hold) and
// one shaped as a repository's files are.
var memoryDocs = map[string]func() string{
	"YAML list of short paths": func() string {
		var b strings.Builder
		for i := range 2_000_000 {
			fmt.Fprintf(&b, "- f%d\n", i)
		}
		return b.String()
	},
	"YAML files of a repository": func() string {
		var b strings.Builder
		b.WriteString("files:\n")
		for i := range 500_000 {
			fmt.Fprintf(&b, "  - pkg/d%d/f%d.go\n", i%1000, i)
		}
		return b.String()
	},
	"JSON list of short paths": func() string {
		var b strings.Builder
		b.WriteString("[")
		for i := range 2_000_000 {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "%q", fmt.Sprintf("f%d", i))
		}
		b.WriteString("]")
		return b.String()
	},
}

type memoryReport struct {
	Size, Sys, TotalAlloc, Files uint64
	Err                          string
}

// Reading a large ground truth takes a small multiple of the file: the
// YAML parser took over a gigabyte for a 17 MB list (70×). Measured in a
// child process as the bytes allocated while reading, which bound the
// peak of the heap whenever the collector runs, and do not depend on how
// busy the machine is (the memory the runtime obtains from the system,
// also logged, does: a collector starved of CPU lets the heap grow).
func TestReadingALargeGroundTruthTakesAtMostEightTimesTheFile(t *testing.T) {
	if name := os.Getenv(memoryChildEnv); name != "" {
		measureChild(t, name)
		return
	}
	if testing.Short() {
		t.Skip("reads ground truths of millions of paths")
	}
	for name := range memoryDocs {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestReadingALargeGroundTruthTakesAtMostEightTimesTheFile$", "-test.v")
			cmd.Env = append(os.Environ(), memoryChildEnv+"="+name)
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
			i := strings.Index(string(out), "{")
			require.GreaterOrEqual(t, i, 0, "%s", out)
			var r memoryReport
			require.NoError(t, json.NewDecoder(strings.NewReader(string(out[i:]))).Decode(&r))
			require.Empty(t, r.Err)
			require.NotZero(t, r.Files)
			t.Logf("%d bytes, %d files: %d MB allocated (%.1f× the file); the runtime's memory grew %d MB (%.1f×)",
				r.Size, r.Files, r.TotalAlloc>>20, float64(r.TotalAlloc)/float64(r.Size), r.Sys>>20, float64(r.Sys)/float64(r.Size))
			assert.LessOrEqual(t, r.TotalAlloc, 8*r.Size, "more than 8× the file allocated")
		})
	}
}

func measureChild(t *testing.T, name string) {
	doc, ok := memoryDocs[name]
	require.True(t, ok, name)
	data := []byte(doc())
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	truth, err := Parse("gt.yaml", data)
	runtime.ReadMemStats(&after)
	r := memoryReport{Size: uint64(len(data)), Sys: after.Sys - before.Sys, TotalAlloc: after.TotalAlloc - before.TotalAlloc}
	if err != nil {
		r.Err = err.Error()
	} else {
		r.Files = uint64(len(truth.Files))
	}
	out, _ := json.Marshal(r)
	fmt.Printf("%s\n", out)
}
