//go:build allclouds

package blobio

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2/google"
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
	var s Stage
	defer s.Close()
	_, err := s.Input(context.Background(), "gs://bench/runs/r1")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "gs://bench/runs/r1: no Google Cloud credentials (set GOOGLE_APPLICATION_CREDENTIALS")
}

func TestAnAzureContainerWithoutAnAccountIsAnErrorThatSaysWhatToSet(t *testing.T) {
	for _, v := range []string{"AZURE_STORAGE_ACCOUNT", "AZURE_STORAGE_CONNECTION_STRING", "AZURE_STORAGEBLOB_CONNECTIONSTRING"} {
		t.Setenv(v, "")
	}
	var s Stage
	defer s.Close()
	_, err := s.Input(context.Background(), "azblob://bench/runs/r1")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "azblob://bench/runs/r1: no Azure storage account: set AZURE_STORAGE_ACCOUNT")
}
