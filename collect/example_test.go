package collect_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentretrieval/agentretrieval/collect"
	"github.com/agentretrieval/agentretrieval/trace"
)

// A receiver takes an OTLP/JSON export of one execute_tool span and
// writes it to the file of its trace, which package trace reads.
func Example() {
	dir, err := os.MkdirTemp("", "collect-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	recv, err := collect.NewReceiver(collect.Options{Dir: dir})
	if err != nil {
		fmt.Println(err)
		return
	}
	srv := httptest.NewServer(recv) // on loopback; collect.Listen serves it for real
	defer srv.Close()

	body := `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"my-agent"}}]},
	  "scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174",
	    "name":"execute_tool read_file","startTimeUnixNano":"1700000000000000000","endTimeUnixNano":"1700000001000000000",
	    "attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"execute_tool"}},
	                  {"key":"gen_ai.tool.name","value":{"stringValue":"read_file"}},
	                  {"key":"gen_ai.tool.call.arguments","value":{"stringValue":"{\"path\":\"main.go\"}"}}]}]}]}]}`
	resp, err := http.Post(srv.URL+"/v1/traces", "application/json", strings.NewReader(body))
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	fmt.Println(resp.Status)

	for _, path := range recv.Files() {
		s, err := trace.ReadFile(path, trace.Options{})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(filepath.Base(path), s.Format, s.Agent)
		for _, c := range s.Calls {
			fmt.Println(c.Name, string(c.Arguments))
		}
	}
	// Output:
	// 200 OK
	// 5b8efff798038103d269b633813fc60c.jsonl otel my-agent
	// read_file {"path":"main.go"}
}
