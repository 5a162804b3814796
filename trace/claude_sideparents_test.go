package trace

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSidechainUUIDsAreKeptAsBytesOnlyInTheirCanonicalForm(t *testing.T) {
	m := sideParents{uuids: map[[16]byte]string{}, other: map[string]string{}}
	m.set([]byte("62e0bdc0-a1e4-4d5c-8509-3b9d0d57cc67"), "task1")
	m.set([]byte("62E0BDC0-A1E4-4D5C-8509-3B9D0D57CC67"), "task2")
	m.set([]byte("a1"), "task3")
	for uuid, want := range map[string]string{
		"62e0bdc0-a1e4-4d5c-8509-3b9d0d57cc67": "task1",
		"62E0BDC0-A1E4-4D5C-8509-3B9D0D57CC67": "task2",
		"a1":                                   "task3",
	} {
		got, ok := m.get([]byte(uuid))
		assert.True(t, ok, uuid)
		assert.Equal(t, want, got, uuid)
	}
	_, ok := m.get([]byte("62e0bdc0-a1e4-4d5c-8509-3b9d0d57cc68"))
	assert.False(t, ok)
	assert.Len(t, m.uuids, 1)
}
