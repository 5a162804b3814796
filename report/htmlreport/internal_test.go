package htmlreport

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/expectations"
	"github.com/agentretrieval/agentretrieval/metrics"
	"github.com/agentretrieval/agentretrieval/trace"
)

func TestJudge(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, metric string
		lo, hi       float64
		want         string
	}{
		{"a CI across zero is no reading", "recall@5", -0.1, 0.2, "unclear"},
		{"a CI touching zero is no reading", "recall@5", 0, 0.2, "unclear"},
		{"higher recall is better", "recall@5", 0.05, 0.2, "better"},
		{"lower recall is worse", "recall@5", -0.3, -0.1, "worse"},
		{"fewer steps are better", "steps_to_target", -3, -1, "better"},
		{"more steps are worse", "steps_to_target", 1, 3, "worse"},
		{"a neutral figure is neither", "semantic_calls", 1, 3, "neutral"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, got := judge(tt.metric, tt.lo, tt.hi); got != tt.want {
				t.Errorf("judge(%s, %v, %v) = %s, want %s", tt.metric, tt.lo, tt.hi, got, tt.want)
			}
		})
	}
}

func TestTickSteps(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n    int
		want []int
	}{
		{0, nil},
		{1, []int{1}},
		{7, []int{1, 2, 3, 4, 5, 6, 7}},
		{18, []int{1, 2, 4, 6, 8, 10, 12, 14, 16, 18}},
		{240, []int{1, 50, 100, 150, 200}},
	}
	for _, tt := range tests {
		if got := tickSteps(tt.n); !slices.Equal(got, tt.want) {
			t.Errorf("tickSteps(%d) = %v, want %v", tt.n, got, tt.want)
		}
	}
}

func TestTimelineHasOneMarkPerCallAtItsStep(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 5, 35, 36, plotWidth} {
		calls := make([]callView, n)
		for i := range calls {
			calls[i] = callView{Step: i + 1, Class: "c-file", Subagent: i%7 == 3}
		}
		tl := newTimeline("t", calls, nil, false)
		if tl.Dense || len(tl.Marks) != n {
			t.Errorf("%d calls: %d marks", n, len(tl.Marks))
			continue
		}
		for i, m := range tl.Marks {
			if m.Step != i+1 {
				t.Errorf("%d calls: mark %d is step %d", n, i, m.Step)
				break
			}
		}
		if tl.Width > labelWidth+plotWidth+13 {
			t.Errorf("%d calls: %d units wide, more than the plot allows", n, tl.Width)
		}
	}
}

func TestADenseTimelineHasColumnsThatCoverEveryCallOnce(t *testing.T) {
	t.Parallel()
	for _, n := range []int{plotWidth + 1, 2000, 21710} {
		calls := make([]callView, n)
		for i := range calls {
			calls[i] = callView{Step: i + 1, Class: []string{"c-semantic", "c-file", "c-edit", "c-other"}[i%4], Subagent: i%5 == 0, GroundHit: i%500 == 499}
		}
		tl := newTimeline("t", calls, nil, true)
		if !tl.Dense || len(tl.Marks) != 0 {
			t.Fatalf("%d calls: dense %v with %d marks, want columns instead of marks", n, tl.Dense, len(tl.Marks))
		}
		// The columns of both lanes together follow each other without a
		// gap or overlap (a lane has no column where it has no call).
		to := map[int]int{}
		for _, b := range tl.Buckets {
			if end, ok := to[b.From]; ok && end != b.To {
				t.Fatalf("%d calls: two columns start at step %d and end at %d and %d", n, b.From, end, b.To)
			}
			to[b.From] = b.To
			if len(b.Segs) == 0 {
				t.Errorf("%d calls: column %d–%d has no segment", n, b.From, b.To)
			}
		}
		next := 1
		for len(to) > 0 {
			end, ok := to[next]
			if !ok {
				t.Fatalf("%d calls: no column starts at step %d", n, next)
			}
			delete(to, next)
			next = end + 1
		}
		if next != n+1 {
			t.Errorf("%d calls: the columns end at step %d, want %d", n, next-1, n)
		}
		if len(tl.Buckets) > 2*plotWidth/denseColumn {
			t.Errorf("%d calls: %d columns, more than the plot has room for", n, len(tl.Buckets))
		}
		if len(tl.Dots) == 0 || tl.Dots[0].Class != "gt first" || len(tl.Labels) == 0 || tl.Labels[len(tl.Labels)-1].Text != "first hit: step 500" {
			t.Errorf("%d calls: the first ground-truth hit is not marked and labelled: %+v %+v", n, tl.Dots[:min(1, len(tl.Dots))], tl.Labels)
		}
	}
}

