// Package getopt lets a flag.FlagSet read a command line written for POSIX
// getopt, as trec_eval's is: flags among the positional arguments
// ("qrels run -q"), a value glued to its one-letter flag ("-l2",
// "-mP.5"), and clusters of one-letter switches ("-qc").
package getopt

import (
	"flag"
	"strings"
)

// Parse parses fs from args written getopt's way and returns the
// positional arguments. switches lists the letters of the one-letter
// boolean flags, valued those of the one-letter flags that take a value.
// Everything after "--" is positional. Errors are the flag package's.
//
// A word that names a flag of fs with a longer name ("-max-input-size")
// is that flag, not a cluster of one-letter ones.
func Parse(fs *flag.FlagSet, args []string, switches, valued string) ([]string, error) {
	long := func(a string) bool { return len(a) > 2 && fs.Lookup(a[1:]) != nil }
	return interspersed(fs, split(args, switches, valued, long))
}

// interspersed parses flags wherever they stand among the positional
// arguments and returns the positional arguments.
func interspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		consumed := args[:len(args)-len(rest)]
		if len(consumed) > 0 && consumed[len(consumed)-1] == "--" {
			return append(positional, rest...), nil
		}
		if len(rest) == 0 {
			return positional, nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// split rewrites getopt's spellings into ones the flag package reads: a
// value glued to its flag becomes two arguments, and a cluster of switches
// one argument per switch. Arguments after "--", and anything it does not
// recognise, pass unchanged.
func split(args []string, switches, valued string, long func(string) bool) []string {
	var out []string
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		// "-name=value" is the flag package's spelling, but a valued flag
		// with a glued value may hold '=' ("-mndcg.1=3").
		goStyle := strings.Contains(a, "=") && !(len(a) > 2 && strings.IndexByte(valued, a[1]) >= 0 && a[2] != '=')
		if len(a) < 3 || a[0] != '-' || a[1] == '-' || goStyle || long(a) {
			out = append(out, a)
			continue
		}
		var parts []string
		ok := false
	cluster:
		for j := 1; j < len(a); j++ {
			switch {
			case strings.IndexByte(switches, a[j]) >= 0:
				parts = append(parts, "-"+a[j:j+1])
				ok = j == len(a)-1
			case strings.IndexByte(valued, a[j]) >= 0:
				parts = append(parts, "-"+a[j:j+1])
				if j+1 < len(a) {
					parts = append(parts, a[j+1:])
				}
				ok = true
				break cluster
			default:
				break cluster
			}
		}
		if ok {
			out = append(out, parts...)
		} else {
			out = append(out, a)
		}
	}
	return out
}
