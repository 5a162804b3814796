package events_test

import (
	"bytes"
	"fmt"
	"log"
	"strings"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/trace"
)

// A Stream extracts each call while the trace is read; the session keeps
// no result, and the document is the one Normalize would make.
func ExampleStream() {
	session := strings.Join([]string{
		`{"type":"assistant","sessionId":"s1","cwd":"/repo","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/repo/auth/token.go"}}]}}`,
		`{"type":"user","sessionId":"s1","cwd":"/repo","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"     1→package auth\n     2→\n     3→func Validate() {}"}]}}`,
	}, "\n")
	stream := events.NewStream(events.Options{})
	sess, err := trace.Read(strings.NewReader(session), trace.Options{CallDone: stream.CallDone})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("result kept: %q\n", sess.Calls[0].Result)
	doc := stream.Normalize(sess)
	for _, ev := range doc.Events {
		fmt.Println(ev.ToolName, ev.TargetFiles, ev.LineRanges)
	}
	// Output:
	// result kept: ""
	// Read [auth/token.go] [{auth/token.go 1 3}]
}

// A concurrent Stream extracts on a goroutine of its own while the reader
// goes on; Normalize waits for it, and the document is the same.
func ExampleNewConcurrentStream() {
	session := strings.Join([]string{
		`{"type":"assistant","sessionId":"s1","cwd":"/repo","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Grep","input":{"pattern":"Validate","path":"/repo/auth"}}]}}`,
		`{"type":"user","sessionId":"s1","cwd":"/repo","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"/repo/auth/token.go"}]}}`,
	}, "\n")
	stream := events.NewConcurrentStream(events.Options{})
	sess, err := trace.Read(strings.NewReader(session), trace.Options{CallDone: stream.CallDone})
	if werr := stream.Wait(); err == nil {
		err = werr // extraction failed
	}
	if err != nil {
		log.Fatal(err)
	}
	doc := stream.Normalize(sess)
	for _, ev := range doc.Events {
		fmt.Println(ev.ToolName, ev.ToolCategory, ev.TargetFiles)
	}
	// Output:
	// Grep code_search [auth/token.go]
}

// A document that is only written need not hold its events as []Event:
// Pending.WriteJSON writes it from the form the Stream keeps them in.
func ExampleStream_Pending() {
	session := strings.Join([]string{
		`{"type":"assistant","sessionId":"s1","cwd":"/repo","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Glob","input":{"pattern":"**/token*.go"}}]}}`,
		`{"type":"user","sessionId":"s1","cwd":"/repo","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"/repo/auth/token.go"}]}}`,
	}, "\n")
	stream := events.NewStream(events.Options{})
	all, err := trace.ReadAll(strings.NewReader(session), trace.Options{CallDone: stream.CallDone})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range stream.Pending(all, "session.jsonl") {
		var out bytes.Buffer
		if err := p.WriteJSON(&out); err != nil {
			log.Fatal(err)
		}
		doc, err := events.ReadDocument(&out)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(doc.Provenance.TaskName, doc.Events[0].ToolName, doc.Events[0].TargetFiles, doc.Summary.TotalEvents)
	}
	// Output:
	// session Glob [auth/token.go] 1
}
