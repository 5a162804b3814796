package htmlreport

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
)

// ErrNoBrowser is returned by Open when the system has no command that
// opens a file in a browser.
var ErrNoBrowser = errors.New("no command to open a browser was found")

// Open asks the desktop to show a report in the default browser: open on
// macOS, the URL handler on Windows, xdg-open elsewhere. It returns once
// the command has started, not when the page is shown.
func Open(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	var name string
	var args []string
	switch runtime.GOOS {
	case "darwin":
		name, args = "open", []string{abs}
	case "windows":
		name, args = "rundll32", []string{"url.dll,FileProtocolHandler", abs}
	default:
		name, args = "xdg-open", []string{abs}
	}
	bin, err := exec.LookPath(name)
	if err != nil {
		return fmt.Errorf("%w (%s is not installed)", ErrNoBrowser, name)
	}
	cmd := exec.Command(bin, args...)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	go cmd.Wait() // reaps the process; its outcome is the desktop's to report
	return nil
}
