package expectations

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentretrieval/agentretrieval/events"
)

// Sequence are the parameters of the sequence expectation: the calls the
// agent should make, and how strictly the trace must follow them.
type Sequence struct {
	Calls []CallPattern `yaml:"calls" doc:"the expected calls, in order: each a tool name or glob, or {tool, class, category, args, match, min, max}"`
	Mode  string        `yaml:"mode" doc:"in_order: the calls appear in this order, other calls between them allowed (default); exact: the trace is these calls and nothing else, in order; unordered: the trace is these calls in any order; subset: every call of the trace is one of these; superset: each of these appears, in any order" enum:"in_order,exact,unordered,subset,superset"`
}

// The sequence modes.
const (
	modeInOrder   = "in_order"
	modeExact     = "exact"
	modeUnordered = "unordered"
	modeSubset    = "subset"
	modeSuperset  = "superset"
)

func sequenceType() Type {
	return Type{
		Name:        "sequence",
		Description: "the order and arguments of the agent's tool calls against an expected list of calls",
		Params:      Sequence{},
		Check:       func(p any, run *Run) Outcome { return checkSequence(p.(*Sequence), run) },
		Validate: func(p any) error {
			s := p.(*Sequence)
			if len(s.Calls) == 0 {
				return errors.New("no calls: give the expected calls under calls")
			}
			for i, c := range s.Calls {
				if err := c.validate(fmt.Sprintf("calls[%d]", i), true); err != nil {
					return err
				}
			}
			if m := s.mode(); m == modeInOrder || m == modeSuperset {
				for i := range s.Calls {
					if lo, hi := s.bounds(i); lo > 0 || hi >= 0 {
						return nil
					}
				}
				return fmt.Errorf("every expected call has min 0 and no max: no run can fail %s", m)
			}
			return nil
		},
	}
}

func (s *Sequence) mode() string {
	if s.Mode == "" {
		return modeInOrder
	}
	return s.Mode
}

// bounds returns the count bounds of expected call i under the mode; hi
// is -1 for no bound.
func (s *Sequence) bounds(i int) (lo, hi int) {
	c := s.Calls[i]
	lo, hi = 1, -1
	if s.mode() == modeSubset {
		lo = 0
	}
	if c.Min != nil {
		lo = *c.Min
	}
	if m := s.mode(); m == modeExact || m == modeUnordered {
		hi = max(lo, 1)
	}
	if c.Max != nil {
		hi = *c.Max
	}
	return lo, hi
}

func countText(lo, hi int) string {
	switch {
	case hi < 0:
		return fmt.Sprintf("≥ %d", lo)
	case lo == hi:
		return fmt.Sprintf("exactly %d", lo)
	}
	return fmt.Sprintf("in [%d, %d]", lo, hi)
}

func checkSequence(s *Sequence, run *Run) Outcome {
	calls, paths, ok := callViews(run)
	if !ok {
		return fail("the run has no trace to read tool calls from")
	}
	switch s.mode() {
	case modeInOrder, modeExact:
		return checkOrdered(s, calls, paths)
	}
	return checkUnordered(s, calls, paths)
}

// expectedText names expected call i (1-based) with its pattern.
func (s *Sequence) expectedText(i int) string {
	return fmt.Sprintf("expected call %d of %d %s", i+1, len(s.Calls), s.Calls[i])
}

// checkOrdered walks the trace once with the expected list as a state
// machine: the current expected call collects the calls that match it,
// and a call that matches a later one (once the current one has its min,
// and every one between may be absent) moves the walk on. In exact mode a
// call that does neither stops the walk there; in in_order mode it is a
// gap.
func checkOrdered(s *Sequence, calls []callView, paths events.PathNormalizer) Outcome {
	n := len(s.Calls)
	exact := s.mode() == modeExact
	matched := make([][]int, n)
	cur, count := 0, 0
	threshold := fmt.Sprintf("all %d expected calls in order (%s)", n, s.mode())
	// failAt fails the walk; at is the call where it stopped (nil at the
	// end of the trace) and want the expected call it was waiting for.
	failAt := func(at *callView, want int, why string) Outcome {
		o := Outcome{Status: Fail, Threshold: threshold}
		o.Measured = fmt.Sprintf("%d of %d expected calls matched", satisfied(s, matched), n)
		o.Evidence = sequenceEvidence(s, matched)
		where := "the end of the trace"
		if at != nil {
			where = callText(*at)
		}
		o.Evidence = append(o.Evidence, fmt.Sprintf("matching stopped at %s, waiting for %s", where, s.expectedText(want)))
		o.Message = why
		return o
	}
	for _, c := range calls {
		next := -1
		lo, _ := s.bounds(cur)
		if count >= lo {
			for j := cur + 1; j < n; j++ {
				if s.Calls[j].matches(c, paths) {
					next = j
					break
				}
				if l, _ := s.bounds(j); l > 0 {
					break
				}
			}
		}
		switch {
		case next >= 0:
			cur, count = next, 1
			matched[cur] = append(matched[cur], c.step)
		case s.Calls[cur].matches(c, paths):
			count++
			matched[cur] = append(matched[cur], c.step)
		case exact:
			want := cur
			if lo, _ := s.bounds(cur); count >= lo && cur+1 < n {
				want = cur + 1
			}
			return failAt(&c, want, fmt.Sprintf("matching stopped at %s: it matches neither %s%s", callText(c), s.expectedText(cur), nextText(s, cur)))
		default:
			continue
		}
		if _, hi := s.bounds(cur); hi >= 0 && count > hi {
			return failAt(&c, cur, fmt.Sprintf("matching stopped at %s: %s matched %s, required %s", callText(c), s.expectedText(cur), plural1(count, "call", "calls"), countText(s.bounds(cur))))
		}
	}
	if lo, _ := s.bounds(cur); count < lo {
		return failAt(nil, cur, fmt.Sprintf("%s matched %s, required %s (%s)", s.expectedText(cur), plural1(count, "call", "calls"), countText(s.bounds(cur)), stoppedText(calls, matched, cur)))
	}
	for j := cur + 1; j < n; j++ {
		if lo, _ := s.bounds(j); lo > 0 {
			return failAt(nil, j, fmt.Sprintf("matching stopped at %s: it never came (%s)", s.expectedText(j), stoppedText(calls, matched, j)))
		}
	}
	o := Outcome{Status: Pass, Threshold: threshold, Measured: fmt.Sprintf("%d of %d expected calls matched", n, n)}
	o.Evidence = sequenceEvidence(s, matched)
	o.Message = fmt.Sprintf("the %d expected calls came in order (%s)", n, s.mode())
	return o
}

