package sqlitefile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixtureValue is the value make_fixtures.py wrote in row i of kv.
func fixtureValue(i int) Value {
	switch {
	case i%19 == 0:
		return float64(i) / 4
	case i%17 == 0:
		return int64(i) * 1000003
	case i%13 == 0:
		return nil
	case i%11 == 0:
		var b []byte
		for j := range i % 256 {
			b = append(b, byte(j))
		}
		return bytes.Repeat(b, 3)
	case i%7 == 0:
		return strings.Repeat(fmt.Sprintf("long %04d ", i), 300)
	}
	return fmt.Sprintf("value %04d ", i) + strings.Repeat("x", 29)
}

func openFixture(t testing.TB, name string) (*DB, []byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	db, err := Open(bytes.NewReader(data), int64(len(data)))
	require.NoError(t, err)
	return db, data
}

func tableRoot(t testing.TB, db *DB, name string) uint32 {
	t.Helper()
	tables, err := db.Tables()
	require.NoError(t, err)
	for _, tb := range tables {
		if tb.Name == name {
			return tb.Root
		}
	}
	t.Fatalf("no table %s", name)
	return 0
}

func TestScanReadsEveryRowThroughInteriorAndOverflowPages(t *testing.T) {
	t.Parallel()
	db, _ := openFixture(t, "kv-interior-overflow.db")
	assert.Equal(t, 512, db.PageSize())
	tables, err := db.Tables()
	require.NoError(t, err)
	require.Len(t, tables, 2)
	assert.Equal(t, "kv", tables[0].Name)
	assert.Equal(t, "CREATE TABLE kv (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)", tables[0].SQL)
	var got []Row
	require.NoError(t, db.Scan(tables[0].Root, func(r Row) error {
		r.Columns = append([]Value(nil), r.Columns...)
		got = append(got, r)
		return nil
	}))
	require.Len(t, got, 300)
	for i, r := range got {
		assert.Equal(t, int64(i+1), r.RowID)
		assert.Equal(t, []Value{fmt.Sprintf("k%04d", i), fixtureValue(i)}, r.Columns, "row %d", i)
	}
	var small []Row
	require.NoError(t, db.Scan(tableRoot(t, db, "t"), func(r Row) error {
		small = append(small, Row{RowID: r.RowID, Columns: append([]Value(nil), r.Columns...)})
		return nil
	}))
	assert.Equal(t, []Row{{1, []Value{int64(1), "one"}}, {2, []Value{int64(-2), "two"}}, {3, []Value{int64(1) << 40, "big"}}}, small)
}

func TestInteriorPagesAndOverflowChainsArePresent(t *testing.T) {
	t.Parallel()
	db, data := openFixture(t, "kv-interior-overflow.db")
	interior, overflow := interiorPages(data, db.pageSize), overflowPages(t, db, data)
	assert.NotEmpty(t, interior, "the fixture's table has interior pages")
	assert.NotEmpty(t, overflow, "the fixture has overflow chains")
}

func TestLookupFindsEachRowByRowID(t *testing.T) {
	t.Parallel()
	db, _ := openFixture(t, "kv-interior-overflow.db")
	root := tableRoot(t, db, "kv")
	for i := range 300 {
		r, ok, err := db.Lookup(root, int64(i+1))
		require.NoError(t, err)
		require.True(t, ok, "rowid %d", i+1)
		assert.Equal(t, []Value{fmt.Sprintf("k%04d", i), fixtureValue(i)}, r.Columns)
	}
	for _, missing := range []int64{0, -1, 301, 1 << 40} {
		_, ok, err := db.Lookup(root, missing)
		require.NoError(t, err)
		assert.False(t, ok, "rowid %d", missing)
	}
}

