// Package percent decodes the percent-encoded paths of file:// URIs, as
// net/url's PathUnescape does. It is here so that the trace readers and
// events, which need nothing else of net/url, do not make every program
// that reads traces compile net/url and net/netip.
package percent

import "errors"

// ErrBadEscape is Decode's error for a "%" that two hex digits do not
// follow.
var ErrBadEscape = errors.New("invalid percent escape")

// Decode returns s with every %XX replaced by the byte XX; a "+" stays a
// "+". A "%" that two hex digits do not follow is ErrBadEscape, as
// url.PathUnescape refuses it.
func Decode(s string) (string, error) {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return "", ErrBadEscape
			}
			n++
			i += 2
		}
	}
	if n == 0 {
		return s, nil
	}
	b := make([]byte, 0, len(s)-2*n)
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return string(b), nil
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	default:
		return c - 'a' + 10
	}
}
