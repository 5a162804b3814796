package sqlitefile

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// synthetic builds a database of 512-byte pages: the fixture's first page,
// then the given pages.
func synthetic(t *testing.T, pages ...[]byte) *DB {
	t.Helper()
	_, data := openFixture(t, "kv-interior-overflow.db")
	file := bytes.Clone(data[:512])
	for _, p := range pages {
		require.Len(t, p, 512)
		file = append(file, p...)
	}
	db, err := Open(bytes.NewReader(file), int64(len(file)))
	require.NoError(t, err)
	return db
}

// interiorPage is a table interior page without cells whose right-most
// child is page right.
func interiorPage(right uint32) []byte {
	p := make([]byte, 512)
	p[0] = 0x05
	binary.BigEndian.PutUint32(p[8:], right)
	return p
}

// leafPage is a table leaf page holding one cell at offset at: rowid 7,
// one TEXT column "hi".
func leafPage(at int) []byte {
	p := make([]byte, 512)
	p[0] = 0x0d
	binary.BigEndian.PutUint16(p[3:], 1)
	binary.BigEndian.PutUint16(p[8:], uint16(at))
	copy(p[at:], []byte{4, 7, 2, 17, 'h', 'i'}) // payload 4 bytes, rowid 7, record: header 2, type 17 (text of 2)
	return p
}

func TestATreeDeeperThanAnyFileCanHoldIsRefused(t *testing.T) {
	t.Parallel()
	var pages [][]byte
	const depth = maxDepth + 2
	for i := range depth {
		pages = append(pages, interiorPage(uint32(i+3))) // page i+2 points at page i+3
	}
	pages = append(pages, leafPage(300))
	db := synthetic(t, pages...)
	err := db.Scan(2, func(Row) error { return nil })
	assert.ErrorContains(t, err, "deeper than 40 levels")
	_, _, err = db.Lookup(2, 7)
	assert.ErrorContains(t, err, "deeper than 40 levels")

	shallow := synthetic(t, interiorPage(3), leafPage(300))
	var rows []Row
	require.NoError(t, shallow.Scan(2, func(r Row) error { rows = append(rows, r); return nil }))
	assert.Equal(t, []Row{{RowID: 7, Columns: []Value{"hi"}}}, rows)
	r, ok, err := shallow.Lookup(2, 7)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, []Value{"hi"}, r.Columns)
}

// childPage is a table interior page with one cell whose left child is
// page child (rowids up to 100), and page right on the right.
func childPage(child, right uint32) []byte {
	p := make([]byte, 512)
	p[0] = 0x05
	binary.BigEndian.PutUint16(p[3:], 1)
	binary.BigEndian.PutUint32(p[8:], right)
	binary.BigEndian.PutUint16(p[12:], 400)
	binary.BigEndian.PutUint32(p[400:], child)
	p[404] = 100 // the cell's rowid key
	return p
}

func TestDepthIsCountedThroughLeftChildrenToo(t *testing.T) {
	t.Parallel()
	chain := func(levels int) *DB {
		// Pages 2 … levels+1 point at the next through their cell; page
		// levels+2 is the leaf of rowid 7; each interior page's right
		// child is an empty leaf of its own, after it.
		var pages [][]byte
		for i := range levels {
			pages = append(pages, childPage(uint32(i+3), uint32(levels+3+i)))
		}
		pages = append(pages, leafPage(300))
		for range levels {
			empty := make([]byte, 512)
			empty[0] = 0x0d
			pages = append(pages, empty)
		}
		return synthetic(t, pages...)
	}
	count := func(db *DB) (int, error) {
		n := 0
		err := db.Scan(2, func(Row) error { n++; return nil })
		return n, err
	}
	n, err := count(chain(maxDepth))
	require.NoError(t, err, "a leaf at the deepest level allowed")
	assert.Equal(t, 1, n)
	r, ok, err := chain(maxDepth).Lookup(2, 7)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, []Value{"hi"}, r.Columns)

	_, err = count(chain(maxDepth + 1))
	assert.ErrorContains(t, err, "deeper than 40 levels")
	_, _, err = chain(maxDepth+1).Lookup(2, 7)
	assert.ErrorContains(t, err, "deeper than 40 levels")
}