func TestScanStopsWhenTold(t *testing.T) {
	t.Parallel()
	db, _ := openFixture(t, "kv-interior-overflow.db")
	n := 0
	err := db.Scan(tableRoot(t, db, "kv"), func(Row) error {
		n++
		if n == 5 {
			return ErrStop
		}
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, 5, n)
	boom := errors.New("boom")
	err = db.Scan(tableRoot(t, db, "kv"), func(Row) error { return boom })
	assert.ErrorIs(t, err, boom)
}

func walRows(t *testing.T, db *DB) map[string]Value {
	t.Helper()
	rows := map[string]Value{}
	require.NoError(t, db.Scan(tableRoot(t, db, "kv"), func(r Row) error {
		rows[r.Columns[0].(string)] = r.Columns[1]
		return nil
	}))
	return rows
}

func TestApplyWALReadsCommittedFramesOnly(t *testing.T) {
	t.Parallel()
	db, _ := openFixture(t, "wal.db")
	before := walRows(t, db)
	assert.Len(t, before, 5)
	assert.Equal(t, "in the file", before["base0"])

	log, err := os.ReadFile(filepath.Join("testdata", "wal.db-wal"))
	require.NoError(t, err)
	n, err := db.ApplyWAL(bytes.NewReader(log), int64(len(log)))
	require.NoError(t, err)
	assert.Equal(t, 1, n, "one committed frame; the uncommitted one after it is left out")
	after := walRows(t, db)
	assert.Len(t, after, 8)
	assert.Equal(t, "updated in the log", after["base0"])
	assert.Equal(t, "in the log", after["wal2"])
}

func TestApplyWALReadsAFrameThatEndsTheLog(t *testing.T) {
	t.Parallel()
	log, err := os.ReadFile(filepath.Join("testdata", "wal.db-wal"))
	require.NoError(t, err)
	db, _ := openFixture(t, "wal.db")
	one := log[:32+24+db.pageSize] // the committed frame, the log's last byte
	n, err := db.ApplyWAL(bytes.NewReader(one), int64(len(one)))
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.Len(t, walRows(t, db), 8)
}

func TestApplyWALRefusesBrokenLogs(t *testing.T) {
	t.Parallel()
	log, err := os.ReadFile(filepath.Join("testdata", "wal.db-wal"))
	require.NoError(t, err)
	tests := []struct {
		name    string
		edit    func([]byte) []byte
		err     string
		applied int
	}{
		{"an empty log applies nothing", func([]byte) []byte { return nil }, "", 0},
		{"a log of its header alone applies nothing", func(b []byte) []byte { return b[:32] }, "", 0},
		{"a log shorter than its header", func(b []byte) []byte { return b[:20] }, "shorter than its 32-byte header", 0},
		{"a wrong magic number", func(b []byte) []byte { b[3] = 0; return b }, "magic number", 0},
		{"a page size that is not the database's", func(b []byte) []byte { b[10] = 2; return b }, "page size", 0},
		{"a header whose checksum fails", func(b []byte) []byte { b[16] ^= 1; return b }, "checksum", 0},
		{"a frame whose checksum fails ends the log", func(b []byte) []byte { b[32+24+100] ^= 1; return b }, "", 0},
		{"a frame of another salt ends the log", func(b []byte) []byte { b[32+8] ^= 1; return b }, "", 0},
		{"a frame for page 0 ends the log", func(b []byte) []byte { copy(b[32:36], []byte{0, 0, 0, 0}); return b }, "", 0},
		{"a frame cut short is not read", func(b []byte) []byte { return b[:32+24+10] }, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			db, _ := openFixture(t, "wal.db")
			b := tt.edit(bytes.Clone(log))
			n, err := db.ApplyWAL(bytes.NewReader(b), int64(len(b)))
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.applied, n)
			assert.Len(t, walRows(t, db), 5, "the database as the file holds it")
		})
	}
}

// interiorPages lists the table interior pages of a database file.
func interiorPages(data []byte, pageSize int) []uint32 {
	var out []uint32
	for n := 1; n*pageSize <= len(data); n++ {
		h := (n - 1) * pageSize
		if n == 1 {
			h = 100
		}
		if data[h] == 0x05 {
			out = append(out, uint32(n))
		}
	}
	return out
}

// overflowPages lists the first overflow page of every cell that has one.
func overflowPages(t testing.TB, db *DB, data []byte) []uint32 {
	var out []uint32
	for n := 2; n*db.pageSize <= len(data); n++ {
		page := data[(n-1)*db.pageSize : n*db.pageSize]
		if page[0] != 0x0d {
			continue
		}
		bt, err := db.btreeHeader(uint32(n), page)
		require.NoError(t, err)
		for i := range bt.cells {
			off, err := bt.cell(uint32(n), page, i)
			require.NoError(t, err)
			size, m := varint(page[off:])
			_, k := varint(page[off+m:])
			local := db.localPayload(int(size))
			if local < int(size) {
				out = append(out, binary.BigEndian.Uint32(page[off+m+k+local:]))
			}
		}
	}
	return out
}

