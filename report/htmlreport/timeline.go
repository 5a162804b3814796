package htmlreport

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/metrics"
)

// Geometry of a timeline, in SVG user units (CSS pixels at full size).
const (
	labelWidth  = 118 // the row labels at the left
	plotWidth   = 840 // the widest the marks get
	maxPitch    = 36  // a mark's slot when there are few calls
	rowHeight   = 26
	rowGap      = 4
	axisHeight  = 30
	letterPitch = 11  // the smallest slot that still fits a class letter
	charWidth   = 5.5 // the width of a character of a label, about
)

// A timeline is the SVG of a trace's calls: one row per lane (patterns,
// main agent, subagent, ground-truth hits, errors) with its label, one
// mark per call at its step, bands over pattern occurrences, and an axis
// of steps.
type timeline struct {
	ID            string
	Width, Height int
	Calls         int
	Rows          []row
	Overlays      []band // pattern occurrences, faint, behind the agent lanes
	Bands         []band
	Marks         []mark
	Dots          []dot
	AxisX, AxisY  int
	TickY         int
	TickTextY     int
	HasTruth      bool
	HasErrors     bool
	Ticks         []tick
	Legend        []legendItem
	HasSubagent   bool
	Patterns      []string
	// Pitch is the width of a step, for the script to map steps to x and
	// back; Plot is the width of the steps' area.
	Pitch, Plot string
	// Dense is a timeline of more calls than it has room for: Buckets
	// replace Marks.
	Dense   bool
	Buckets []bucket
	Labels  []label
}

// A bucket is a run of consecutive calls of one lane drawn as one column
// whose segments are the shares of each class.
type bucket struct {
	Title    string
	From, To int // the first and last step it covers, 1-based
	Segs     []seg
}

type seg struct {
	Class      string
	X, Y, W, H string
}

// A label is text on a timeline: the first ground-truth hit, the start
// of a pattern occurrence too short for its steps to be written in it.
type label struct {
	Class, Text, X, Anchor string
	Y                      int
}

type row struct {
	Label               string
	Y, TextY, H, Bottom int
}

type band struct {
	Class, Title, Text string
	X, Y, W, H, TextX  string
	TextY              int
}

type mark struct {
	Class, Title, Letter, LetterClass string
	Step                              int
	X, Y, W, H, LetterX               string
	LetterY                           int
}

type dot struct {
	Class, Title string
	Step         int
	CX           string
	CY           int
}

type tick struct {
	X     string
	Label string
}

type legendItem struct{ Class, Letter, Label string }

