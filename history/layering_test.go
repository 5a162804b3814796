package history

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The library packages a user imports for go test link no database
// driver: only the command imports this package.
func TestTheLibraryPackagesLinkNoDatabase(t *testing.T) {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := exec.LookPath(goTool); err != nil {
		if goTool, err = exec.LookPath("go"); err != nil {
			t.Skip("no go command to list the dependencies with")
		}
	}
	libs := []string{"retrievaltest", "expectations", "events", "trace", "metrics", "groundtruth", "report"}
	args := []string{"list", "-deps"}
	for _, l := range libs {
		args = append(args, "github.com/agentretrieval/agentretrieval/"+l)
	}
	out, err := exec.Command(goTool, args...).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"github.com/agentretrieval/agentretrieval/history", "modernc.org/sqlite", "github.com/jackc/pgx", "github.com/pressly/goose"} {
			if strings.HasPrefix(dep, banned) {
				t.Errorf("a library package links %s", dep)
			}
		}
	}
}
