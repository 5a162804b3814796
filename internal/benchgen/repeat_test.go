package benchgen

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRepeatMakesEachCopysIdentifiersItsOwn(t *testing.T) {
	sample := []byte(`{"uuid":"a","parentUuid":"b","id":"toolu_1"}` + "\n" + `{"x":"toolu_2 toolu_3"}` + "\n")
	got := Repeat(sample, 2,
		Marked{Markers: []string{"toolu_"}, Sep: "x"},
		Marked{Markers: []string{`"uuid":"`, `"parentUuid":"`}, Sep: "-"})
	want := `{"uuid":"0-a","parentUuid":"0-b","id":"toolu_0x1"}` + "\n" + `{"x":"toolu_0x2 toolu_0x3"}` + "\n" +
		`{"uuid":"1-a","parentUuid":"1-b","id":"toolu_1x1"}` + "\n" + `{"x":"toolu_1x2 toolu_1x3"}` + "\n"
	assert.Equal(t, want, string(got))
}

func TestRepeatWithoutMarkersCopies(t *testing.T) {
	assert.Equal(t, "abab", string(Repeat([]byte("ab"), 2)))
}