// stoppedText says where the walk was when the trace ended before expected
// call i was met.
func stoppedText(calls []callView, matched [][]int, i int) string {
	for j := i; j >= 0; j-- {
		if len(matched[j]) > 0 {
			last := matched[j][len(matched[j])-1]
			return fmt.Sprintf("none after step %d, the last match, among the trace's %s", last+1, plural1(len(calls), "call", "calls"))
		}
	}
	return fmt.Sprintf("none among the trace's %s", plural1(len(calls), "call", "calls"))
}

func nextText(s *Sequence, cur int) string {
	if cur+1 < len(s.Calls) {
		return " nor " + s.expectedText(cur+1)
	}
	return ""
}

func satisfied(s *Sequence, matched [][]int) int {
	k := 0
	for i := range s.Calls {
		if lo, _ := s.bounds(i); len(matched[i]) >= lo {
			k++
		}
	}
	return k
}

func sequenceEvidence(s *Sequence, matched [][]int) []string {
	var ev []string
	for i, steps := range matched {
		if len(steps) > 0 {
			ev = append(ev, fmt.Sprintf("%s matched %s", s.expectedText(i), stepsText(steps)))
		}
	}
	return ev
}

// checkUnordered counts, for each expected call, the calls of the trace
// that match it (a call counts for every expected call it matches), and in
// unordered and subset modes requires every call to match one.
func checkUnordered(s *Sequence, calls []callView, paths events.PathNormalizer) Outcome {
	n := len(s.Calls)
	matched := make([][]int, n)
	var stray []string
	for _, c := range calls {
		hit := false
		for i, p := range s.Calls {
			if p.matches(c, paths) {
				matched[i] = append(matched[i], c.step)
				hit = true
			}
		}
		if !hit {
			stray = append(stray, callText(c))
		}
	}
	mode := s.mode()
	closed := mode == modeUnordered || mode == modeSubset
	var problems []string
	if closed && len(stray) > 0 {
		problems = append(problems, fmt.Sprintf("%s matching no expected call: %s", plural1(len(stray), "call", "calls"), strings.Join(stray, ", ")))
	}
	for i := range s.Calls {
		lo, hi := s.bounds(i)
		if k := len(matched[i]); k < lo || hi >= 0 && k > hi {
			problems = append(problems, fmt.Sprintf("%s matched %s, required %s", s.expectedText(i), plural1(k, "call", "calls"), countText(lo, hi)))
		}
	}
	threshold := map[string]string{
		modeUnordered: fmt.Sprintf("the trace is the %d expected calls, in any order", n),
		modeSubset:    fmt.Sprintf("every call is one of the %d expected calls", n),
		modeSuperset:  fmt.Sprintf("each of the %d expected calls appears, in any order", n),
	}[mode]
	o := Outcome{Status: Pass, Threshold: threshold + " (" + mode + ")", Evidence: sequenceEvidence(s, matched)}
	o.Measured = fmt.Sprintf("%d of %d expected calls matched", satisfied(s, matched), n)
	if closed {
		o.Measured += fmt.Sprintf(", %d of %d calls unexpected", len(stray), len(calls))
	}
	if len(problems) > 0 {
		o.Status = Fail
		o.Message = strings.Join(problems, "; ")
		return o
	}
	o.Message = fmt.Sprintf("%s: %s", o.Measured, threshold)
	return o
}
