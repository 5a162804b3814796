package retrievaltest

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A module that imports the library compiles every package the library
// links. None of them is gRPC, a cloud SDK or an OpenTelemetry collector
// or SDK package: the OTLP receiver behind a scenario's run: key decodes
// requests with the OTLP message types alone, and the bucket drivers are
// the command's.
func TestTheLibraryLinksNoGRPCCloudSDKOrCollector(t *testing.T) {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := exec.LookPath(goTool); err != nil {
		if goTool, err = exec.LookPath("go"); err != nil {
			t.Skip("no go command to list the dependencies with")
		}
	}
	const module = "github.com/agentretrieval/agentretrieval/"
	library := []string{"retrievaltest", "expectations", "events", "trace", "metrics", "groundtruth", "report"}
	args := []string{"list", "-deps"}
	for _, p := range library {
		args = append(args, module+p)
	}
	out, err := exec.Command(goTool, args...).Output()
	require.NoError(t, err)
	deps := strings.Fields(string(out))
	require.Contains(t, deps, module+"collect", "the listing holds the receiver that run: starts")
	banned := []string{
		"google.golang.org/grpc",
		"go.opentelemetry.io/proto/otlp/collector/",
		"go.opentelemetry.io/otel",
		"google.golang.org/genproto/",
		"gocloud.dev/",
		"github.com/aws/",
		"cloud.google.com/",
		"github.com/Azure/",
		module + "cmd/",
	}
	for _, d := range deps {
		for _, b := range banned {
			assert.False(t, strings.HasPrefix(d, b), "the library links %s", d)
		}
	}
}
