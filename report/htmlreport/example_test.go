package htmlreport_test

import (
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"

	"github.com/agentretrieval/agentretrieval/report/htmlreport"
)

// A trace view: load a trace with its ground truth and write the report
// of its calls to a file.
func Example() {
	measured, err := htmlreport.Load([]string{"testdata/session-expiry.toolcalls.json"},
		htmlreport.LoadOptions{GroundTruth: "testdata/session-expiry.groundtruth.json"})
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "htmlreport-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "view.html")
	if err := htmlreport.WriteFile(out, func(w io.Writer) error { return htmlreport.WriteTraces(w, measured) }); err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(measured), "trace,", len(measured[0].Session.Calls), "calls on its timeline")
	// Output: 1 trace, 18 calls on its timeline
}
