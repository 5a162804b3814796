package expectations

import (
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	// Reads http(s) traces, as the command does.
	_ "github.com/agentretrieval/agentretrieval/trace/httpsource"
)

// A scenario's trace may be a URL (a harness's /trace endpoint); the
// scenario is judged on what it serves, and a failing endpoint is an
// error naming the URL and the status.
func TestATraceURLIsJudgedOnWhatItServes(t *testing.T) {
	t.Parallel()
	body, err := os.ReadFile("testdata/traces/index-first-then-edit.toolcalls.json")
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.HandleFunc("/steps/1/trace", func(w http.ResponseWriter, r *http.Request) { w.Write(body) })
	srv := httptest.NewServer(mux)
	defer srv.Close()

	pass := evalInline(t, "trace: "+srv.URL+"/steps/1/trace\n"+exp("", "tools", "max_calls: 4"))
	assert.False(t, pass.Failed(), "%+v", pass)
	fail := evalInline(t, "trace: "+srv.URL+"/steps/1/trace?x=[1]\n"+exp("", "tools", "max_calls: 3"))
	assert.True(t, fail.Failed(), "a URL with a query is not a glob")

	s := mustParse(t, "traces: ["+srv.URL+"/steps/2/trace]\n"+exp("", "tools", "max_calls: 3"))
	_, err = Evaluate(s, EvalOptions{})
	assert.ErrorContains(t, err, "GET "+srv.URL+"/steps/2/trace: 404 Not Found")
}
