// Package sqlitefile reads the rows of tables of an SQLite database file,
// read-only, without SQLite: it walks the file's table B-trees as the file
// format describes them (sqlite.org/fileformat2.html). It exists so that a
// trace reader can read an agent's SQLite store (Cursor's state.vscdb)
// without a database driver: it never writes, takes no lock, and never
// runs SQL. What it reads is what the main database file holds; a
// write-ahead log beside it (-wal) is applied by OpenWAL.
//
// Every structure is checked before it is used: a page number outside the
// file, a cell that runs past its page, a record whose header does not fit
// its payload, a chain of overflow pages that loops, or a B-tree deeper
// than any file of that size can hold is an error naming the page, never a
// panic or an endless loop.
package sqlitefile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// Header is the start of every SQLite database file.
const Header = "SQLite format 3\x00"

// maxDepth bounds the height of a B-tree: an interior page holds at least
// two children, so no tree in a file of at most 2^32 pages is deeper than
// 32 levels; more means the pages form a cycle.
const maxDepth = 40

// A DB is an SQLite database file opened for reading.
type DB struct {
	r        io.ReaderAt
	size     int64
	pageSize int
	usable   int // page size less the reserved bytes at each page's end
	pages    uint32
	// wal maps page numbers to the latest committed copy of the page in a
	// write-ahead log, when one was applied.
	wal map[uint32][]byte
	// page is a one-page buffer for reads.
	page []byte
}

// A CorruptError reports a database file whose structure is broken.
type CorruptError struct {
	Page uint32 // 0 when the error is not about one page
	Msg  string
}

func (e *CorruptError) Error() string {
	if e.Page > 0 {
		return fmt.Sprintf("not a well-formed SQLite file: page %d: %s", e.Page, e.Msg)
	}
	return "not a well-formed SQLite file: " + e.Msg
}

func corrupt(page uint32, format string, args ...any) error {
	return &CorruptError{Page: page, Msg: fmt.Sprintf(format, args...)}
}

// Open reads the header of the database file r of the given size.
func Open(r io.ReaderAt, size int64) (*DB, error) {
	var h [100]byte
	if size < 100 {
		return nil, corrupt(0, "%d bytes, shorter than the 100-byte header", size)
	}
	if _, err := r.ReadAt(h[:], 0); err != nil {
		return nil, err
	}
	if string(h[:16]) != Header {
		return nil, corrupt(0, "the file does not start with %q", Header[:15])
	}
	ps := int(binary.BigEndian.Uint16(h[16:18]))
	if ps == 1 {
		ps = 65536
	}
	if ps < 512 || ps > 65536 || ps&(ps-1) != 0 {
		return nil, corrupt(0, "page size %d is not a power of two from 512 to 65536", ps)
	}
	reserved := int(h[20])
	usable := ps - reserved
	if usable < 480 {
		return nil, corrupt(0, "%d reserved bytes leave %d usable bytes a page", reserved, usable)
	}
	if enc := binary.BigEndian.Uint32(h[56:60]); enc > 1 {
		return nil, fmt.Errorf("the database's text is UTF-16 (encoding %d); only UTF-8 databases are read", enc)
	}
	pages := size / int64(ps)
	if pages > math.MaxUint32 {
		pages = math.MaxUint32
	}
	return &DB{r: r, size: size, pageSize: ps, usable: usable, pages: uint32(pages), page: make([]byte, ps)}, nil
}

// PageSize is the database's page size in bytes.
func (db *DB) PageSize() int { return db.pageSize }

// readPage returns page n (1-based). The slice is valid until the next
// read.
func (db *DB) readPage(n uint32) ([]byte, error) {
	if p, ok := db.wal[n]; ok {
		return p, nil
	}
	if n == 0 || n > db.pages {
		return nil, corrupt(n, "outside the file's %d pages", db.pages)
	}
	if _, err := db.r.ReadAt(db.page, int64(n-1)*int64(db.pageSize)); err != nil {
		return nil, fmt.Errorf("reading page %d: %w", n, err)
	}
	return db.page, nil
}

