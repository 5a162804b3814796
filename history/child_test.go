package history

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// childEnv makes the test binary a child process of a test instead: its
// value is the job, and the database and arguments follow in other
// variables. Separate processes write the way CI shards do.
const childEnv = "HISTORY_TEST_CHILD"

func runChild(job string) int {
	ctx := context.Background()
	dsn := os.Getenv("HISTORY_TEST_DSN")
	st, err := Open(ctx, dsn)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	defer st.Close()
	switch job {
	case "shard":
		// One shard of a run: HISTORY_TEST_SHARD of N, each recording
		// its own scenarios of the run, then runs of its own.
		shard, _ := strconv.Atoi(os.Getenv("HISTORY_TEST_SHARD"))
		own, _ := strconv.Atoi(os.Getenv("HISTORY_TEST_OWN_RUNS"))
		run := testRun("ci:shared", "main", "c0ffee", time.Unix(1_800_000_000, 0))
		run.Scenarios = testScenarios(fmt.Sprintf("shard%d-", shard), 25, 3)
		if err := st.Record(ctx, run); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		for i := range own {
			r := testRun(fmt.Sprintf("ci:shard%d-run%d", shard, i), "main", "c0ffee", time.Unix(1_800_000_000+int64(i), 0))
			r.Scenarios = testScenarios("s-", 10, 2)
			if err := st.Record(ctx, r); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
		}
		return 0
	case "killed", "killed-evaluation":
		// Records a large run (a check's, or an evaluation's) and stops
		// halfway, inside the transaction, until the test kills it: the
		// configurations are written before the hook, the scenarios'
		// expectations after it.
		recordHook = func() {
			fmt.Println("halfway")
			time.Sleep(time.Hour)
		}
		run := testRun("ci:killed", "main", "c0ffee", time.Unix(1_800_000_000, 0))
		run.Scenarios = testScenarios("k-", 100, 3)
		if job == "killed-evaluation" {
			run.Scenarios, run.Configs = nil, testConfigs(0)
		}
		if err := st.Record(ctx, run); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}
	fmt.Fprintf(os.Stderr, "unknown child job %q\n", job)
	return 3
}

// child starts the test binary as a child doing job on dsn.
func child(t *testing.T, job, dsn string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{childEnv + "=" + job, "HISTORY_TEST_DSN=" + dsn}, env...)...)
	return cmd
}

// killMidway starts a child doing job (it records a run), kills it once half the
// run is written inside its transaction, and waits for it.
func killMidway(t *testing.T, dsn, job string) {
	t.Helper()
	cmd := child(t, job, dsn)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "halfway\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the child did not reach the middle of its run: %q %v; stderr: %s", line, err, stderr.String())
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
}