// newTimeline lays out the calls; hasTruth adds the ground-truth row even
// when no call hit it, so that its absence shows.
func newTimeline(id string, calls []callView, patterns []metrics.Pattern, hasTruth bool) *timeline {
	n := len(calls)
	tl := &timeline{ID: id, Calls: n}
	pitch := float64(maxPitch)
	if n > 0 && float64(n)*pitch > plotWidth {
		pitch = plotWidth / float64(n)
	}
	plot := pitch * float64(max(n, 1))
	tl.Width = labelWidth + int(plot+0.999) + 12
	x := func(step0 int) float64 { return labelWidth + float64(step0)*pitch }
	markW := max(pitch-2, 1)
	if pitch < 3 {
		markW = max(pitch, 0.5)
	}
	tl.Pitch, tl.Plot = strconv.FormatFloat(pitch, 'g', 8, 64), num(plot)
	tl.Dense = n > plotWidth

	y := 4
	addRow := func(label string) row {
		r := row{Label: label, Y: y, TextY: y + rowHeight/2 + 4, H: rowHeight, Bottom: y + rowHeight + rowGap/2}
		tl.Rows = append(tl.Rows, r)
		y += rowHeight + rowGap
		return r
	}

	// Pattern rows, fishing first (the widest bands on top), only for the
	// patterns that occurred.
	byName := map[string][]metrics.Pattern{}
	for _, p := range patterns {
		byName[p.Name] = append(byName[p.Name], p)
	}
	type pending struct {
		p metrics.Pattern
		r row
	}
	var occurrences []pending
	for _, name := range []string{metrics.PatternFishing, metrics.PatternGuessing, metrics.PatternDirect} {
		ps := byName[name]
		if len(ps) == 0 {
			continue
		}
		tl.Patterns = append(tl.Patterns, name)
		r := addRow(fmt.Sprintf("%s (%d)", name, len(ps)))
		for _, p := range ps {
			occurrences = append(occurrences, pending{p, r})
		}
	}

	for _, c := range calls {
		if c.Subagent {
			tl.HasSubagent = true
		}
	}
	mainRow := addRow("main agent")
	subRow := mainRow
	if tl.HasSubagent {
		subRow = addRow("subagent")
	}
	lanesTop, lanesBottom := mainRow.Y, subRow.Y+subRow.H

	var hitRow, errRow *row
	anyErr := false
	for _, c := range calls {
		anyErr = anyErr || c.Error
	}
	if hasTruth {
		r := addRow("ground-truth hit")
		hitRow = &r
	}
	if anyErr {
		r := addRow("failed call")
		errRow = &r
	}

	labelEnd := map[int]float64{} // where the last label of a row ends
	for _, o := range occurrences {
		first, last, ok := stepsOf(o.p)
		if !ok || first >= n {
			continue
		}
		last = min(last, n-1)
		class := "b-" + o.p.Name
		title := clean(o.p.Name + ", " + metrics.StepsText(o.p.Steps) + ": " + o.p.Detail)
		if strings.Contains(o.p.Detail, metrics.StepsText(o.p.Steps)) {
			title = clean(o.p.Name + ": " + o.p.Detail)
		}
		if o.p.Information {
			class += " info"
			title += " (information: the agent was offered no semantic tool)"
		}
		bx, bw := x(first), float64(last-first)*pitch+markW
		b := band{Class: class, Title: title, X: num(bx), Y: strconv.Itoa(o.r.Y + 3), W: num(bw), H: strconv.Itoa(o.r.H - 6)}
		// A band too narrow for its steps has its first step beside it,
		// unless that would overlap the row's previous label.
		if text := metrics.StepsText(o.p.Steps); bw >= 40 && float64(utf8.RuneCountInString(text))*charWidth+6 <= bw {
			b.Text, b.TextX, b.TextY = text, num(bx+3), o.r.TextY
			labelEnd[o.r.Y] = bx + bw
		} else if start := strconv.Itoa(first + 1); bx+bw+2 >= labelEnd[o.r.Y] {
			tl.Labels = append(tl.Labels, label{Class: "start", Text: start, X: num(bx + bw + 2), Anchor: "start", Y: o.r.TextY})
			labelEnd[o.r.Y] = bx + bw + 2 + float64(len(start))*charWidth + 4
		}
		tl.Bands = append(tl.Bands, b)
		tl.Overlays = append(tl.Overlays, band{Class: class, X: num(bx), Y: strconv.Itoa(lanesTop), W: num(bw), H: strconv.Itoa(lanesBottom - lanesTop)})
	}

	if tl.Dense {
		tl.Buckets = buckets(calls, pitch, mainRow, subRow)
	}
	firstHit := -1
	lastDot := map[string]float64{}
	for i := range calls {
		c := &calls[i]
		r := mainRow
		if c.Subagent {
			r = subRow
		}
		if !tl.Dense {
			m := mark{
				Class: c.Class, Title: markTitle(c), Step: c.Step,
				X: num(x(i) + (pitch-markW)/2), Y: strconv.Itoa(r.Y + 2), W: num(markW), H: strconv.Itoa(r.H - 4),
			}
			if c.Error {
				m.Class += " err"
			}
			if pitch >= letterPitch {
				m.Letter, m.LetterClass = c.Letter, "letter dark"
				if c.Class == "c-semantic" {
					m.LetterClass = "letter"
				}
				m.LetterX, m.LetterY = num(x(i)+pitch/2), r.TextY
			}
			tl.Marks = append(tl.Marks, m)
		}
		// On a dense timeline a dot stands for every hit or failure within
		// a few units of it.
		addDot := func(class, title string, r *row) {
			cx := x(i) + pitch/2
			if last, ok := lastDot[class]; ok && tl.Dense && cx-last < 3 {
				return
			}
			lastDot[class] = cx
			tl.Dots = append(tl.Dots, dot{Class: class, Title: title, Step: c.Step, CX: num(cx), CY: r.Y + r.H/2})
		}
		if c.GroundHit && hitRow != nil {
			if firstHit < 0 {
				firstHit = i
				addDot("gt first", fmt.Sprintf("step %d is the first call that hits the ground truth", c.Step), hitRow)
			} else {
				addDot("gt", fmt.Sprintf("step %d hits the ground truth", c.Step), hitRow)
			}
		}
		if c.Error && errRow != nil {
			addDot("fail", fmt.Sprintf("step %d failed", c.Step), errRow)
		}
	}
	if firstHit >= 0 {
		cx := x(firstHit) + pitch/2
		l := label{Class: "first-hit", Text: fmt.Sprintf("first hit: step %d", firstHit+1), X: num(cx + 8), Anchor: "start", Y: hitRow.TextY}
		if cx > labelWidth+plot*0.7 {
			l.X, l.Anchor = num(cx-8), "end"
		}
		tl.Labels = append(tl.Labels, l)
	}

	tl.AxisX, tl.AxisY = labelWidth, y+2
	tl.TickY, tl.TickTextY = tl.AxisY+5, tl.AxisY+17
	tl.HasTruth, tl.HasErrors = hasTruth, anyErr
	for _, s := range tickSteps(n) {
		tl.Ticks = append(tl.Ticks, tick{X: num(x(s-1) + pitch/2), Label: strconv.Itoa(s)})
	}
	tl.Height = tl.AxisY + axisHeight
	for _, c := range []events.Class{events.Semantic, events.FileLevel, events.Edit, events.OtherClass} {
		css, letter, label := classOf(c)
		tl.Legend = append(tl.Legend, legendItem{Class: css, Letter: letter, Label: label})
	}
	return tl
}