func TestACellRightAfterThePointerArrayIsRead(t *testing.T) {
	t.Parallel()
	db := synthetic(t, leafPage(10)) // 8-byte header, one 2-byte pointer
	var rows []Row
	require.NoError(t, db.Scan(2, func(r Row) error { rows = append(rows, r); return nil }))
	assert.Equal(t, []Row{{RowID: 7, Columns: []Value{"hi"}}}, rows)

	inside := leafPage(10)
	binary.BigEndian.PutUint16(inside[8:], 9) // inside the pointer array
	err := synthetic(t, inside).Scan(2, func(Row) error { return nil })
	assert.ErrorContains(t, err, "page 2: cell 0 starts at offset 9, outside the cell content area")

	past := leafPage(10)
	binary.BigEndian.PutUint16(past[8:], 512) // the page's end
	err = synthetic(t, past).Scan(2, func(Row) error { return nil })
	assert.ErrorContains(t, err, "page 2: cell 0 starts at offset 512, outside the cell content area")
}

func TestHeaderLimits(t *testing.T) {
	t.Parallel()
	_, data := openFixture(t, "kv-interior-overflow.db")
	_, err := Open(bytes.NewReader(data[:100]), 100)
	assert.NoError(t, err, "a file of its header alone opens (and has no page)")

	big := bytes.Clone(data)
	big[16], big[17] = 0, 1 // 65536-byte pages
	db, err := Open(bytes.NewReader(big), int64(len(big)))
	require.NoError(t, err)
	assert.Equal(t, 65536, db.PageSize())

	reserved := bytes.Clone(data)
	reserved[20] = 32 // 480 usable bytes of 512: the least allowed
	db, err = Open(bytes.NewReader(reserved), int64(len(reserved)))
	require.NoError(t, err)
	assert.Equal(t, 480, db.usable)
	reserved[20] = 33
	_, err = Open(bytes.NewReader(reserved), int64(len(reserved)))
	assert.ErrorContains(t, err, "33 reserved bytes leave 479 usable bytes a page")

	small := bytes.Clone(data)
	small[16], small[17] = 1, 0 // 256-byte pages
	_, err = Open(bytes.NewReader(small), int64(len(small)))
	assert.ErrorContains(t, err, "page size 256")
}

func TestCorruptErrorNamesThePageWhenThereIsOne(t *testing.T) {
	t.Parallel()
	assert.EqualError(t, &CorruptError{Msg: "broken"}, "not a well-formed SQLite file: broken")
	assert.EqualError(t, &CorruptError{Page: 1, Msg: "broken"}, "not a well-formed SQLite file: page 1: broken")
}

func TestInteriorCellsAtThePagesEnd(t *testing.T) {
	t.Parallel()
	atEnd := func(off int) []byte {
		p := childPage(3, 4)
		binary.BigEndian.PutUint16(p[12:], uint16(off))
		binary.BigEndian.PutUint32(p[off:], 3)
		return p
	}
	empty := make([]byte, 512)
	empty[0] = 0x0d
	db := synthetic(t, atEnd(508), leafPage(300), empty)
	n := 0
	require.NoError(t, db.Scan(2, func(Row) error { n++; return nil }), "a child pointer in the page's last 4 bytes")
	assert.Equal(t, 1, n)

	short := make([]byte, 512)
	copy(short, atEnd(508))
	binary.BigEndian.PutUint16(short[12:], 510)
	db = synthetic(t, short, leafPage(300), empty)
	err := db.Scan(2, func(Row) error { return nil })
	assert.ErrorContains(t, err, "page 2: cell 0 runs past the page")
	_, _, err = db.Lookup(2, 7)
	assert.ErrorContains(t, err, "page 2: cell 0 runs past the page")
}

func TestAnEmptyRecordHasNoColumn(t *testing.T) {
	t.Parallel()
	cols, err := record(2, []byte{1})
	require.NoError(t, err)
	assert.Empty(t, cols)
}

func TestLocalPayloadTakesKWhenItIsExactlyX(t *testing.T) {
	t.Parallel()
	db := &DB{usable: 4096}
	// X=4061, M=489: P=8153 gives K=489+(8153-489)%4092=4061=X.
	assert.Equal(t, 4061, db.localPayload(8153))
}
