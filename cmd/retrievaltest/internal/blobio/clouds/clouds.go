// Package clouds registers the bucket drivers of package blobio: Amazon S3
// (and the services that speak its API: MinIO, Ceph, R2, …), Google Cloud
// Storage and Azure Blob Storage, through gocloud.dev/blob.
//
// Linking it in costs what the three SDKs cost: about 45 MB of binary,
// most of the command's build time, and, because Go initializes every
// linked package before main runs, about 20 MiB of memory and a few
// milliseconds at the start of every command. The command imports it only
// in its allclouds build (retrievaltest-clouds in the release archives);
// its tests import it to read buckets on loopback.
package clouds

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"strings"

	"gocloud.dev/blob"
	_ "gocloud.dev/blob/azureblob"
	_ "gocloud.dev/blob/gcsblob"
	_ "gocloud.dev/blob/s3blob"
	"gocloud.dev/gcerrors"
	"golang.org/x/oauth2/google"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/blobio"
)

func init() {
	blobio.Register("s3", open(nil))
	blobio.Register("gs", open(gcsCredentials))
	blobio.Register("azblob", open(azureAccount))
}

// open returns the opener of a scheme; check, when set, is made before
// the bucket is opened, with the URL's query.
func open(check func(ctx context.Context, query url.Values) error) blobio.Opener {
	return func(ctx context.Context, bucketURL string) (blobio.Bucket, error) {
		if check != nil {
			_, query, _ := strings.Cut(bucketURL, "?")
			q, err := url.ParseQuery(query)
			if err != nil {
				return nil, err
			}
			if err := check(ctx, q); err != nil {
				return nil, err
			}
		}
		b, err := blob.OpenBucket(ctx, bucketURL)
		if err != nil {
			return nil, err
		}
		return bucket{b}, nil
	}
}

// bucket is a gocloud bucket as a blobio.Bucket.
type bucket struct{ b *blob.Bucket }

func (b bucket) Size(ctx context.Context, key string) (int64, error) {
	attrs, err := b.b.Attributes(ctx, key)
	if err != nil {
		if gcerrors.Code(err) == gcerrors.NotFound {
			return 0, fmt.Errorf("%w: %w", fs.ErrNotExist, err)
		}
		return 0, err
	}
	return attrs.Size, nil
}

func (b bucket) List(ctx context.Context, prefix string, visit func(key string, size int64, isDir bool) error) error {
	it := b.b.List(&blob.ListOptions{Prefix: prefix})
	for {
		obj, err := it.Next(ctx)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := visit(obj.Key, obj.Size, obj.IsDir); err != nil {
			return err
		}
	}
}

func (b bucket) NewReader(ctx context.Context, key string) (io.ReadCloser, error) {
	return b.b.NewReader(ctx, key, nil)
}

func (b bucket) NewRangeReader(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	return b.b.NewRangeReader(ctx, key, offset, length, nil)
}

// Upload aborts on any error from r or from the service: its context is
// canceled before the writer is closed, so the object is not committed.
func (b bucket) Upload(ctx context.Context, key string, r io.Reader) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := b.b.NewWriter(ctx, key, nil)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, r); err != nil {
		cancel() // before Close: the object is not committed
		_ = w.Close()
		return err
	}
	return w.Close()
}

func (b bucket) Close() error { return b.b.Close() }

// azureAccount says what to set when nothing names the storage account,
// where the driver would only say that Options.AccountName is required.
func azureAccount(_ context.Context, q url.Values) error {
	for _, v := range []string{"AZURE_STORAGE_ACCOUNT", "AZURE_STORAGE_CONNECTION_STRING", "AZURE_STORAGEBLOB_CONNECTIONSTRING"} {
		if os.Getenv(v) != "" {
			return nil
		}
	}
	if q.Get("storage_account") != "" {
		return nil
	}
	return fmt.Errorf("no Azure storage account: set AZURE_STORAGE_ACCOUNT (with AZURE_STORAGE_KEY, AZURE_STORAGE_SAS_TOKEN or an Azure identity) or AZURE_STORAGE_CONNECTION_STRING")
}

// findGoogleCredentials is google.FindDefaultCredentials. Tests replace
// it: where no credentials are set it asks the GCE metadata server, over
// the network, whether the machine is a Google Cloud instance.
var findGoogleCredentials = google.FindDefaultCredentials

// gcsCredentials looks for Google's default credentials before the driver
// does: without them, the driver prints a warning to standard output,
// which would corrupt a command's JSON, and goes on to fail later with a
// less helpful error.
func gcsCredentials(ctx context.Context, q url.Values) error {
	if q.Get("anonymous") == "true" || os.Getenv("STORAGE_EMULATOR_HOST") != "" || os.Getenv("STORAGE_EMULATOR_HOST_GRPC") != "" {
		return nil
	}
	if _, err := findGoogleCredentials(ctx, "https://www.googleapis.com/auth/cloud-platform"); err != nil {
		return fmt.Errorf("no Google Cloud credentials (set GOOGLE_APPLICATION_CREDENTIALS, or run gcloud auth application-default login): %w", err)
	}
	return nil
}
