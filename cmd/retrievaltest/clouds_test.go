package main

// The command's tests read buckets in process, on loopback (bucket_test.go),
// whichever build they test.
import _ "github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/blobio/clouds"
