package httpsource_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/agentretrieval/agentretrieval/trace"
	_ "github.com/agentretrieval/agentretrieval/trace/httpsource"
)

// With the package imported, trace.ReadFile reads a trace at a URL: here a
// harness's /trace endpoint, served on loopback.
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"toolCalls":[{"tool":"aura_search","arguments":{"query":"where are orders created"}},`+
			`{"tool":"file.read","arguments":{"path":"src/Orders/OrderService.cs"}}]}`)
	}))
	defer srv.Close()

	s, err := trace.ReadFile(srv.URL+"/api/steps/1/trace", trace.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Format)
	for _, c := range s.Calls {
		fmt.Println(c.Name)
	}
	// Output:
	// tool-calls
	// aura_search
	// file.read
}
