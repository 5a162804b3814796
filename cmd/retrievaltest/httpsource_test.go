package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A TRACE argument may be a URL; a failing one is bad input that names
// the URL and the status.
func TestCommandsReadATraceFromAURL(t *testing.T) {
	t.Parallel()
	body, err := os.ReadFile("../../expectations/testdata/traces/index-first-then-edit.toolcalls.json")
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.HandleFunc("/trace", func(w http.ResponseWriter, r *http.Request) { w.Write(body) })
	mux.HandleFunc("/down/trace", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", http.StatusBadGateway) })
	srv := httptest.NewServer(mux)
	defer srv.Close()

	code, out, stderr := runCLI(t, nil, "metrics", srv.URL+"/trace")
	assert.Equal(t, exitOK, code, stderr)
	assert.Contains(t, out, `"total_calls"`)
	assert.Contains(t, out, srv.URL+"/trace")

	code, _, stderr = runCLI(t, nil, "metrics", srv.URL+"/down/trace")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, "GET "+srv.URL+"/down/trace: 502 Bad Gateway: down")
}