// A Value is a column of a row: nil, int64, float64, string (TEXT) or
// []byte (BLOB).
type Value = any

// A Row is one row of a table: its rowid and its columns.
type Row struct {
	RowID   int64
	Columns []Value
}

// ErrStop, returned by a Scan callback, ends the scan without error.
var ErrStop = errors.New("stop")

// Scan calls fn for each row of the table B-tree rooted at page root, in
// rowid order. The row's slices are valid during the call only.
func (db *DB) Scan(root uint32, fn func(Row) error) error {
	seen := map[uint32]bool{}
	err := db.scan(root, 0, seen, fn)
	if errors.Is(err, ErrStop) {
		return nil
	}
	return err
}

func (db *DB) scan(n uint32, depth int, seen map[uint32]bool, fn func(Row) error) error {
	if depth > maxDepth {
		return corrupt(n, "the table's B-tree is deeper than %d levels", maxDepth)
	}
	if seen[n] {
		return corrupt(n, "the page is reached twice: the B-tree has a cycle")
	}
	seen[n] = true
	page, err := db.readPage(n)
	if err != nil {
		return err
	}
	bt, err := db.btreeHeader(n, page)
	if err != nil {
		return err
	}
	switch bt.kind {
	case 0x0d:
		// A leaf's cells are decoded from a copy: fn and overflow reads
		// reuse the page buffer.
		leaf := bytes.Clone(page)
		for i := range bt.cells {
			off, err := bt.cell(n, leaf, i)
			if err != nil {
				return err
			}
			row, err := db.leafCell(n, leaf, off)
			if err != nil {
				return err
			}
			if err := fn(row); err != nil {
				return err
			}
		}
		return nil
	case 0x05:
		interior := bytes.Clone(page)
		for i := range bt.cells {
			off, err := bt.cell(n, interior, i)
			if err != nil {
				return err
			}
			if off+4 > len(interior) {
				return corrupt(n, "cell %d runs past the page", i)
			}
			child := binary.BigEndian.Uint32(interior[off:])
			if err := db.scan(child, depth+1, seen, fn); err != nil {
				return err
			}
		}
		return db.scan(bt.right, depth+1, seen, fn)
	}
	return corrupt(n, "type %#x is not a table B-tree page", bt.kind)
}

// Lookup returns the row with the given rowid from the table B-tree rooted
// at page root; ok is false when there is none. The row's slices are
// valid until the next read.
func (db *DB) Lookup(root uint32, rowid int64) (row Row, ok bool, err error) {
	n := root
	for depth := 0; ; depth++ {
		if depth > maxDepth {
			return Row{}, false, corrupt(n, "the table's B-tree is deeper than %d levels", maxDepth)
		}
		page, err := db.readPage(n)
		if err != nil {
			return Row{}, false, err
		}
		bt, err := db.btreeHeader(n, page)
		if err != nil {
			return Row{}, false, err
		}
		switch bt.kind {
		case 0x0d:
			leaf := bytes.Clone(page)
			for i := range bt.cells {
				off, err := bt.cell(n, leaf, i)
				if err != nil {
					return Row{}, false, err
				}
				id, err := leafRowID(n, leaf, off)
				if err != nil {
					return Row{}, false, err
				}
				if id == rowid {
					row, err := db.leafCell(n, leaf, off)
					return row, err == nil, err
				}
			}
			return Row{}, false, nil
		case 0x05:
			next := bt.right
			for i := range bt.cells {
				off, err := bt.cell(n, page, i)
				if err != nil {
					return Row{}, false, err
				}
				if off+4 > len(page) {
					return Row{}, false, corrupt(n, "cell %d runs past the page", i)
				}
				key, m := varint(page[off+4:])
				if m == 0 {
					return Row{}, false, corrupt(n, "cell %d: the rowid runs past the page", i)
				}
				// The left child holds the rowids up to and including the
				// cell's key.
				if rowid <= int64(key) {
					next = binary.BigEndian.Uint32(page[off:])
					break
				}
			}
			n = next
		default:
			return Row{}, false, corrupt(n, "type %#x is not a table B-tree page", bt.kind)
		}
	}
}

