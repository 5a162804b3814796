package htmlreport

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/runs"
)

// A coverageCurve is, for one configuration, the mean share of the
// ground-truth files surfaced after each number of calls: Points[k] after
// k calls, Points[0] being 0.
type coverageCurve struct {
	Config string
	Tasks  int
	Points []float64
}

// coverageCurves gives, per configuration, the mean coverage curve of its
// computable entries, per task first, then over tasks, as the summary's
// statistics are. A run that ended keeps its final coverage. A summary
// that run-dir or merge made carries the curves (runs.Summary.Coverage);
// for one read from a file, the retrieval-events document of every
// computable entry (EventsFile, relative to dir) is read, and documents
// that cannot be read are left out and named in the notes.
func coverageCurves(s *runs.Summary, dir string) ([]coverageCurve, []string) {
	if known, ok := s.Coverage(); ok {
		var curves []coverageCurve
		for _, c := range known {
			curves = append(curves, coverageCurve{Config: c.Config, Tasks: c.Tasks, Points: c.Points})
		}
		return curves, nil
	}
	var curves []coverageCurve
	var notes []string
	byConfig := map[*runs.ConfigSummary]map[string][][]float64{}
	err := s.EachEntry(func(c *runs.ConfigSummary, e *runs.TaskEntry) error {
		if e.Status != runs.Computable || e.EventsFile == "" {
			return nil
		}
		doc, err := readDocument(filepath.Join(dir, filepath.FromSlash(e.EventsFile)))
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s/%s left out of the coverage curves: %v.", clean(c.Config), clean(e.Name), clean(err.Error())))
			return nil
		}
		if curve := runs.CoverageCurve(doc); curve != nil {
			if byConfig[c] == nil {
				byConfig[c] = map[string][][]float64{}
			}
			byConfig[c][e.Task] = append(byConfig[c][e.Task], curve)
		}
		return nil
	})
	if err != nil {
		return nil, []string{"No coverage curves: " + clean(err.Error()) + "."}
	}
	for _, c := range s.Configs {
		byTask := byConfig[c]
		var perTask [][]float64
		for _, t := range slices.Sorted(maps.Keys(byTask)) {
			perTask = append(perTask, runs.MeanCurve(byTask[t]))
		}
		if len(perTask) == 0 {
			continue
		}
		curves = append(curves, coverageCurve{Config: c.Config, Tasks: len(perTask), Points: runs.MeanCurve(perTask)})
	}
	return curves, notes
}

func readDocument(path string) (*events.Document, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	doc, err := events.ReadDocument(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return doc, nil
}

// coverageChart is the SVG of the coverage curves, with a table of the
// same figures for readers who cannot see the lines.
type coverageChart struct {
	Width, Height          int
	Left, Right, Top, Base int
	LabelX, TickY          int
	TickTextY, AxisTitleY  int
	Series                 []series
	XTicks, YTicks         []axisTick
	Columns                []string
	Rows                   []coverageRow
}

type series struct {
	Label, Class, Points string
	EndX, EndY           string
	EndLabel             string
}

type axisTick struct {
	Pos, Label string
}

type coverageRow struct {
	Calls  string
	Values []string
}

func newCoverageChart(curves []coverageCurve) *coverageChart {
	if len(curves) == 0 {
		return nil
	}
	ch := &coverageChart{Width: 760, Height: 320, Left: 56, Right: 600, Top: 16, Base: 280}
	ch.LabelX, ch.TickY, ch.TickTextY, ch.AxisTitleY = ch.Left-6, ch.Base+5, ch.Base+18, ch.Base+34
	calls := 1
	for _, c := range curves {
		calls = max(calls, len(c.Points)-1)
	}
	x := func(k int) float64 { return float64(ch.Left) + float64(k)/float64(calls)*float64(ch.Right-ch.Left) }
	y := func(v float64) float64 { return float64(ch.Base) - v*float64(ch.Base-ch.Top) }
	var labelYs []float64
	for i, c := range curves {
		s := series{Label: fmt.Sprintf("%s (%d tasks)", clean(c.Config), c.Tasks), Class: fmt.Sprintf("s%d", i%6)}
		var pts []byte
		for k, v := range c.Points {
			pts = fmt.Appendf(pts, "%s,%s ", num(x(k)), num(y(v)))
		}
		s.Points = string(pts)
		last := c.Points[len(c.Points)-1]
		// The label sits right of the last point, below the labels
		// before it when they would overlap.
		ly := y(last) + 4
		for _, prev := range labelYs {
			if ly > prev-12 && ly < prev+12 {
				ly = prev + 12
			}
		}
		labelYs = append(labelYs, ly)
		s.EndX, s.EndY = num(x(len(c.Points)-1)+6), num(ly)
		s.EndLabel = fmt.Sprintf("%s %s", clean(c.Config), percent(last))
		ch.Series = append(ch.Series, s)
		ch.Columns = append(ch.Columns, clean(c.Config))
	}
	ticks := tickSteps(calls)
	if ticks[0] == 1 {
		ticks = append([]int{0}, ticks...)
	}
	for _, k := range ticks {
		ch.XTicks = append(ch.XTicks, axisTick{Pos: num(x(k)), Label: strconv.Itoa(k)})
		row := coverageRow{Calls: strconv.Itoa(k)}
		for _, c := range curves {
			row.Values = append(row.Values, percent(c.Points[min(k, len(c.Points)-1)]))
		}
		ch.Rows = append(ch.Rows, row)
	}
	for _, v := range []float64{0, 0.25, 0.5, 0.75, 1} {
		ch.YTicks = append(ch.YTicks, axisTick{Pos: num(y(v)), Label: percent(v)})
	}
	return ch
}

func percent(v float64) string { return strconv.FormatFloat(100*v, 'f', 0, 64) + "%" }
