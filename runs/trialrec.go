package runs

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
)

// A trialRec is one trial as the spool and a shard's trials file keep it
// in binary: its configuration, its path in the run, its entry, and its
// coverage curve. The values are numbered by a table of metric names kept
// beside the records (the spool's, or the file's), so that a record holds
// no name of a figure and reading one decodes no JSON.
type trialRec struct {
	config, path string
	entry        TaskEntry // Values unused: see values
	values       []idValue
	curve        []float64
}

// An idValue is a figure by the number of its metric name.
type idValue struct {
	id uint32
	v  float64
}

// Flags of a record: which optional members it holds.
const (
	recReward = 1 << iota
	recTraceSource
)

// appendString appends s with its length.
func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendFloat(b []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
}

// appendRec appends the encoding of r to b. Every float is kept as its
// 64 bits, so that a figure read back is the figure written.
func appendRec(b []byte, r *trialRec) ([]byte, error) {
	e := &r.entry
	status := slices.Index(statuses, e.Status)
	if status < 0 {
		return nil, fmt.Errorf("entry %s: status %q is not one of %v", e.Name, e.Status, statuses)
	}
	for _, s := range []string{r.config, r.path, e.Name, e.Task, e.Trial, e.Batch} {
		b = appendString(b, s)
	}
	b = append(b, byte(status))
	for _, s := range []string{e.Reason, e.Model, e.EventsFile, e.MetricsFile} {
		b = appendString(b, s)
	}
	var flags byte
	if e.Reward != nil {
		flags |= recReward
	}
	if e.TraceSource != nil {
		flags |= recTraceSource
	}
	b = append(b, flags)
	if e.Reward != nil {
		b = appendFloat(b, *e.Reward)
	}
	if e.TraceSource != nil {
		b = appendString(b, *e.TraceSource)
	}
	b = binary.AppendUvarint(b, uint64(len(e.Warnings)))
	for _, w := range e.Warnings {
		b = appendString(b, w)
	}
	b = binary.AppendUvarint(b, uint64(len(r.values)))
	for _, v := range r.values {
		b = binary.AppendUvarint(b, uint64(v.id))
		b = appendFloat(b, v.v)
	}
	b = binary.AppendUvarint(b, uint64(len(r.curve)))
	for _, v := range r.curve {
		b = appendFloat(b, v)
	}
	return b, nil
}

// errRecShort is the error of a record that ends before its last member.
var errRecShort = errors.New("the record is cut short")

// A recReader reads the members of one record.
type recReader struct {
	b   []byte
	err error
}

func (r *recReader) uvarint(max uint64) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errRecShort
		return 0
	}
	if v > max {
		r.err = fmt.Errorf("a count or number of %d, more than the %d it may be", v, max)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *recReader) bytes(n uint64) []byte {
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)) {
		r.err = errRecShort
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *recReader) string() string { return string(r.bytes(r.uvarint(uint64(len(r.b))))) }

func (r *recReader) byte() byte {
	b := r.bytes(1)
	if b == nil {
		return 0
	}
	return b[0]
}

// float reads a figure, which must be finite: no figure, reward or
// point of a curve is NaN or infinite (JSON could not hold one either).
func (r *recReader) float() float64 {
	b := r.bytes(8)
	if b == nil {
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(b))
	if math.IsNaN(v) || math.IsInf(v, 0) {
		r.err = fmt.Errorf("a figure that is not a finite number (%v)", v)
		return 0
	}
	return v
}

// decodeRec reads the record b into r, reusing r's slices. metrics is the
// number of metric names the record's values may be numbered by. A record
// that does not end where its last member does, or that holds a value
// out of range, is an error.
func decodeRec(b []byte, r *trialRec, metrics int) error {
	rd := &recReader{b: b}
	e := &r.entry
	r.config, r.path = rd.string(), rd.string()
	*e = TaskEntry{Name: rd.string(), Task: rd.string(), Trial: rd.string(), Batch: rd.string()}
	if status := rd.byte(); rd.err == nil {
		if int(status) >= len(statuses) {
			return fmt.Errorf("status %d is not one of the %d statuses", status, len(statuses))
		}
		e.Status = statuses[status]
	}
	e.Reason, e.Model, e.EventsFile, e.MetricsFile = rd.string(), rd.string(), rd.string(), rd.string()
	flags := rd.byte()
	if flags&^(recReward|recTraceSource) != 0 {
		return fmt.Errorf("unknown flags %#x", flags)
	}
	if flags&recReward != 0 {
		v := rd.float()
		e.Reward = &v
	}
	if flags&recTraceSource != 0 {
		v := rd.string()
		e.TraceSource = &v
	}
	// A count is bounded by the bytes left, so that a damaged count
	// allocates nothing large.
	if n := rd.uvarint(uint64(len(rd.b))); n > 0 {
		e.Warnings = make([]string, n)
		for i := range e.Warnings {
			e.Warnings[i] = rd.string()
		}
	}
	r.values = r.values[:0]
	for range rd.uvarint(uint64(len(rd.b)) / 9) {
		id := rd.uvarint(uint64(max(metrics-1, 0)))
		if metrics == 0 && rd.err == nil {
			rd.err = errors.New("a value without any metric name")
		}
		r.values = append(r.values, idValue{uint32(id), rd.float()})
	}
	r.curve = r.curve[:0]
	for range rd.uvarint(uint64(len(rd.b)) / 8) {
		r.curve = append(r.curve, rd.float())
	}
	if rd.err != nil {
		return rd.err
	}
	if len(rd.b) != 0 {
		return fmt.Errorf("%d bytes after the record's last member", len(rd.b))
	}
	if len(r.curve) == 0 {
		r.curve = nil
	}
	return nil
}

// valuesMap gives the record's values by name.
func (r *trialRec) valuesMap(names []string) map[string]float64 {
	m := make(map[string]float64, len(r.values))
	for _, v := range r.values {
		m[names[v.id]] = v.v
	}
	return m
}
