package events

import (
	"bytes"
	"strings"
	"sync"

	"github.com/agentretrieval/agentretrieval/internal/borrowed"
	"github.com/agentretrieval/agentretrieval/trace"
)

// A streamJob is one call for the worker: its own copy of the call, its
// index in the session, and whether the reader checked its arguments
// (trace.Session.ArgumentsChecked, which the worker cannot ask the session
// the reader is still filling).
type streamJob struct {
	ss      *streamSession
	i       int
	call    trace.ToolCall
	checked bool
}

// A jobBatch is calls for the worker, and the bytes of their arguments and
// results: copies of what the reader lent, made in one buffer that the
// batch keeps when it is used again, so that they cost no allocation.
// What the worker keeps of them (the paths of the string table, the
// warnings) it copies before the batch goes back.
type jobBatch struct {
	jobs []streamJob
	buf  []byte
}

// maxBatchBuf bounds the buffer a batch keeps to be used again: a batch
// with a larger file's content leaves its buffer to the collector.
const maxBatchBuf = 1 << 20

// add appends call c, number i of its session, to the batch, with copies
// of its arguments and result in the batch's buffer.
func (b *jobBatch) add(ss *streamSession, i int, c *trace.ToolCall, checked bool) {
	j := streamJob{ss: ss, i: i, call: *c, checked: checked}
	if free := cap(b.buf) - len(b.buf); free < len(c.Arguments)+len(c.Result) && len(b.buf) > 0 {
		// A buffer that grew would leave the earlier calls in the old
		// one: make a new one, the old one going with them.
		b.buf = make([]byte, 0, max(2*cap(b.buf), len(c.Arguments)+len(c.Result)))
	}
	at := len(b.buf)
	b.buf = append(b.buf, c.Arguments...)
	b.buf = append(b.buf, c.Result...)
	if c.Arguments != nil {
		j.call.Arguments = b.buf[at : at+len(c.Arguments) : at+len(c.Arguments)]
	}
	j.call.Result = borrowed.String(b.buf[at+len(c.Arguments):])
	b.jobs = append(b.jobs, j)
}

// streamBatch is how many calls go to the worker at a time: one channel
// operation (and at most one wake-up) per call would cost about as much as
// the smaller calls' extraction.
const streamBatch = 64

// streamPipe hands calls to one worker goroutine in batches, over a
// bounded channel, so the reader runs at most a few batches ahead and the
// calls are normalized in order. The worker alone touches the events of
// a streamSession until wait returns.
type streamPipe struct {
	batch *jobBatch
	jobs  chan *jobBatch
	free  chan *jobBatch
	done  sync.WaitGroup
	// failed is the first call whose extraction panicked; read it once
	// wait has returned.
	failed *streamFailure
}

type streamFailure struct {
	call  trace.ToolCall
	panic any
}

// send hands call c, number i of its session, to the worker, with copies
// of its arguments and result.
func (p *streamPipe) send(ss *streamSession, i int, c *trace.ToolCall, checked bool) {
	if p.jobs == nil {
		p.jobs = make(chan *jobBatch, 4)
		p.free = make(chan *jobBatch, 6)
		p.failed = nil // a failure of the last read is reported
		p.done.Add(1)
		go p.work(p.jobs, p.free)
	}
	if p.batch == nil {
		select {
		case p.batch = <-p.free:
		default:
			p.batch = &jobBatch{jobs: make([]streamJob, 0, streamBatch)}
		}
	}
	p.batch.add(ss, i, c, checked)
	if len(p.batch.jobs) == streamBatch {
		p.jobs <- p.batch
		p.batch = nil
	}
}

func (p *streamPipe) work(jobs <-chan *jobBatch, free chan<- *jobBatch) {
	defer p.done.Done()
	for batch := range jobs {
		for k := range batch.jobs {
			j := &batch.jobs[k]
			if p.failed == nil {
				p.make(j)
			}
			*j = streamJob{} // the result and arguments can go
		}
		batch.jobs = batch.jobs[:0]
		batch.buf = batch.buf[:0]
		if cap(batch.buf) > maxBatchBuf {
			batch.buf = nil
		}
		select {
		case free <- batch:
		default:
		}
	}
}

// make makes the event of j's call; a panic is recorded, and the calls
// after it are only drained, so the reader is never left blocked.
func (p *streamPipe) make(j *streamJob) {
	defer func() {
		if v := recover(); v != nil {
			// The batch's buffer is used again: the call kept has a
			// copy of its arguments and result.
			c := j.call
			c.Arguments, c.Result = bytes.Clone(c.Arguments), strings.Clone(c.Result)
			p.failed = &streamFailure{call: c, panic: v}
		}
	}()
	j.ss.make(&j.call, j.i, j.checked)
}

// wait sends what is left, ends the worker and waits for it. The next
// send starts another.
func (p *streamPipe) wait() {
	if p.jobs == nil {
		return
	}
	if p.batch != nil && len(p.batch.jobs) > 0 {
		p.jobs <- p.batch
	}
	p.batch = nil
	close(p.jobs)
	p.done.Wait()
	p.jobs, p.free = nil, nil
}
