package suggest

import "testing"

func TestClosestAndDistance(t *testing.T) {
	t.Parallel()
	tests := []struct {
		word  string
		cands []string
		want  string
	}{
		{"min_aura_tool_raito", []string{"min_aura_tool_ratio", "max_steps_to_target"}, "min_aura_tool_ratio"},
		{"recal@5", []string{"recall@5", "mrr"}, "recall@5"},
		{"xyz", []string{"mrr", "map"}, ""},
		{"ab", []string{"ba", "ab c"}, "ba"},
		{"x", nil, ""},
	}
	for _, tt := range tests {
		if got := Closest(tt.word, tt.cands); got != tt.want {
			t.Errorf("Closest(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
	if d := Distance("raito", "ratio"); d != 1 {
		t.Errorf("a swap of adjacent letters is one edit, got %d", d)
	}
	if d := Distance("kitten", "sitting"); d != 3 {
		t.Errorf("Distance(kitten, sitting) = %d, want 3", d)
	}
}
