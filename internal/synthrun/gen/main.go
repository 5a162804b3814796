// Command gen writes a synthetic benchmark run and its ground truth (see
// package synthrun), to measure run-dir and merge on a run of any size:
//
//	go run ./internal/synthrun/gen -tasks 100 -repeats 4 -run /tmp/run -gt /tmp/gt
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/agentretrieval/agentretrieval/internal/synthrun"
)

func main() {
	run := flag.String("run", "", "run `DIR` to write (required)")
	gt := flag.String("gt", "", "ground-truth `DIR` to write, one task folder per task (required)")
	tasks := flag.Int("tasks", 100, "number of tasks")
	repeats := flag.Int("repeats", 1, "trials of each task in each of the 3 configurations")
	seed := flag.Uint64("seed", 1, "seed of what the trials do")
	flag.Parse()
	if *run == "" || *gt == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	n, err := synthrun.Write(*run, *gt, synthrun.Spec{Tasks: *tasks, Repeats: *repeats, Seed: *seed})
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "gen: wrote %d trials into %s, ground truth into %s\n", n, *run, *gt)
}
