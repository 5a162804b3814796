package trace_test

import (
	"fmt"
	"log"

	"github.com/agentretrieval/agentretrieval/trace"
)

// The OpenHands evaluation harness writes one task instance a line; each
// is a session whose Task is the instance id.
func ExampleOpenHandsEval() {
	all, err := trace.ReadFileAll("testdata/openhands/output.jsonl", trace.Options{})
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range all {
		fmt.Println(s.Format, s.Task, len(s.Calls), "calls,", s.Usage.Total(), "tokens")
	}
	one, err := trace.ReadFile("testdata/openhands/output.jsonl", trace.Options{SessionID: "shop__shop-102"})
	if err != nil {
		log.Fatal(err)
	}
	c := one.Calls[0]
	fmt.Println(c.Name, string(c.Arguments), "error:", c.IsError)
	// Output:
	// openhands-eval shop__shop-101 2 calls, 5630 tokens
	// openhands-eval shop__shop-102 1 calls, 2190 tokens
	// execute_bash {"command":"go test ./..."} error: true
}

// An OpenHands V1 conversation is a folder; the reader takes the folder.
func ExampleOpenHandsV1() {
	s, err := trace.ReadFile("testdata/openhands/v1-conversation", trace.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(s.Format, s.Model, s.CWD)
	for _, c := range s.Calls {
		fmt.Printf("%d %s result=%v error=%v\n", c.Index, c.Name, c.HasResult, c.IsError)
	}
	// Output:
	// openhands-v1 anthropic/claude-sonnet-4-5 /workspace/shop
	// 0 terminal result=true error=false
	// 1 file_editor result=true error=false
	// 2 terminal result=true error=true
	// 3 grep result=true error=true
	// 4 finish result=false error=false
}

// A SWE-agent action line is named by SWE-agent's own command when it
// starts with one, and is a bash call otherwise.
func ExampleSWEAgent() {
	for _, file := range []string{"testdata/swe-agent/minimal.traj", "testdata/swe-agent/shell-read.traj"} {
		s, err := trace.ReadFile(file, trace.Options{})
		if err != nil {
			log.Fatal(err)
		}
		for _, c := range s.Calls {
			fmt.Printf("%s %q\n", c.Name, c.ArgumentsMap()["command"])
		}
	}
	// Output:
	// find_file "find_file discount.go\n"
	// open "open internal/cart/discount.go 12\n"
	// submit "submit\n"
	// bash "nl -ba internal/cart/discount.go | sed -n '10,40p'\n"
}