// btree is the header of a B-tree page.
type btree struct {
	kind  byte
	cells int
	start int // offset of the cell pointer array
	right uint32
}

func (db *DB) btreeHeader(n uint32, page []byte) (btree, error) {
	h := 0
	if n == 1 {
		h = 100
	}
	if h+8 > db.usable {
		return btree{}, corrupt(n, "the page is too small for its header")
	}
	bt := btree{kind: page[h], cells: int(binary.BigEndian.Uint16(page[h+3:]))}
	size := 8
	if bt.kind == 0x05 || bt.kind == 0x02 {
		size = 12
		bt.right = binary.BigEndian.Uint32(page[h+8:])
	}
	bt.start = h + size
	if bt.start+2*bt.cells > db.usable {
		return btree{}, corrupt(n, "%d cells do not fit the page", bt.cells)
	}
	return bt, nil
}

// cell returns the offset of cell i.
func (bt btree) cell(n uint32, page []byte, i int) (int, error) {
	off := int(binary.BigEndian.Uint16(page[bt.start+2*i:]))
	if off < bt.start+2*bt.cells || off >= len(page) {
		return 0, corrupt(n, "cell %d starts at offset %d, outside the cell content area", i, off)
	}
	return off, nil
}

// leafRowID reads the rowid of the table leaf cell at off.
func leafRowID(n uint32, page []byte, off int) (int64, error) {
	_, m := varint(page[off:])
	if m == 0 {
		return 0, corrupt(n, "a cell at offset %d runs past the page", off)
	}
	id, k := varint(page[off+m:])
	if k == 0 {
		return 0, corrupt(n, "a cell at offset %d runs past the page", off)
	}
	return int64(id), nil
}

// leafCell reads the table leaf cell at off: its rowid and record, with
// the payload that overflows the page read from its overflow pages.
func (db *DB) leafCell(n uint32, page []byte, off int) (Row, error) {
	size, m := varint(page[off:])
	if m == 0 {
		return Row{}, corrupt(n, "a cell at offset %d runs past the page", off)
	}
	id, k := varint(page[off+m:])
	if k == 0 {
		return Row{}, corrupt(n, "a cell at offset %d runs past the page", off)
	}
	at := off + m + k
	if size > uint64(db.size) {
		return Row{}, corrupt(n, "a payload of %d bytes is larger than the file", size)
	}
	p := int(size)
	local := db.localPayload(p)
	if at+local > db.usable {
		return Row{}, corrupt(n, "a cell's payload runs past the page")
	}
	payload := page[at : at+local]
	if local < p {
		if at+local+4 > db.usable {
			return Row{}, corrupt(n, "a cell's overflow page number runs past the page")
		}
		first := binary.BigEndian.Uint32(page[at+local:])
		whole := make([]byte, local, p)
		copy(whole, payload)
		var err error
		if payload, err = db.overflow(n, first, whole, p); err != nil {
			return Row{}, err
		}
	}
	cols, err := record(n, payload)
	if err != nil {
		return Row{}, err
	}
	return Row{RowID: int64(id), Columns: cols}, nil
}

// localPayload is how many bytes of a table leaf cell's payload of p bytes
// are stored on its page (the rest is on overflow pages).
func (db *DB) localPayload(p int) int {
	u := db.usable
	x := u - 35
	if p <= x {
		return p
	}
	m := ((u-12)*32)/255 - 23
	k := m + (p-m)%(u-4)
	if k <= x {
		return k
	}
	return m
}

