//go:build allclouds

package main

// The allclouds build links the bucket drivers in (retrievaltest-clouds in
// the release archives): it reads s3://, gs:// and azblob:// URLs itself,
// and pays their packages' initialization at every start.
import _ "github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/blobio/clouds"
