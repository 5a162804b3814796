//go:build allclouds

package blobio

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAGCSBucketWithoutCredentialsIsAnErrorThatSaysWhatToSet(t *testing.T) {
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "")
	t.Setenv("STORAGE_EMULATOR_HOST", "")
	t.Setenv("STORAGE_EMULATOR_HOST_GRPC", "")
	t.Setenv("HOME", t.TempDir()) // no gcloud login file
	t.Setenv("CLOUDSDK_CONFIG", t.TempDir())
	var s Stage
	defer s.Close()
	_, err := s.Input(context.Background(), "gs://bench/runs/r1")
	if err == nil {
		t.Skip("this machine has Google credentials (a GCE instance)")
	}
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
