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

const module = "github.com/agentretrieval/agentretrieval/"

// deps lists the packages that the packages given link, as a module that
// imports them compiles them: go list -deps.
func deps(t *testing.T, pkgs ...string) []string {
	t.Helper()
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := exec.LookPath(goTool); err != nil {
		if goTool, err = exec.LookPath("go"); err != nil {
			t.Skip("no go command to list the dependencies with")
		}
	}
	args := []string{"list", "-deps"}
	for _, p := range pkgs {
		args = append(args, module+p)
	}
	out, err := exec.Command(goTool, args...).Output()
	require.NoError(t, err)
	return strings.Fields(string(out))
}

// withPrefix returns the packages of list that start with one of prefixes.
func withPrefix(list []string, prefixes ...string) []string {
	var out []string
	for _, d := range list {
		for _, p := range prefixes {
			if d == p || strings.HasPrefix(d, p) {
				out = append(out, d)
				break
			}
		}
	}
	return out
}

// A module that imports the library compiles every package the library
// links. None of them is gRPC, a cloud SDK or an OpenTelemetry collector
// or SDK package: the OTLP receiver behind a scenario's run: key (collect)
// decodes requests with the OTLP message types alone, and the bucket
// drivers are the command's.
func TestTheLibraryLinksNoGRPCCloudSDKOrCollector(t *testing.T) {
	all := deps(t, "retrievaltest", "retrievaltest/steps", "expectations", "events", "trace", "trace/httpsource",
		"metrics", "groundtruth", "report", "collect")
	require.Contains(t, all, module+"collect", "the listing holds the receiver that run: starts")
	banned := withPrefix(all,
		"google.golang.org/grpc",
		"go.opentelemetry.io/proto/otlp/collector/",
		"go.opentelemetry.io/otel",
		"google.golang.org/genproto/",
		"gocloud.dev/",
		"github.com/aws/",
		"cloud.google.com/",
		"github.com/Azure/",
		module+"cmd/",
	)
	assert.Empty(t, banned, "the library links them")
}

// maxGatePackages bounds what a go test gate that imports retrievaltest
// compiles on a fresh machine, the standard library included: 113 packages
// today; it was 304 when the Gherkin steps (godog), the HTTP client of http(s)
// traces and the OTLP receiver of run: keys were linked by default.
const maxGatePackages = 200

// A gate that imports retrievaltest compiles only what it uses: no godog
// (retrievaltest/steps), no HTTP client (trace/httpsource) and no OTLP
// receiver (collect, handed in as Options.Recorder), each imported by the
// programs that use them; and no cgo package.
func TestAGoTestGateCompilesAtMost200Packages(t *testing.T) {
	gate := deps(t, "retrievaltest")
	assert.LessOrEqual(t, len(gate), maxGatePackages, "go list -deps ./retrievaltest")
	optIn := withPrefix(gate,
		"github.com/cucumber/",
		"net/http",
		"net/url", // internal/percent decodes file:// paths
		"os/user", // with cgo, a C compiler at every cold build
		"crypto/tls",
		"google.golang.org/protobuf/",
		"go.opentelemetry.io/",
		module+"retrievaltest/steps",
		module+"trace/httpsource",
		module+"collect",
		module+"report",
		module+"runs",
		module+"history",
	)
	assert.Empty(t, optIn, "retrievaltest links packages a gate opts into")
}
