package htmlreport

import (
	"fmt"
	"strconv"
	"strings"

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
	letterPitch = 11 // the smallest slot that still fits a class letter
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
	Href, Class, Title, Letter, LetterClass string
	Step                                    int
	X, Y, W, H, LetterX                     string
	LetterY                                 int
}

type dot struct {
	Class, Title, Href string
	CX                 string
	CY                 int
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
		if bw >= 40 {
			b.Text, b.TextX, b.TextY = metrics.StepsText(o.p.Steps), num(bx+3), o.r.TextY
		}
		tl.Bands = append(tl.Bands, b)
		tl.Overlays = append(tl.Overlays, band{Class: class, X: num(bx), Y: strconv.Itoa(lanesTop), W: num(bw), H: strconv.Itoa(lanesBottom - lanesTop)})
	}

	for i := range calls {
		c := &calls[i]
		r := mainRow
		if c.Subagent {
			r = subRow
		}
		m := mark{
			Href: c.ID, Class: c.Class, Title: markTitle(c), Step: c.Step,
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
		cx := num(x(i) + pitch/2)
		if c.GroundHit && hitRow != nil {
			tl.Dots = append(tl.Dots, dot{Class: "gt", Title: fmt.Sprintf("step %d hits the ground truth", c.Step), Href: c.ID, CX: cx, CY: hitRow.Y + hitRow.H/2})
		}
		if c.Error && errRow != nil {
			tl.Dots = append(tl.Dots, dot{Class: "fail", Title: fmt.Sprintf("step %d failed", c.Step), Href: c.ID, CX: cx, CY: errRow.Y + errRow.H/2})
		}
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
