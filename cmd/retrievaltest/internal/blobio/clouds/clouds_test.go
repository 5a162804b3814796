package clouds

import (
	"context"
	"errors"
	"io/fs"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2/google"

	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/blobio"
	"github.com/agentretrieval/agentretrieval/cmd/retrievaltest/internal/blobio/blobtest"
)

// Tests never look for Google credentials for real: without any, the
// search probes the GCE metadata server (169.254.169.254 and a DNS name),
// and tests send traffic to loopback addresses only. The fake finds none,
// as the search does on a machine that is not a Google Cloud instance.
func init() {
	findGoogleCredentials = func(context.Context, ...string) (*google.Credentials, error) {
		return nil, errors.New("google: could not find default credentials")
	}
}

func TestAGCSBucketWithoutCredentialsIsAnErrorThatSaysWhatToSet(t *testing.T) {
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "")
	t.Setenv("STORAGE_EMULATOR_HOST", "")
	t.Setenv("STORAGE_EMULATOR_HOST_GRPC", "")
	t.Setenv("HOME", t.TempDir()) // no gcloud login file
	t.Setenv("CLOUDSDK_CONFIG", t.TempDir())
	var s blobio.Stage
	defer s.Close()
	_, err := s.Input(context.Background(), "gs://bench/runs/r1")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "gs://bench/runs/r1: no Google Cloud credentials (set GOOGLE_APPLICATION_CREDENTIALS")
}

func TestAnAzureContainerWithoutAnAccountIsAnErrorThatSaysWhatToSet(t *testing.T) {
	for _, v := range []string{"AZURE_STORAGE_ACCOUNT", "AZURE_STORAGE_CONNECTION_STRING", "AZURE_STORAGEBLOB_CONNECTIONSTRING"} {
		t.Setenv(v, "")
	}
	var s blobio.Stage
	defer s.Close()
	_, err := s.Input(context.Background(), "azblob://bench/runs/r1")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "azblob://bench/runs/r1: no Azure storage account: set AZURE_STORAGE_ACCOUNT")
}

// brokenReader gives n bytes, then an error.
type brokenReader struct{ n int }

var errBroken = errors.New("read broke")

func (r *brokenReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, errBroken
	}
	k := min(len(p), r.n)
	clear(p[:k])
	r.n -= k
	return k, nil
}

func TestAnUploadWhoseSourceBreaksLeavesNoObject(t *testing.T) {
	for _, size := range []int{10, 12 << 20} { // one request, and a multipart upload
		srv := blobtest.Start(t, "out", nil)
		srv.Put(t, "kept", []byte("before"))
		b, err := open(nil)(context.Background(), srv.URL(""))
		require.NoError(t, err)
		err = b.Upload(context.Background(), "kept", &brokenReader{n: size})
		require.ErrorIs(t, err, errBroken)
		err = b.Upload(context.Background(), "new", &brokenReader{n: size})
		require.ErrorIs(t, err, errBroken)
		require.NoError(t, b.Close())
		got, ok := srv.Get(t, "kept")
		require.True(t, ok)
		assert.Equal(t, "before", string(got), "an aborted upload leaves the object as it was")
		_, ok = srv.Get(t, "new")
		assert.False(t, ok, "an aborted upload creates no object")
	}
}

// A missing object is fs.ErrNotExist, which Stage.Input reads as "copy
// the prefix"; another failure is not.
func TestSizeOfAMissingObjectIsErrNotExist(t *testing.T) {
	srv := blobtest.Start(t, "runs", nil)
	srv.Put(t, "a.jsonl", []byte("abc"))
	b, err := open(nil)(context.Background(), srv.URL(""))
	require.NoError(t, err)
	defer b.Close()
	n, err := b.Size(context.Background(), "a.jsonl")
	require.NoError(t, err)
	assert.EqualValues(t, 3, n)
	_, err = b.Size(context.Background(), "b.jsonl")
	assert.ErrorIs(t, err, fs.ErrNotExist)
	_, err = b.Size(context.Background(), "")
	require.Error(t, err)
	assert.NotErrorIs(t, err, fs.ErrNotExist, "an invalid key is not a missing object")
}

// A check's error stops the opening, and a query that cannot be parsed is
// an error before the check runs.
func TestOpenRunsTheCheckOnTheQuery(t *testing.T) {
	var got string
	check := func(_ context.Context, q url.Values) error {
		got = q.Get("storage_account")
		return errors.New("refused")
	}
	_, err := open(check)(context.Background(), "azblob://c?storage_account=acct")
	assert.EqualError(t, err, "refused")
	assert.Equal(t, "acct", got)
	got = ""
	_, err = open(check)(context.Background(), "azblob://c?a=%zz")
	require.Error(t, err)
	assert.Empty(t, got, "the check does not run on a broken query")
}