// overflow appends the overflow pages of a payload, starting at page
// first, to buf until it holds want bytes.
func (db *DB) overflow(from, first uint32, buf []byte, want int) ([]byte, error) {
	seen := map[uint32]bool{}
	for n := first; len(buf) < want; {
		if n == 0 {
			return nil, corrupt(from, "the overflow chain ends %d bytes short of the payload", want-len(buf))
		}
		if seen[n] {
			return nil, corrupt(n, "the overflow chain loops")
		}
		seen[n] = true
		page, err := db.readPage(n)
		if err != nil {
			return nil, err
		}
		next := binary.BigEndian.Uint32(page)
		take := min(want-len(buf), db.usable-4)
		buf = append(buf, page[4:4+take]...)
		n = next
	}
	return buf, nil
}

// record decodes a record: a header of serial types, then the values.
func record(n uint32, p []byte) ([]Value, error) {
	hsize, m := varint(p)
	if m == 0 || hsize < uint64(m) || hsize > uint64(len(p)) {
		return nil, corrupt(n, "a record header of %d bytes does not fit its %d-byte payload", hsize, len(p))
	}
	header, body := p[m:hsize], p[hsize:]
	var cols []Value
	for len(header) > 0 {
		t, k := varint(header)
		if k == 0 {
			return nil, corrupt(n, "a record header ends inside a serial type")
		}
		header = header[k:]
		size, ok := serialSize(t)
		if !ok {
			return nil, corrupt(n, "serial type %d is reserved", t)
		}
		if size > uint64(len(body)) {
			return nil, corrupt(n, "a value of %d bytes runs past its record", size)
		}
		v := body[:size]
		body = body[size:]
		switch {
		case t == 0:
			cols = append(cols, nil)
		case t <= 6:
			cols = append(cols, bigEndianInt(v))
		case t == 7:
			cols = append(cols, math.Float64frombits(binary.BigEndian.Uint64(v)))
		case t == 8:
			cols = append(cols, int64(0))
		case t == 9:
			cols = append(cols, int64(1))
		case t%2 == 0:
			cols = append(cols, v)
		default:
			cols = append(cols, string(v))
		}
	}
	return cols, nil
}

// serialSize is the size in bytes of a value of serial type t.
func serialSize(t uint64) (uint64, bool) {
	switch {
	case t <= 4:
		return []uint64{0, 1, 2, 3, 4}[t], true
	case t == 5:
		return 6, true
	case t == 6 || t == 7:
		return 8, true
	case t == 8 || t == 9:
		return 0, true
	case t == 10 || t == 11:
		return 0, false
	}
	return (t - 12) / 2, true
}

// bigEndianInt reads a two's-complement integer of 1 to 8 bytes.
func bigEndianInt(b []byte) int64 {
	var v int64
	if len(b) > 0 && b[0]&0x80 != 0 {
		v = -1
	}
	for _, c := range b {
		v = v<<8 | int64(c)
	}
	return v
}

// varint reads an SQLite variable-length integer: up to 8 bytes of 7 bits,
// high bit set on all but the last, or 9 bytes whose last gives 8 bits. It
// returns the number of bytes read, 0 when b ends first.
func varint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < 9; i++ {
		if i >= len(b) {
			return 0, 0
		}
		if i == 8 {
			return v<<8 | uint64(b[i]), 9
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i]&0x80 == 0 {
			return v, i + 1
		}
	}
	return v, 9
}

// Table is a table of the schema.
type Table struct {
	Name string
	Root uint32
	SQL  string
}

// Tables lists the tables of the database's schema (sqlite_schema).
func (db *DB) Tables() ([]Table, error) {
	var out []Table
	err := db.Scan(1, func(r Row) error {
		if len(r.Columns) < 5 {
			return nil
		}
		kind, _ := r.Columns[0].(string)
		name, _ := r.Columns[1].(string)
		root, _ := r.Columns[3].(int64)
		sql, _ := r.Columns[4].(string)
		if kind == "table" && root > 0 && root <= math.MaxUint32 {
			out = append(out, Table{Name: name, Root: uint32(root), SQL: sql})
		}
		return nil
	})
	return out, err
}
