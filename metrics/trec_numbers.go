package metrics

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// trec_eval reads numbers with C's atol (relevance grades, -l, -M) and atof
// (scores, z-score means and deviations), which stop at the first character
// they cannot use and return what they read so far, with no error. Go's
// strconv reads the whole text or fails, and accepts forms C does not
// ("1_000"). Where the two would disagree on a figure, the text is refused
// with a message that says what trec_eval would have read, rather than
// silently giving a different answer; where they agree, it is accepted.

// ErrTRECNumber is wrapped by every error about a number that trec_eval
// would read differently from what it says.
var ErrTRECNumber = errors.New("number that trec_eval would read differently")

// parseGrade reads a relevance grade as trec_eval's atol does.
//
// Accepted: an integer with an optional sign ("2", "+2", "-1"), and a
// decimal without an exponent ("1.0", "2.7", ".5"), whose integer part is
// the grade (atol stops at the point, which truncates toward zero). The
// grade must lie within ±math.MaxInt32, so that no grade depends on the
// width of an int and sums of grades stay exact.
//
// Refused, because atol reads only a leading part of them: an exponent
// ("1e1" is 1 to trec_eval, not 10), digit separators ("1_000" is 1), any
// other trailing text ("3abc" is 3), hexadecimal ("0x10" is 0), inf and nan.
func parseGrade(s string) (int, error) {
	intEnd := digitsEnd(s, signEnd(s))
	end := intEnd
	if end < len(s) && s[end] == '.' {
		end = digitsEnd(s, end+1)
	}
	if !hasDigit(s[:end]) {
		return 0, fmt.Errorf("%w: relevance %q is not an integer", ErrMalformedLine, s)
	}
	if end != len(s) {
		return 0, fmt.Errorf("%w: relevance %q: %w; trec_eval's atol would read it as %s, so write the grade as an integer",
			ErrMalformedLine, s, ErrTRECNumber, atolText(s))
	}
	var g int64 // ".5": atol reads no digit, which is 0
	var err error
	if hasDigit(s[:intEnd]) {
		g, err = strconv.ParseInt(s[:intEnd], 10, 64)
	}
	if err != nil || g < -math.MaxInt32 || g > math.MaxInt32 {
		return 0, fmt.Errorf("%w: relevance %s is outside ±%d", ErrMalformedLine, s, math.MaxInt32)
	}
	return int(g), nil
}

// parseTRECFloat reads a score, a z-score mean or deviation, or a measure
// parameter as trec_eval's atof does, for what names it in messages.
//
// Accepted: a decimal number with an optional sign, point and exponent
// ("97.5", "+1", "1e-3", ".5"), and inf or infinity with an optional sign.
// Refused: text after the number, which atof ignores ("1_000" is 1 to
// trec_eval, "1,5" is 1, "3abc" is 3); hexadecimal ("0x10", which Go's
// strconv does not read as 16 the way atof does); nan, which has no rank;
// and numbers beyond the range of a float64, which atof turns into inf.
func parseTRECFloat(what, s string) (float64, error) {
	body := s[signEnd(s):]
	lower := strings.ToLower(body)
	switch {
	case lower == "inf" || lower == "infinity":
		if s[0] == '-' {
			return math.Inf(-1), nil
		}
		return math.Inf(1), nil
	case strings.HasPrefix(lower, "nan"):
		return 0, fmt.Errorf("%s %q is not a number", what, s)
	case strings.HasPrefix(lower, "0x"):
		return 0, fmt.Errorf("%s %q: %w; hexadecimal is not read, write it in decimal", what, s, ErrTRECNumber)
	}
	end := decimalEnd(s)
	if end == 0 {
		return 0, fmt.Errorf("%s %q is not a number", what, s)
	}
	if end != len(s) {
		return 0, fmt.Errorf("%s %q: %w; trec_eval's atof would read only %q and ignore the rest, so write a plain decimal number",
			what, s, ErrTRECNumber, s[:end])
	}
	f, err := strconv.ParseFloat(s, 64)
	if errors.Is(err, strconv.ErrRange) && math.IsInf(f, 0) {
		return 0, fmt.Errorf("%s %s is beyond the range of a float64 (±1.8e308)", what, s)
	}
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("%s %q is not a number", what, s)
	}
	return f, nil
}

// ParseTRECInt reads the integer of a trec_eval option such as -l or -M.
// trec_eval reads them with atol, which ignores anything after the leading
// digits ("2.5" is 2, "1e3" is 1); Go's flag package would read "010" as 8
// and "0x2" as 2, where atol reads 10 and 0. Only a plain decimal integer
// with an optional sign is accepted, so that both read the same number;
// anything else is an error that says what trec_eval would read.
func ParseTRECInt(s string) (int, error) {
	end := digitsEnd(s, signEnd(s))
	if !hasDigit(s[:end]) {
		return 0, fmt.Errorf("%q is not an integer", s)
	}
	if end != len(s) {
		return 0, fmt.Errorf("%q: %w; trec_eval's atol would read it as %s, so write a plain integer", s, ErrTRECNumber, atolText(s))
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%q is out of range", s)
	}
	return n, nil
}

// signEnd returns the index after an optional leading sign.
func signEnd(s string) int {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		return 1
	}
	return 0
}

// digitsEnd returns the index of the first non-digit at or after i.
func digitsEnd(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

func hasDigit(s string) bool {
	return strings.ContainsAny(s, "0123456789")
}

// decimalEnd returns the length of the longest prefix of s that C's strtod
// reads as a decimal number (sign, digits, point, digits, and an exponent
// only when a digit follows its sign), or 0 when it reads none.
func decimalEnd(s string) int {
	i := signEnd(s)
	intEnd := digitsEnd(s, i)
	end := intEnd
	if end < len(s) && s[end] == '.' {
		end = digitsEnd(s, end+1)
	}
	if !hasDigit(s[i:end]) {
		return 0
	}
	if end < len(s) && (s[end] == 'e' || s[end] == 'E') {
		j := signEnd(s[end+1:]) + end + 1
		if k := digitsEnd(s, j); k > j {
			end = k
		}
	}
	return end
}

// atolText returns what C's atol reads from s, as text: the leading sign
// and digits, or 0.
func atolText(s string) string {
	end := digitsEnd(s, signEnd(s))
	n, err := strconv.ParseInt(s[:end], 10, 64)
	if err != nil {
		if end > signEnd(s) {
			return s[:end]
		}
		return "0"
	}
	return strconv.FormatInt(n, 10)
}
