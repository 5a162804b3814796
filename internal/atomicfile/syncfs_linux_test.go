package atomicfile

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestKernelAtLeastReadsTheReleaseNumbers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		release string
		want    bool
	}{
		{"5.8.0", true},
		{"6.18.44-fc-v669", true},
		{"5.10.0-21-amd64", true},
		{"5.7.19", false},
		{"4.19.0-generic", false},
		{"10.0", true},
		{"5", false},
		{"garbage", false},
		{"", false},
	}
	for _, tt := range tests {
		t.Run(tt.release, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, kernelAtLeast(tt.release, 5, 8))
		})
	}
}
