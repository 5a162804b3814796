package expectations

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"github.com/agentretrieval/agentretrieval/groundtruth"
	"github.com/agentretrieval/agentretrieval/internal/yamlerr"
)

// groundTruth loads the scenario's ground truth: {from: SPEC} through
// groundtruth.Load, anything else inline through groundtruth.Parse.
func (l *loader) groundTruth(e *entry, nextLine int) {
	n := l.resolve(e.value)
	if es, ok := l.entries(n); ok && hasKey(es, "from") {
		l.groundTruthFrom(es)
		return
	}
	switch n.(type) {
	case *ast.MappingNode, *ast.MappingValueNode, *ast.SequenceNode:
	default:
		hint := ""
		if _, isString := l.resolve(n).(*ast.StringNode); isString {
			s, _ := l.scalarText(n)
			hint = fmt.Sprintf("; to load a file write {from: %s}", s)
		}
		l.at(n, "ground_truth: expected a list of paths, a mapping (files, symbols, expected_edit_files, chunks) or {from: FILE}, got %s%s", l.kindOf(n), hint)
		return
	}
	src := l.isolate(n, nextLine)
	_, isAlias := e.value.(*ast.AliasNode)
	if isAlias {
		// The value is elsewhere in the file; its text stands in, and
		// errors are reported at the alias.
		src = []byte(n.String())
	}
	truth, err := groundtruth.Parse(l.file, src)
	if err != nil {
		l.truthError(e.value, err, !isAlias)
		return
	}
	truth.Source = l.file + "#ground_truth"
	l.s.GroundTruth = truth
}

// nextKeyLine is the line of the first root key after e, or 0 when e is
// the last one.
func nextKeyLine(es []entry, e *entry) int {
	line, _ := nodeLineCol(e.keyNode)
	next := 0
	for _, o := range es {
		if l, _ := nodeLineCol(o.keyNode); l > line && (next == 0 || l < next) {
			next = l
		}
	}
	return next
}

func (l *loader) groundTruthFrom(es []entry) {
	var from *entry
	for i := range es {
		if es[i].key == "from" {
			from = &es[i]
			continue
		}
		l.at(es[i].keyNode, "ground_truth: %s is not allowed beside from (the loaded file holds the ground truth)", quoteKey(es[i].key))
	}
	var spec string
	if !l.value(from.value, reflect.ValueOf(&spec).Elem(), limits{}, "ground_truth.from") {
		return
	}
	p := resolvePath(l.dir, spec)
	if _, err := os.Stat(p); err != nil {
		l.at(from.value, "ground_truth.from: %s does not exist", p)
		return
	}
	truth, err := groundtruth.Load(p)
	if err != nil {
		l.at(from.value, "ground_truth.from: %v", err)
		return
	}
	l.s.GroundTruth = truth
}

// isolate returns the file with everything but node n blanked out, lines
// and columns kept, so that groundtruth.Parse reports positions in the
// scenario file itself.
func (l *loader) isolate(n ast.Node, nextLine int) []byte {
	startLine, startCol := nodeLineCol(n)
	if seq, ok := n.(*ast.SequenceNode); ok && !seq.IsFlowStyle {
		startLine, startCol = tokenLineCol(seq.GetToken())
	}
	lines := strings.SplitAfter(string(l.data), "\n")
	endLine := len(lines)
	if nextLine > 0 {
		endLine = nextLine - 1
	}
	var b strings.Builder
	for i, line := range lines {
		no := i + 1
		switch {
		case no < startLine || no > endLine:
			b.WriteString("\n")
		case no == startLine:
			r := []rune(line)
			cut := min(max(startCol-1, 0), len(r))
			b.WriteString(strings.Repeat(" ", cut))
			b.WriteString(string(r[cut:]))
		default:
			b.WriteString(line)
		}
	}
	return []byte(b.String())
}

func (l *loader) truthError(n ast.Node, err error, placed bool) {
	var ye *yamlerr.Error
	if errors.As(err, &ye) && ye.Line > 0 && placed {
		l.errs = append(l.errs, &yamlerr.Error{File: l.file, Line: ye.Line, Col: ye.Col, Msg: "ground_truth: " + ye.Msg})
		return
	}
	msg := err.Error()
	if errors.As(err, &ye) {
		msg = ye.Msg
	}
	l.at(n, "ground_truth: %s", strings.TrimPrefix(msg, l.file+": "))
}