// tickSteps are the 1-based steps the axis labels: the first, and every
// multiple of a round interval that keeps the labels at ten or fewer.
func tickSteps(n int) []int {
	if n == 0 {
		return nil
	}
	interval := 1
	for _, iv := range []int{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000} {
		interval = iv
		if n/iv <= 10 {
			break
		}
	}
	steps := []int{1}
	for s := interval; s <= n; s += interval {
		if s != 1 {
			steps = append(steps, s)
		}
	}
	return steps
}

// num writes a coordinate with at most two decimals.
func num(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

// denseColumn is the width of a column of a dense timeline.
const denseColumn = 2

// buckets draws the calls of a dense timeline: in each lane, one column
// per denseColumn units, split into the shares of each class of the calls
// it covers.
func buckets(calls []callView, pitch float64, mainRow, subRow row) []bucket {
	n := len(calls)
	cols := int(float64(n)*pitch) / denseColumn
	var out []bucket
	classes := []string{"c-semantic", "c-file", "c-edit", "c-other"}
	labels := map[string]string{"c-semantic": "semantic", "c-file": "file-level", "c-edit": "edit", "c-other": "other"}
	for col := range cols {
		from, to := col*n/cols, (col+1)*n/cols
		for _, lane := range []struct {
			r   row
			sub bool
		}{{mainRow, false}, {subRow, true}} {
			if lane.sub && subRow == mainRow {
				continue
			}
			count := map[string]int{}
			total := 0
			for _, c := range calls[from:to] {
				if c.Subagent == lane.sub {
					count[c.Class]++
					total++
				}
			}
			if total == 0 {
				continue
			}
			var parts []string
			b := bucket{From: from + 1, To: to}
			y := float64(lane.r.Y + 2)
			h := float64(lane.r.H - 4)
			for _, cl := range classes {
				if count[cl] == 0 {
					continue
				}
				parts = append(parts, fmt.Sprintf("%d %s", count[cl], labels[cl]))
				sh := h * float64(count[cl]) / float64(total)
				b.Segs = append(b.Segs, seg{Class: cl, X: num(labelWidth + float64(col*denseColumn)), Y: num(y), W: strconv.Itoa(denseColumn), H: num(sh)})
				y += sh
			}
			who := "main agent"
			if lane.sub {
				who = "subagent"
			}
			b.Title = fmt.Sprintf("steps %d–%d, %s: %s", from+1, to, who, strings.Join(parts, ", "))
			out = append(out, b)
		}
	}
	return out
}
