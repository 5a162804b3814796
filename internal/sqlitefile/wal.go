package sqlitefile

import (
	"encoding/binary"
	"fmt"
	"io"
)

// The write-ahead log (the -wal file beside a database in WAL mode) holds
// pages written since the last checkpoint: a 32-byte header, then frames of
// a 24-byte header and one page. A frame counts when its salts match the
// header's and the running checksum over the header and every frame up to
// it holds; of those, only the frames up to the last commit frame (one
// whose header gives the database's size) belong to a transaction that
// completed. The last committed copy of each page replaces the database's.

const (
	walHeaderSize = 32
	walFrameHead  = 24
	walMagicLE    = 0x377f0682
	walMagicBE    = 0x377f0683
)

// ApplyWAL reads the write-ahead log r of the given size and reads the
// database as the log's committed frames leave it. It returns the number
// of frames applied; an empty log applies none. The log's pages are held in
// memory (SQLite checkpoints a log at about a thousand pages).
func (db *DB) ApplyWAL(r io.ReaderAt, size int64) (int, error) {
	if size == 0 {
		return 0, nil
	}
	if size < walHeaderSize {
		return 0, fmt.Errorf("write-ahead log: %d bytes, shorter than its 32-byte header", size)
	}
	var h [walHeaderSize]byte
	if _, err := r.ReadAt(h[:], 0); err != nil {
		return 0, fmt.Errorf("write-ahead log: %w", err)
	}
	magic := binary.BigEndian.Uint32(h[0:4])
	if magic != walMagicLE && magic != walMagicBE {
		return 0, fmt.Errorf("write-ahead log: magic number %#x is not SQLite's", magic)
	}
	order := binary.ByteOrder(binary.LittleEndian)
	if magic == walMagicBE {
		order = binary.BigEndian
	}
	if ps := int(binary.BigEndian.Uint32(h[8:12])); ps != db.pageSize {
		return 0, fmt.Errorf("write-ahead log: page size %d differs from the database's %d", ps, db.pageSize)
	}
	s0, s1 := walChecksum(order, h[:24], 0, 0)
	if s0 != binary.BigEndian.Uint32(h[24:28]) || s1 != binary.BigEndian.Uint32(h[28:32]) {
		return 0, fmt.Errorf("write-ahead log: the header's checksum does not hold")
	}
	salt := h[16:24]
	frame := make([]byte, walFrameHead+db.pageSize)
	pending := map[uint32][]byte{}
	committed := map[uint32][]byte{}
	pages := db.pages
	applied := 0
	for off := int64(walHeaderSize); off+int64(len(frame)) <= size; off += int64(len(frame)) {
		if _, err := r.ReadAt(frame, off); err != nil {
			return 0, fmt.Errorf("write-ahead log: %w", err)
		}
		if string(frame[8:16]) != string(salt) {
			break // a frame left from before the log was restarted
		}
		s0, s1 = walChecksum(order, frame[:8], s0, s1)
		s0, s1 = walChecksum(order, frame[walFrameHead:], s0, s1)
		if s0 != binary.BigEndian.Uint32(frame[16:20]) || s1 != binary.BigEndian.Uint32(frame[20:24]) {
			break
		}
		n := binary.BigEndian.Uint32(frame[0:4])
		if n == 0 {
			break
		}
		pending[n] = append([]byte(nil), frame[walFrameHead:]...)
		if commit := binary.BigEndian.Uint32(frame[4:8]); commit != 0 {
			for p, data := range pending {
				committed[p] = data
			}
			applied += len(pending)
			clear(pending)
			pages = commit
		}
	}
	if len(committed) > 0 {
		db.wal = committed
		db.pages = pages
	}
	return applied, nil
}

// walChecksum continues the log's checksum over b, whose length is a
// multiple of 8, read as 32-bit words in the log's byte order.
func walChecksum(order binary.ByteOrder, b []byte, s0, s1 uint32) (uint32, uint32) {
	for i := 0; i+8 <= len(b); i += 8 {
		s0 += order.Uint32(b[i:]) + s1
		s1 += order.Uint32(b[i+4:]) + s0
	}
	return s0, s1
}
