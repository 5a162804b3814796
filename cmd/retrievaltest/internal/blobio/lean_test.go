package blobio

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// withoutDrivers runs f as in the command's lean build, where package
// clouds is not linked.
func withoutDrivers(t *testing.T, f func()) {
	driversMu.Lock()
	saved := drivers
	drivers = map[string]Opener{}
	driversMu.Unlock()
	defer func() {
		driversMu.Lock()
		drivers = saved
		driversMu.Unlock()
	}()
	f()
}

func TestWithoutDriversABucketSaysWhichBuildReadsIt(t *testing.T) {
	withoutDrivers(t, func() {
		for _, scheme := range Schemes {
			assert.False(t, Linked(scheme), scheme)
			var s Stage
			_, err := s.Input(context.Background(), scheme+"://bucket/runs/r1")
			require.Error(t, err, scheme)
			assert.Contains(t, err.Error(), scheme+"://bucket/runs/r1: this build of retrievaltest has no bucket drivers")
			assert.Contains(t, err.Error(), "run it through retrievaltest-clouds")
			assert.Contains(t, err.Error(), "-tags allclouds")
			require.NoError(t, s.Close())
		}
	})
}

func TestRegisterTakesOnlyTheBucketSchemes(t *testing.T) {
	withoutDrivers(t, func() {
		assert.Panics(t, func() { Register("file", nil) })
		Register("gs", func(context.Context, string) (Bucket, error) { return nil, nil })
		assert.True(t, Linked("gs"))
		assert.False(t, Linked("s3"))
	})
}

func TestNamesBucketFindsAURLAloneOrAsAFlagValue(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{"events", "trace.jsonl"}, false},
		{[]string{"run-dir", "s3://bench/runs/r1"}, true},
		{[]string{"run-dir", "-out", "gs://bench/out", "runs/r1"}, true},
		{[]string{"run-dir", "-out=azblob://c/out", "runs/r1"}, true},
		{[]string{"run-dir", "--out=s3://b/o", "runs/r1"}, true},
		{[]string{"events", "-name=x", "http://h/s3://b"}, false},
		{[]string{"events", "x=s3://b"}, false}, // not a flag: a file name
		{[]string{"events", "-note", "see s3://b"}, false},
	} {
		assert.Equal(t, c.want, NamesBucket(c.args), "%q", c.args)
	}
}
