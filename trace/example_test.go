package trace_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/agentretrieval/agentretrieval/trace"
)

// Read detects the format from the first bytes. Here, tool-call records as
// a harness might write them by hand.
func ExampleRead() {
	records := `{"toolCalls": [
	  {"tool": "aura_search", "arguments": {"query": "token expiry"}, "result": "pkg/auth/token.go:42: func ValidateToken", "timestamp": "2026-10-02T14:00:03Z"},
	  {"tool": "file.read", "arguments": {"path": "pkg/auth/token.go"}, "result": "package auth", "timestamp": "2026-10-02T14:00:09Z"}
	]}`
	sess, err := trace.Read(strings.NewReader(records), trace.Options{Source: "records.json"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(sess.Format, len(sess.Calls), "calls")
	for _, c := range sess.Calls {
		fmt.Println(c.Index, c.Name, string(c.Arguments), c.Time.Sub(sess.Start))
	}
	// Output:
	// tool-calls 2 calls
	// 0 aura_search {"query":"token expiry"} 0s
	// 1 file.read {"path":"pkg/auth/token.go"} 6s
}

// Session.Messages holds the conversation around the calls; Before places
// each message before a call, so a reader can interleave the two.
func ExampleSession_messages() {
	rollout := `{"timestamp":"2026-03-02T10:15:00Z","type":"session_meta","payload":{"id":"0199f0c2","cwd":"/home/me/shop","originator":"codex_cli_rs","cli_version":"0.63.0"}}
{"timestamp":"2026-03-02T10:15:01Z","type":"event_msg","payload":{"type":"user_message","message":"Why do expired tokens pass?"}}
{"timestamp":"2026-03-02T10:15:03Z","type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"**Finding the token check**"}]}}
{"timestamp":"2026-03-02T10:15:04Z","type":"response_item","payload":{"type":"function_call","name":"shell_command","arguments":"{\"command\":\"rg -n ValidateToken\"}","call_id":"call_1"}}
{"timestamp":"2026-03-02T10:15:06Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"ValidateToken compares with <=."}]}}
`
	sess, err := trace.Read(strings.NewReader(rollout), trace.Options{})
	if err != nil {
		log.Fatal(err)
	}
	next := 0
	for _, m := range sess.Messages {
		for ; next < m.Before; next++ {
			fmt.Println("call", sess.Calls[next].Name)
		}
		fmt.Printf("%s %s: %s\n", m.Role, m.Kind, m.Text)
	}
	// Output:
	// user text: Why do expired tokens pass?
	// assistant reasoning: **Finding the token check**
	// call shell_command
	// assistant text: ValidateToken compares with <=.
}
