package metrics

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WriteDefinitions prints every metric of Definitions: its name (k
// standing for a cutoff such as 5, and "[read.]" before a name that also
// exists for the read view), its label, and its definition.
func WriteDefinitions(w io.Writer) error {
	var b strings.Builder
	b.WriteString("Metric names as scenarios, -metrics and godog steps take them; k is a cutoff\n")
	b.WriteString("such as 5 (recall@5); [read.] marks a figure that also exists for the read view.\n\n")
	for _, d := range Definitions() {
		name := d.Name
		if d.Views {
			name = "[read.]" + name
		}
		label := d.Label
		if d.Bounded {
			label += ", in [0, 1]"
		}
		fmt.Fprintf(&b, "%s\n    %s: %s\n", name, label, d.Definition)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ParseCutoffs parses a comma-separated list of @k cutoffs ("1,3,5,10"),
// each a whole number of 1 or more.
func ParseCutoffs(s string) ([]int, error) {
	var ks []int
	for f := range strings.SplitSeq(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k < 1 {
			return nil, fmt.Errorf("%q is not a cutoff: want whole numbers of 1 or more, comma-separated", f)
		}
		ks = append(ks, k)
	}
	return ks, nil
}
