package blobio

// The S3 driver is always linked in: S3 and the services that speak its
// API (MinIO, Ceph, R2, …) are where most runs are stored, and the tests
// run against it.
import _ "gocloud.dev/blob/s3blob"
