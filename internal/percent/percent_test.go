package percent

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDecode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
		bad            bool
	}{
		{"a plain path is kept", "/work/src/main.go", "/work/src/main.go", false},
		{"escapes are decoded, in either case", "/my%20file%2Fx%2fy", "/my file/x/y", false},
		{"a drive letter's colon", "/c%3A/work", "/c:/work", false},
		{"a plus stays a plus", "/a+b", "/a+b", false},
		{"bytes beyond ASCII", "/caf%C3%A9", "/café", false},
		{"a percent without digits", "/100%", "", true},
		{"a percent with one digit", "/x%4", "", true},
		{"a percent with a letter that is not hex", "/x%zz", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Decode(tt.in)
			if tt.bad {
				assert.ErrorIs(t, err, ErrBadEscape)
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// Decode agrees with url.PathUnescape, which it stands in for.
func FuzzDecodeAgreesWithPathUnescape(f *testing.F) {
	for _, s := range []string{"", "/a%20b", "%", "%4", "%zz", "a+b", "%C3%A9", "%%41", "%41%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, werr := url.PathUnescape(s)
		got, err := Decode(s)
		if (werr != nil) != (err != nil) || werr == nil && got != want {
			t.Fatalf("%q: url.PathUnescape %q, %v; Decode %q, %v", s, want, werr, got, err)
		}
	})
}
