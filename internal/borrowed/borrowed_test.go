package borrowed

import "testing"

func TestStringSharesTheBytes(t *testing.T) {
	t.Parallel()
	b := []byte("abc")
	s := String(b)
	if s != "abc" {
		t.Fatalf("String(%q) = %q", b, s)
	}
	b[0] = 'x'
	if s != "xbc" {
		t.Errorf("after the bytes changed, the string is %q, want %q", s, "xbc")
	}
	if String(nil) != "" || String(b[:0]) != "" {
		t.Error("no bytes must read as the empty string")
	}
}
