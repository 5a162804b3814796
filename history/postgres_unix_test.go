//go:build unix

package history

import (
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// A testServer is a PostgreSQL server the tests started, listening on a
// Unix socket in a temporary folder only.
type testServer struct {
	dir, data string
	bin       string
	cred      *syscall.Credential
	url       string
}

// postgresBin finds the folder of initdb, pg_ctl and postgres: on PATH, or
// where Debian's packages put them.
func postgresBin() (string, error) {
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		if _, err := exec.LookPath("initdb"); err == nil {
			return filepath.Dir(p), nil
		}
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	if len(matches) == 0 {
		return "", fmt.Errorf("no pg_ctl and initdb on PATH or in /usr/lib/postgresql/*/bin")
	}
	return filepath.Dir(matches[len(matches)-1]), nil
}

// startPostgres initializes a cluster in a temporary folder and starts it
// listening on a Unix socket there, with no TCP port. PostgreSQL refuses to
// run as root, so as root the cluster belongs to the postgres user that
// Debian's package creates.
func startPostgres() (*testServer, error) {
	bin, err := postgresBin()
	if err != nil {
		return nil, err
	}
	s := &testServer{bin: bin}
	dir, err := os.MkdirTemp("", "history-pg-")
	if err != nil {
		return nil, err
	}
	s.dir, s.data = dir, filepath.Join(dir, "data")
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("running as root and there is no postgres user to run the server as")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		s.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	if out, err := s.command("initdb", "-D", s.data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync").CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb failed: %v: %s", err, lastLines(out))
	}
	opts := fmt.Sprintf("-k %s -c listen_addresses='' -c max_connections=60", dir)
	if out, err := s.command("pg_ctl", "-D", s.data, "-o", opts, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "start").CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pg_ctl start failed: %v: %s %s", err, lastLines(out), lastLines(log))
	}
	s.url = "postgres://postgres@/postgres?host=" + url.QueryEscape(dir) + "&sslmode=disable"
	return s, nil
}

func (s *testServer) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(s.bin, name), args...)
	cmd.Dir = s.dir
	if s.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	}
	return cmd
}

func (s *testServer) stop() {
	s.command("pg_ctl", "-D", s.data, "-m", "immediate", "-w", "-t", "30", "stop").Run()
	os.RemoveAll(s.dir)
}