func TestCorruptFilesAreErrorsNamingThePage(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("testdata", "kv-interior-overflow.db"))
	require.NoError(t, err)
	db, _ := openFixture(t, "kv-interior-overflow.db")
	ps := db.pageSize
	interior := interiorPages(data, ps)
	overflow := overflowPages(t, db, data)
	require.NotEmpty(t, interior)
	require.NotEmpty(t, overflow)
	at := func(n uint32) int { return (int(n) - 1) * ps }
	put32 := func(b []byte, off int, v uint32) { binary.BigEndian.PutUint32(b[off:], v) }

	tests := []struct {
		name string
		edit func([]byte) []byte
		err  string
	}{
		{"a file shorter than its header", func(b []byte) []byte { return b[:99] }, "shorter than the 100-byte header"},
		{"another file type", func(b []byte) []byte { copy(b, "PNG"); return b }, `does not start with "SQLite format 3"`},
		{"a page size that is not a power of two", func(b []byte) []byte { b[16], b[17] = 3, 0; return b }, "page size 768"},
		{"reserved bytes that leave too little of a page", func(b []byte) []byte { b[20] = 100; return b }, "usable bytes"},
		{"a UTF-16 database", func(b []byte) []byte { put32(b, 56, 2); return b }, "UTF-16"},
		{"an interior page that points at itself", func(b []byte) []byte {
			n := interior[0]
			put32(b, at(n)+8, n)
			return b
		}, "reached twice"},
		{"a child page outside the file", func(b []byte) []byte {
			put32(b, at(interior[0])+8, 1<<30)
			return b
		}, "outside the file's"},
		{"an overflow chain that loops", func(b []byte) []byte {
			n := overflow[0]
			put32(b, at(n), n)
			return b
		}, "overflow chain loops"},
		{"an overflow chain that ends early", func(b []byte) []byte {
			put32(b, at(overflow[0]), 0)
			return b
		}, "overflow chain ends"},
		{"a page of an unknown type", func(b []byte) []byte { b[at(interior[0])] = 0x07; return b }, "not a table B-tree page"},
		{"a cell pointer outside the page", func(b []byte) []byte {
			n := interior[0]
			binary.BigEndian.PutUint16(b[at(n)+12:], 3)
			return b
		}, "outside the cell content area"},
		{"more cells than the page holds", func(b []byte) []byte {
			binary.BigEndian.PutUint16(b[at(interior[0])+3:], 1000)
			return b
		}, "cells do not fit the page"},
		{"a file cut in the middle of the table", func(b []byte) []byte { return b[:len(b)/2] }, "outside the file's"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := tt.edit(bytes.Clone(data))
			err := scanAll(b)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
}

func TestRecordsAreChecked(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		payload []byte
		want    []Value
		err     string
	}{
		{"integers of every width and the constants", []byte{9, 1, 2, 3, 4, 5, 6, 8, 9,
			0xff, 0x01, 0x00, 0x01, 0x00, 0x00, 0xff, 0xff, 0xff, 0xfe, 0, 0, 0, 0, 0, 7, 0x80, 0, 0, 0, 0, 0, 0, 0},
			[]Value{int64(-1), int64(256), int64(65536), int64(-2), int64(7), int64(-1) << 63, int64(0), int64(1)}, ""},
		{"a float", []byte{2, 7, 0x40, 0x09, 0x21, 0xfb, 0x54, 0x44, 0x2d, 0x18}, []Value{3.141592653589793}, ""},
		{"text and a blob", []byte{3, 19, 16, 'a', 'b', 'c', 1, 2}, []Value{"abc", []byte{1, 2}}, ""},
		{"a header longer than the payload", []byte{9, 1}, nil, "record header of 9 bytes"},
		{"a header ending inside a serial type", []byte{2, 0x81}, nil, "ends inside a serial type"},
		{"a reserved serial type", []byte{2, 10}, nil, "serial type 10 is reserved"},
		{"a value past the record", []byte{2, 6, 1}, nil, "runs past its record"},
		{"an empty payload", []byte{}, nil, "record header of 0 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := record(7, tt.payload)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				assert.Contains(t, err.Error(), "page 7")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestVarint(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   []byte
		want uint64
		n    int
	}{
		{[]byte{0x00}, 0, 1},
		{[]byte{0x7f}, 127, 1},
		{[]byte{0x81, 0x00}, 128, 2},
		{[]byte{0x81, 0x80, 0x00}, 1 << 14, 3},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 1<<64 - 1, 9},
		{[]byte{0x81}, 0, 0},
		{nil, 0, 0},
	}
	for _, tt := range tests {
		got, n := varint(tt.in)
		assert.Equal(t, tt.want, got, "% x", tt.in)
		assert.Equal(t, tt.n, n, "% x", tt.in)
	}
}

func TestLocalPayloadFollowsTheFileFormat(t *testing.T) {
	t.Parallel()
	db := &DB{usable: 4096}
	// U=4096: X=4061, M=((4096-12)*32/255)-23=489.
	assert.Equal(t, 4061, db.localPayload(4061), "a payload up to X stays on the page")
	assert.Equal(t, 489+(5000-489)%4092, db.localPayload(5000), "K when it fits")
	assert.Equal(t, 489, db.localPayload(489+4000), "M when K is larger than X")
}

// scanAll opens the file and reads every row of every table, looking each
// row up again by its rowid.
func scanAll(data []byte) error {
	db, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return err
	}
	tables, err := db.Tables()
	if err != nil {
		return err
	}
	for _, tb := range tables {
		var ids []int64
		if err := db.Scan(tb.Root, func(r Row) error { ids = append(ids, r.RowID); return nil }); err != nil {
			return err
		}
		for _, id := range ids {
			if _, _, err := db.Lookup(tb.Root, id); err != nil {
				return err
			}
		}
	}
	return nil
}

func TestAShortOverflowChainSaysHowMuchIsMissing(t *testing.T) {
	t.Parallel()
	db, data := openFixture(t, "kv-interior-overflow.db")
	overflow := overflowPages(t, db, data)
	b := bytes.Clone(data)
	binary.BigEndian.PutUint32(b[(int(overflow[0])-1)*db.pageSize:], 0)
	err := scanAll(b)
	require.Error(t, err)
	var missing int
	_, scanErr := fmt.Sscanf(err.Error()[strings.Index(err.Error(), "ends ")+len("ends "):], "%d bytes short", &missing)
	require.NoError(t, scanErr, err.Error())
	assert.Greater(t, missing, 0)
	assert.Less(t, missing, 3100, "less than the longest value of the fixture")
}
