package trace

import (
	"fmt"
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

func TestASidechainRootIsMatchedToTheFirstOpenTaskCallWithItsPrompt(t *testing.T) {
	r := &claudeReader{byPrompt: map[string][]int{}}
	add := func(id, prompt string) {
		if prompt != "" {
			key := strings.TrimSpace(prompt)
			r.byPrompt[key] = append(r.byPrompt[key], len(r.tasks))
		}
		r.tasks = append(r.tasks, claudeTask{id: id})
	}
	add("t1", "find the bug")
	add("t2", "  find the bug\n")
	add("t3", "other")
	add("t4", "find the bug")
	add("t5", "   ")
	add("t6", "")
	assert.Equal(t, "t1", r.matchTask("find the bug"))
	assert.Equal(t, "t2", r.matchTask(" find the bug "), "the prompts compare trimmed; a claimed call is passed over")
	r.tasks[3].done = true
	assert.Equal(t, "t1", r.matchTask("find the bug"), "with every match claimed or done, the first match")
	assert.Equal(t, "t5", r.matchTask(""), "a prompt of blanks matches a root without text")
	assert.Equal(t, "t6", r.matchTask("no such prompt"), "without a match, the latest open call not claimed")
	assert.Equal(t, "t3", r.matchTask("no such prompt"))
	assert.True(t, r.tasks[2].claimed)
}

func TestAUUIDSetAgainHasItsLastParentWhetherRecentOrNot(t *testing.T) {
	m := newSideParents()
	const u = "62e0bdc0-a1e4-4d5c-8509-3b9d0d57cc67"
	m.set([]byte(u), "first")
	m.set([]byte(u), "second")
	got, _ := m.get([]byte(u))
	assert.Equal(t, "second", got, "among the recent uuids")
	m.set([]byte("3-"+u), "third")
	for i := range 2 * len(m.recent) {
		m.set(fmt.Appendf(nil, "%d-%s", 100+i, u), "filler")
		got, ok := m.get([]byte(u))
		assert.True(t, ok)
		assert.Equal(t, "second", got, "after %d more uuids", i+1)
		got, _ = m.get([]byte("3-" + u))
		assert.Equal(t, "third", got, "after %d more uuids", i+1)
	}
	m.set([]byte(u), "last")
	got, _ = m.get([]byte(u))
	assert.Equal(t, "last", got)
}
