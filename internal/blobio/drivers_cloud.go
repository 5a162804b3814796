//go:build allclouds

package blobio

// The Google Cloud Storage (gs://) and Azure Blob Storage (azblob://)
// drivers, linked in with the allclouds build tag. They bring the Google
// and Azure SDKs: about 45 MB of the binary, most of its build time and
// about 30 MB of memory at start (their packages' initialization), which
// every command, even "version", would pay; without the tag, gs:// and
// azblob:// URLs are refused with a message that names it.
import (
	"context"
	"fmt"
	"net/url"
	"os"

	_ "gocloud.dev/blob/azureblob"
	_ "gocloud.dev/blob/gcsblob"
	"golang.org/x/oauth2/google"
)

func init() {
	linked = append(linked, "gs", "azblob")
	precheck["gs"] = gcsCredentials
	precheck["azblob"] = azureAccount
}

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
