package blobio

// The S3 driver is always linked in: S3 and the services that speak its
// API (MinIO, Ceph, R2, …) hold most runs, and the tests run against it.
import (
	"context"
	"net/url"

	_ "gocloud.dev/blob/s3blob"
)

// linked are the schemes whose driver is in the binary; drivers_cloud.go
// adds gs and azblob when the build has the allclouds tag.
var linked = []string{"s3"}

// precheck holds, by scheme, a check made before a bucket is opened.
var precheck = map[string]func(ctx context.Context, query url.Values) error{}
