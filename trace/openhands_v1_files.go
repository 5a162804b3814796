package trace

import (
	"cmp"
	"encoding/binary"
	"encoding/hex"
	"io/fs"
	"slices"
	"strconv"
	"strings"
)

// ohV1EventFiles lists the event files of a conversation folder,
// events/event-NNNNN-<id>.json, in the numeric order of their index (the
// SDK pads it to five digits but does not cap its width), then by name.
//
// A conversation keeps one file per event: a long one holds hundreds of
// thousands. The names are read from the folder a batch at a time and kept
// packed: a name as the SDK writes it (the index padded to five digits,
// the event's UUID) as its index and the UUID's 16 bytes, 24 bytes where
// the name and a directory entry would take over a hundred; any other name
// as it is.
type ohV1EventFiles struct {
	files []ohV1EventFile
	// others holds the names that are not packed.
	others []string
}

// ohV1EventFile is one event file. A packed name is its index (idx, zero
// or more) and UUID; any other is others[-idx-1], its index in the first
// 8 bytes of uuid.
type ohV1EventFile struct {
	idx  int64
	uuid [16]byte
}

// index returns the file's index.
func (f *ohV1EventFile) index() int64 {
	if f.idx >= 0 {
		return f.idx
	}
	return int64(binary.LittleEndian.Uint64(f.uuid[:8]))
}

// ohV1ListEventFiles lists the event files of dir.
func ohV1ListEventFiles(fsys fs.FS, dir string) *ohV1EventFiles {
	l := &ohV1EventFiles{}
	ohV1EachEventFile(fsys, dir, func(name string, idx int64) bool {
		f := ohV1EventFile{idx: idx}
		if !ohV1PackName(name, idx, &f.uuid) {
			l.others = append(l.others, name)
			f.idx = -int64(len(l.others))
			binary.LittleEndian.PutUint64(f.uuid[:8], uint64(idx))
		}
		l.files = append(l.files, f)
		return true
	})
	slices.SortFunc(l.files, func(a, b ohV1EventFile) int {
		if c := cmp.Compare(a.index(), b.index()); c != 0 {
			return c
		}
		return strings.Compare(l.nameOf(&a), l.nameOf(&b))
	})
	return l
}

// ohV1HasEventFile reports whether dir holds an event file.
func ohV1HasEventFile(fsys fs.FS, dir string) bool {
	found := false
	ohV1EachEventFile(fsys, dir, func(string, int64) bool {
		found = true
		return false
	})
	return found
}

// ohV1EachEventFile calls visit with the name and index of each event file
// of dir, in the folder's order, until visit returns false.
func ohV1EachEventFile(fsys fs.FS, dir string, visit func(name string, idx int64) bool) {
	f, err := fsys.Open(dir)
	if err != nil {
		return
	}
	defer f.Close()
	rd, ok := f.(fs.ReadDirFile)
	if !ok {
		return
	}
	for {
		entries, err := rd.ReadDir(1024)
		for _, e := range entries {
			name := e.Name()
			rest, ok := strings.CutPrefix(name, "event-")
			if !ok || e.IsDir() || !strings.HasSuffix(name, ".json") {
				continue
			}
			digits, _, ok := strings.Cut(rest, "-")
			idx, err := strconv.ParseInt(digits, 10, 64)
			if !ok || err != nil || len(digits) < 5 {
				continue
			}
			if !visit(name, idx) {
				return
			}
		}
		if err != nil || len(entries) == 0 {
			return
		}
	}
}

// ohV1PackName stores the UUID of a name the SDK writes,
// event-<idx, at least five digits>-<UUID>.json, in uuid, and reports
// whether the name is one (it is then made again from them alone).
func ohV1PackName(name string, idx int64, uuid *[16]byte) bool {
	const tail = 36 + len(".json")
	if len(name) < len("event-00000-")+tail {
		return false
	}
	u := name[len(name)-tail : len(name)-tail+36]
	if u[8] != '-' || u[13] != '-' || u[18] != '-' || u[23] != '-' {
		return false
	}
	hexDigits := u[:8] + u[9:13] + u[14:18] + u[19:23] + u[24:]
	if _, err := hex.Decode(uuid[:], []byte(hexDigits)); err != nil {
		return false
	}
	// Upper-case hex, or any other spelling, is kept as written.
	return ohV1UnpackName(idx, uuid) == name
}

// ohV1UnpackName makes the name ohV1PackName packed.
func ohV1UnpackName(idx int64, uuid *[16]byte) string {
	var b strings.Builder
	b.Grow(53)
	b.WriteString("event-")
	d := strconv.FormatInt(idx, 10)
	if len(d) < 5 {
		b.WriteString("00000"[len(d):])
	}
	b.WriteString(d)
	b.WriteByte('-')
	h := hex.EncodeToString(uuid[:])
	b.WriteString(h[:8])
	b.WriteByte('-')
	b.WriteString(h[8:12])
	b.WriteByte('-')
	b.WriteString(h[12:16])
	b.WriteByte('-')
	b.WriteString(h[16:20])
	b.WriteByte('-')
	b.WriteString(h[20:])
	b.WriteString(".json")
	return b.String()
}

func (l *ohV1EventFiles) nameOf(f *ohV1EventFile) string {
	if f.idx < 0 {
		return l.others[-f.idx-1]
	}
	return ohV1UnpackName(f.idx, &f.uuid)
}

func (l *ohV1EventFiles) len() int { return len(l.files) }

// name returns the name of the k-th file in order.
func (l *ohV1EventFiles) name(k int) string { return l.nameOf(&l.files[k]) }
