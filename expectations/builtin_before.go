package expectations

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentretrieval/agentretrieval/events"
)

// Before are the parameters of the before expectation: calls of one kind
// come before calls of another.
type Before struct {
	First CallPattern `yaml:"first" doc:"the calls that must come first (A): a tool name or glob, class:NAME, category:NAME, or {tool, class, category, args, match}"`
	Then  CallPattern `yaml:"then" doc:"the calls that must come after (B), written like first"`
	Mode  string      `yaml:"mode" doc:"first: both occur and the first A precedes the first B (default); every: every B has an A before it, that is no B before the first A (a run without B passes)" enum:"first,every"`
	// SameFile judges each file apart.
	SameFile bool `yaml:"same_file" doc:"with mode every, judge each file apart: every B call needs an A call on one of its files before it (\"no edit before the first read of that file\")"`
}

func beforeType() Type {
	return Type{
		Name:        "before",
		Description: "calls of one kind (first) come before calls of another (then): by tool name or glob, class, category or arguments",
		Params:      Before{},
		Check:       func(p any, run *Run) Outcome { return checkBefore(p.(*Before), run) },
		Validate: func(p any) error {
			b := p.(*Before)
			if b.SameFile && b.Mode == "first" {
				return errors.New("same_file judges every then call on its own files: give mode: every, or leave mode out")
			}
			if err := b.First.validate("first", false); err != nil {
				return err
			}
			if err := b.Then.validate("then", false); err != nil {
				return err
			}
			if b.First.String() == b.Then.String() {
				return fmt.Errorf("first and then are the same pattern %s: a call cannot come before itself", b.First)
			}
			return nil
		},
	}
}

func checkBefore(b *Before, run *Run) Outcome {
	calls, paths, ok := callViews(run)
	if !ok {
		return fail("the run has no trace to read tool calls from")
	}
	mode := b.Mode
	switch {
	case b.SameFile:
		mode = "every"
	case mode == "":
		mode = "first"
	}
	a, then := b.First.String(), b.Then.String()
	var as, bs []callView
	for _, c := range calls {
		if b.First.matches(c, paths) {
			as = append(as, c)
		}
		if b.Then.matches(c, paths) {
			bs = append(bs, c)
		}
	}
	o := Outcome{Status: Pass, Measured: fmt.Sprintf("%s %s, %s %s", a, stepsOrNone(as), then, stepsOrNone(bs))}
	if len(as) > 0 {
		o.Evidence = append(o.Evidence, fmt.Sprintf("%s at %s", a, stepsText(stepsOf(as))))
	}
	if len(bs) > 0 {
		o.Evidence = append(o.Evidence, fmt.Sprintf("%s at %s", then, stepsText(stepsOf(bs))))
	}
	if b.SameFile {
		o.Threshold = fmt.Sprintf("every %s preceded by a %s on the same file", then, a)
		bad := unprecededOnFile(calls, b, paths)
		if len(bad) > 0 {
			o.Status = Fail
			o.Evidence = append([]string{"the calls that broke the rule: " + strings.Join(bad, ", ")}, o.Evidence...)
			o.Message = fmt.Sprintf("%s without a %s on the same file before: %s", plural1(len(bad), "call", "calls"), a, strings.Join(bad, ", "))
			return o
		}
		o.Message = fmt.Sprintf("every %s (%d) has a %s on the same file before it", then, len(bs), a)
		if len(bs) == 0 {
			o.Message = fmt.Sprintf("no %s call: nothing to precede", then)
		}
		return o
	}
	switch mode {
	case "first":
		o.Threshold = fmt.Sprintf("the first %s before the first %s", a, then)
		switch {
		case len(bs) == 0:
			o.Status, o.Message = Fail, fmt.Sprintf("no %s call: nothing came after %s (mode every allows a run without it)", then, a)
		case len(as) == 0:
			o.Status, o.Message = Fail, fmt.Sprintf("no %s call before the first %s at %s", a, then, callText(bs[0]))
			o.Evidence = append([]string{"the call that broke the rule: " + callText(bs[0])}, o.Evidence...)
		case as[0].step > bs[0].step:
			o.Status, o.Message = Fail, fmt.Sprintf("the first %s at %s comes after the first %s at %s", a, callText(as[0]), then, callText(bs[0]))
			o.Evidence = append([]string{fmt.Sprintf("the calls that broke the rule: %s came before %s", callText(bs[0]), callText(as[0]))}, o.Evidence...)
		default:
			o.Message = fmt.Sprintf("the first %s at %s precedes the first %s at %s", a, callText(as[0]), then, callText(bs[0]))
		}
	case "every":
		o.Threshold = fmt.Sprintf("no %s before the first %s", then, a)
		var early []string
		for _, bc := range bs {
			if len(as) == 0 || bc.step < as[0].step {
				early = append(early, callText(bc))
			}
		}
		if len(early) > 0 {
			o.Status = Fail
			o.Evidence = append([]string{"the calls that broke the rule: " + strings.Join(early, ", ")}, o.Evidence...)
			o.Message = fmt.Sprintf("%s with no %s before: %s", plural1(len(early), then+" call", then+" calls"), a, strings.Join(early, ", "))
		} else {
			o.Message = fmt.Sprintf("every %s (%d) has a %s before it", then, len(bs), a)
			if len(bs) == 0 {
				o.Message = fmt.Sprintf("no %s call: nothing to precede", then)
			}
		}
	}
	return o
}

// unprecededOnFile walks the calls once and names every then call that
// names a file but follows no first call naming one of its files. A call
// that matches both does not precede itself.
func unprecededOnFile(calls []callView, b *Before, paths events.PathNormalizer) []string {
	seen := map[string]bool{}
	var bad []string
	for _, c := range calls {
		if b.Then.matches(c, paths) && len(c.files) > 0 {
			ok := false
			for _, f := range c.files {
				if seen[paths.Key(f)] {
					ok = true
					break
				}
			}
			if !ok {
				bad = append(bad, callText(c))
			}
		}
		if b.First.matches(c, paths) {
			for _, f := range c.files {
				seen[paths.Key(f)] = true
			}
		}
	}
	return bad
}

func stepsOf(cs []callView) []int {
	out := make([]int, len(cs))
	for i, c := range cs {
		out[i] = c.step
	}
	return out
}

func stepsOrNone(cs []callView) string {
	if len(cs) == 0 {
		return "never called"
	}
	return "at " + stepsText(stepsOf(cs))
}