// contrast is the WCAG contrast ratio of two colours written #rrggbb.
func contrast(a, b string) float64 {
	lum := func(hex string) float64 {
		var rgb [3]float64
		for i := range rgb {
			v, _ := strconv.ParseUint(hex[1+2*i:3+2*i], 16, 8)
			c := float64(v) / 255
			if c <= 0.03928 {
				rgb[i] = c / 12.92
			} else {
				rgb[i] = math.Pow((c+0.055)/1.055, 2.4)
			}
		}
		return 0.2126*rgb[0] + 0.7152*rgb[1] + 0.0722*rgb[2]
	}
	la, lb := lum(a), lum(b)
	return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
}

// The marks of the timeline are graphics: each class's colour stands out
// from the white page by at least 3:1, and its letter from the mark by
// 4.5:1.
func TestClassColoursHaveContrast(t *testing.T) {
	t.Parallel()
	vars := map[string]string{}
	for _, m := range regexp.MustCompile(`--([a-z]+): (#[0-9a-f]{6})`).FindAllStringSubmatch(pageCSS, -1) {
		vars[m[1]] = m[2]
	}
	letter := map[string]string{"semantic": "#ffffff", "file": "#1b1f24", "edit": "#1b1f24", "other": "#1b1f24"}
	for _, class := range []string{"semantic", "file", "edit", "other"} {
		c, ok := vars[class]
		if !ok {
			t.Fatalf("no --%s colour in the style sheet", class)
		}
		if r := contrast(c, "#ffffff"); r < 3 {
			t.Errorf("--%s %s against white: %.2f:1, want at least 3:1", class, c, r)
		}
		if r := contrast(c, letter[class]); r < 4.5 {
			t.Errorf("the letter on a %s mark (%s on %s): %.2f:1, want at least 4.5:1", class, letter[class], c, r)
		}
	}
}

