package htmlreport_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentretrieval/agentretrieval/report/htmlreport"
	"github.com/agentretrieval/agentretrieval/runs"
)

// run-dir and merge keep no entry of the run they write: the page of a
// summary returned without its entries, whose rows are read back from the
// records the evaluation gathered them in, is the page of the summary
// holding them, byte for byte,
// and the page of the summary read from the file.
func TestAPageWrittenFromTheSummaryFileIsThePageOfItsEntries(t *testing.T) {
	t.Parallel()
	full, dir := miniRun(t)
	out := t.TempDir()
	lean, err := runs.Evaluate(context.Background(), "../../testdata/runs/mini", runs.Options{GroundTruthRoot: "../../testdata/runs/gt", Out: out, Jobs: 1,
		SummaryWithoutEntries: true, SummaryValues: htmlreport.DefaultRunMetrics})
	if lean == nil {
		t.Fatalf("evaluating the mini run: %v", err)
	}
	for _, c := range lean.Configs {
		if c.Entries != nil {
			t.Fatalf("configuration %s holds %d entries; it should hold none", c.Config, len(c.Entries))
		}
	}
	read, err := runs.ReadSummary(filepath.Join(out, runs.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	want := render(t, func(b *bytes.Buffer) error { return htmlreport.WriteRun(b, full, htmlreport.RunOptions{Dir: dir}) })
	if !bytes.Contains(want, []byte(`<td class="mono">add-cache</td>`)) {
		t.Fatal("the page has no task row to compare")
	}
	for name, s := range map[string]*runs.Summary{"without entries": lean, "read from the file": read} {
		got := render(t, func(b *bytes.Buffer) error { return htmlreport.WriteRun(b, s, htmlreport.RunOptions{Dir: out}) })
		if !bytes.Equal(want, got) {
			t.Errorf("the page of the summary %s differs from the page of its entries:\n%s", name, firstDiff(string(want), string(got)))
		}
	}

	// The rows are read back from where the evaluation gathered them,
	// not from the table: without it, the page is the same.
	if err := os.Remove(filepath.Join(out, runs.TrialsFile)); err != nil {
		t.Fatal(err)
	}
	got := render(t, func(b *bytes.Buffer) error { return htmlreport.WriteRun(b, lean, htmlreport.RunOptions{Dir: out}) })
	if !bytes.Equal(want, got) {
		t.Errorf("the page once the table is gone differs from the page of its entries:\n%s", firstDiff(string(want), string(got)))
	}

	// Rows that cannot be read back (a configuration added to the
	// summary has none) leave no page in place.
	lean.Configs = append(lean.Configs, &runs.ConfigSummary{Config: "added"})
	page := filepath.Join(t.TempDir(), "report.html")
	err = htmlreport.WriteFile(page, func(w io.Writer) error { return htmlreport.WriteRun(w, lean, htmlreport.RunOptions{}) })
	if err == nil || !strings.Contains(err.Error(), "the spool holds the entries of") {
		t.Errorf("rows that cannot be read back: got %v, want an error saying so", err)
	}
	if _, err := os.Stat(page); !os.IsNotExist(err) {
		t.Errorf("a page was left at %s: %v", page, err)
	}
}

// A configuration without entries still has its (empty) table, and
// those after it their rows.
func TestAConfigurationWithoutEntriesKeepsItsTable(t *testing.T) {
	t.Parallel()
	s := runs.Summarize("r", map[string][]runs.TaskEntry{
		"a-empty": nil,
		"b-full":  {{Name: "t1", Task: "t1", Status: runs.Computable, Values: map[string]float64{"mrr": 0.5}}},
		"c-empty": nil,
	})
	page := string(render(t, func(b *bytes.Buffer) error { return htmlreport.WriteRun(b, s, htmlreport.RunOptions{}) }))
	for _, want := range []string{
		`<tbody id="config-1-tasks"></tbody>`,
		`<tbody id="config-2-tasks"><tr><td class="mono">t1</td>`,
		`<tbody id="config-3-tasks"></tbody>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page has no %s", want)
		}
	}
	if !strings.HasSuffix(strings.TrimSpace(page), "</html>") {
		t.Error("the page does not end with </html>")
	}
}
