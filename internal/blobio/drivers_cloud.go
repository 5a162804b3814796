package blobio

// The Google Cloud Storage (gs://) and Azure Blob Storage (azblob://)
// drivers.
import (
	_ "gocloud.dev/blob/azureblob"
	_ "gocloud.dev/blob/gcsblob"
)