func TestCommandOfIsWhatACallRan(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"a shell call's command line", map[string]any{"command": "ls -la", "description": "List files"}, "ls -la"},
		{"an argument list run by a shell with -lc", map[string]any{"command": []any{"bash", "-lc", "rg -n token"}}, "rg -n token"},
		{"an argument list run directly", map[string]any{"cmd": []any{"git", "status"}}, "git status"},
		{"a subagent's description", map[string]any{"description": "Find the expiry rule", "prompt": "…"}, "Find the expiry rule"},
		{"a read names no command", map[string]any{"file_path": "a.go"}, ""},
	}
	for _, tt := range tests {
		if got := commandOf(tt.args); got != tt.want {
			t.Errorf("%s: commandOf = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// A call's entry keeps what it ran, its whole arguments and as much of its
// result as a page keeps; the trace's prompt and answer come along.
func TestTheCallDataHoldsWholeCalls(t *testing.T) {
	t.Parallel()
	var result, arg strings.Builder
	for i := range 40 {
		fmt.Fprintf(&result, "file%02d.go\n", i)
		fmt.Fprintf(&arg, "line %d\n", i)
	}
	sess := &trace.Session{Prompt: "Fix the\texpiry\n\x1b[2J", Answer: "Done.", Calls: []trace.ToolCall{
		{Name: "Bash", Arguments: json.RawMessage(`{"command":"ls -la"}`), Result: result.String(), HasResult: true},
		{Name: "Write", Arguments: mustJSON(t, map[string]any{"file_path": "a.go", "content": arg.String()}), HasResult: true},
		{Name: "Read", Arguments: json.RawMessage(`{"file_path":"big.go"}`), Result: strings.Repeat("x\n", keptResultLines+7), HasResult: true},
	}}
	tax, err := events.LoadTaxonomy(nil)
	if err != nil {
		t.Fatal(err)
	}
	doc := events.Normalize(sess, events.Options{Taxonomy: tax})
	tv := newTraceView("t1", &expectations.Run{Trace: "x", Session: sess, Document: doc, Metrics: metrics.Compute(doc, metrics.Options{})})
	d, err := decodeData(tv.Data, tv.Details)
	if err != nil {
		t.Fatal(err)
	}
	if d.Prompt != `Fix the    expiry`+"\n"+`\u001b[2J` || d.Answer != "Done." {
		t.Errorf("prompt %q, answer %q", d.Prompt, d.Answer)
	}
	if len(d.Calls) != 3 {
		t.Fatalf("%d calls", len(d.Calls))
	}
	if c := d.Calls[0]; c.Command != "ls -la" || c.Result != strings.TrimSuffix(result.String(), "\n") || c.Note != "" {
		t.Errorf("the Bash call: ran %q, result %q, note %q", c.Command, c.Result, c.Note)
	}
	if c := d.Calls[1]; !strings.Contains(c.Args, `line 39\n`) || c.ArgsNote != "" {
		t.Errorf("the Write call's arguments are not whole: %q %q", c.Args, c.ArgsNote)
	}
	if c := d.Calls[2]; strings.Count(c.Result, "\n") != keptResultLines-1 || !strings.HasPrefix(c.Note, "… 7 more lines not kept") {
		t.Errorf("a result past what a page keeps: %d lines, note %q", strings.Count(c.Result, "\n")+1, c.Note)
	}
	if n := tv.Counts; n.Total != 3 || n.Semantic+n.File+n.Edit+n.Other != 3 {
		t.Errorf("counts %+v", tv.Counts)
	}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A pattern's band says its steps when they fit in it, else its first
// step beside it; labels of a row never overlap.
func TestPatternStartsAreLabelledWithoutOverlap(t *testing.T) {
	t.Parallel()
	calls := make([]callView, 400)
	for i := range calls {
		calls[i] = callView{Step: i + 1, Class: "c-file"}
	}
	var patterns []metrics.Pattern
	for s := 0; s < 400; s += 4 {
		patterns = append(patterns, metrics.Pattern{Name: metrics.PatternGuessing, Steps: []int{s}})
	}
	fishing := metrics.Pattern{Name: metrics.PatternFishing}
	for s := 100; s < 200; s++ {
		fishing.Steps = append(fishing.Steps, s)
	}
	patterns = append(patterns, fishing)
	tl := newTimeline("t", calls, patterns, false)
	ends := map[int]float64{}
	starts := 0
	for _, l := range tl.Labels {
		x, _ := strconv.ParseFloat(l.X, 64)
		if x < ends[l.Y] {
			t.Errorf("label %q at %.1f overlaps the one before, which ends at %.1f", l.Text, x, ends[l.Y])
		}
		ends[l.Y] = x + float64(len(l.Text))*charWidth
		if l.Class == "start" {
			starts++
		}
	}
	if starts == 0 || starts >= 100 {
		t.Errorf("%d of 100 narrow guessing bands labelled, want some but not all on a crowded row", starts)
	}
	for _, b := range tl.Bands {
		if strings.HasPrefix(b.Class, "b-fishing") && b.Text != "steps 101–200" {
			t.Errorf("the fishing band reads %q, want its steps", b.Text)
		}
	}
}

// A curve is drawn on the chart's axes: call k at Left + k/calls of the
// width, a share v at Base − v of the height; the labels and ticks sit at
// fixed offsets from them.
func TestCoverageCurvesArePlacedOnTheAxes(t *testing.T) {
	t.Parallel()
	ch := newCoverageChart([]coverageCurve{
		{Config: "a", Tasks: 2, Points: []float64{0, 0.5, 1}},
		{Config: "b", Tasks: 1, Points: []float64{0, 0.25}},
	})
	if got, want := []int{ch.LabelX, ch.TickY, ch.TickTextY, ch.AxisTitleY}, []int{50, 285, 298, 314}; !slices.Equal(got, want) {
		t.Errorf("label x, tick y, tick text y, axis title y: got %v, want %v", got, want)
	}
	// Left 56, right 600, top 16, base 280; two calls at most.
	if got, want := ch.Series[0].Points, "56.00,280.00 328.00,148.00 600.00,16.00 "; got != want {
		t.Errorf("points of a: got %q, want %q", got, want)
	}
	if got, want := ch.Series[1].Points, "56.00,280.00 328.00,214.00 "; got != want {
		t.Errorf("points of b: got %q, want %q", got, want)
	}
	if got, want := [2]string{ch.Series[0].EndX, ch.Series[0].EndY}, [2]string{"606.00", "20.00"}; got != want {
		t.Errorf("end label of a at %v, want %v", got, want)
	}
	var ys []string
	for _, tk := range ch.YTicks {
		ys = append(ys, tk.Pos)
	}
	if want := []string{"280.00", "214.00", "148.00", "82.00", "16.00"}; !slices.Equal(ys, want) {
		t.Errorf("y ticks at %v, want %v", ys, want)
	}
}

// Labels of curves that end at the same height are put one below the
// other, each 12 below the one it would hide.
func TestCoverageLabelsThatWouldOverlapAreMovedDown(t *testing.T) {
	t.Parallel()
	ch := newCoverageChart([]coverageCurve{
		{Config: "a", Tasks: 1, Points: []float64{0, 1}},
		{Config: "b", Tasks: 1, Points: []float64{0, 0.25}},
		{Config: "c", Tasks: 1, Points: []float64{0, 1}},
		{Config: "d", Tasks: 1, Points: []float64{0, 1}},
	})
	var ys []string
	for _, s := range ch.Series {
		ys = append(ys, s.EndY)
	}
	if want := []string{"20.00", "218.00", "32.00", "44.00"}; !slices.Equal(ys, want) {
		t.Errorf("end labels at y %v, want %v", ys, want)
	}
}
