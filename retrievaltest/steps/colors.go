package steps

import "os"

// NoColors reports whether godog's output should be plain text: NO_COLOR
// is set to a non-empty value (https://no-color.org), or standard output
// is not a terminal (a CI log, a file, go test's captured output). Pass it
// as godog.Options.NoColors, so that logs carry no colour codes:
//
//	Options: &godog.Options{Format: "progress", NoColors: steps.NoColors(), Strict: true, TestingT: t},
func NoColors() bool {
	return noColors(os.Getenv("NO_COLOR"), os.Stdout)
}

func noColors(noColorEnv string, out *os.File) bool {
	if noColorEnv != "" || out == nil {
		return true
	}
	fi, err := out.Stat()
	return err != nil || fi.Mode()&os.ModeCharDevice == 0
}
