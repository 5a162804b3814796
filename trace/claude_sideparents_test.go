package trace

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSidechainUUIDsAreKeptAsBytesOnlyInTheirCanonicalForm(t *testing.T) {
	m := newSideParents()
	m.set([]byte("62e0bdc0-a1e4-4d5c-8509-3b9d0d57cc67"), "task1")
	m.set([]byte("62E0BDC0-A1E4-4D5C-8509-3B9D0D57CC67"), "task2")
	m.set([]byte("a1"), "task3")
	m.set([]byte("b2"), "task1")
	m.set([]byte("c3"), "")
	for uuid, want := range map[string]string{
		"62e0bdc0-a1e4-4d5c-8509-3b9d0d57cc67": "task1",
		"62E0BDC0-A1E4-4D5C-8509-3B9D0D57CC67": "task2",
		"a1":                                   "task3",
		"b2":                                   "task1",
		"c3":                                   "", // a line no Task call claims
	} {
		got, ok := m.get([]byte(uuid))
		assert.True(t, ok, uuid)
		assert.Equal(t, want, got, uuid)
	}
	_, ok := m.get([]byte("62e0bdc0-a1e4-4d5c-8509-3b9d0d57cc68"))
	assert.False(t, ok)
	assert.Len(t, m.uuids, 1)
	assert.Equal(t, []string{"task1", "task2", "task3", ""}, m.ids, "each parent is kept once")
}

func TestUUIDsAfterAPrefixAreToldApartByPrefixAndUUID(t *testing.T) {
	m := newSideParents()
	const u = "62e0bdc0-a1e4-4d5c-8509-3b9d0d57cc67"
	m.set([]byte(u), "none")
	m.set([]byte("7-"+u), "seven")
	m.set([]byte("12-"+u), "twelve")
	m.set([]byte("12-62e0bdc0-a1e4-4d5c-8509-3b9d0d57cc68"), "twelve too")
	m.set([]byte("12-62E0BDC0-A1E4-4D5C-8509-3B9D0D57CC67"), "upper")
	for uuid, want := range map[string]string{
		u:         "none",
		"7-" + u:  "seven",
		"12-" + u: "twelve",
		"12-62e0bdc0-a1e4-4d5c-8509-3b9d0d57cc68": "twelve too",
		"12-62E0BDC0-A1E4-4D5C-8509-3B9D0D57CC67": "upper",
	} {
		got, ok := m.get([]byte(uuid))
		assert.True(t, ok, uuid)
		assert.Equal(t, want, got, uuid)
	}
	for _, absent := range []string{"1-" + u, "2-" + u, "7-62e0bdc0-a1e4-4d5c-8509-3b9d0d57cc68", "7" + u, u[1:], "x"} {
		_, ok := m.get([]byte(absent))
		assert.False(t, ok, absent)
	}
	assert.Len(t, m.uuids, 4, "a uuid after a prefix is kept as bytes")
	assert.Len(t, m.prefixes, 3, "each prefix is numbered once")
	assert.Len(t, m.other, 1)
}

func TestMessageIDsTellEveryIDApart(t *testing.T) {
	m := newMessageIDs()
	ids := []string{
		"msg_01XFDUDYJgAACzvnptvVoYEL", // Claude's form, kept as an array
		"a", "a\x00", "a\x00\x00",      // equal but for trailing zero bytes
		strings.Repeat("x", 31), // the longest kept as an array
		strings.Repeat("x", 32), // kept as a string
		strings.Repeat("x", 33),
	}
	for i, id := range ids {
		m.set([]byte(id), int32(i))
	}
	for i, id := range ids {
		got, ok := m.get([]byte(id))
		assert.True(t, ok, "%q", id)
		assert.Equal(t, int32(i), got, "%q", id)
	}
	_, ok := m.get([]byte("b"))
	assert.False(t, ok)
	assert.Len(t, m.short, 5)
	assert.Len(t, m.long, 2)
}
