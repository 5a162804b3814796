package retrievaltest

import (
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
)

// fakeT plays *testing.T for run: it records every subtest with its
// outcome. Subtests run on their own goroutine so that Skip can end one
// the way testing does, with runtime.Goexit.
type fakeT struct {
	name     string
	parent   *fakeT
	mu       *sync.Mutex
	errors   []string
	logs     []string
	failed   bool
	skipped  bool
	parallel bool
	subtests []*fakeT
	// helpers are the functions that called Helper; where lists, for each
	// error, the file of the first caller that is not one, as testing
	// would print it.
	helpers map[string]bool
	where   []string
}

func newFakeT(name string) *fakeT { return &fakeT{name: name, mu: &sync.Mutex{}} }

func (t *fakeT) Helper() {
	pc, _, _, _ := runtime.Caller(1)
	t.mu.Lock()
	defer t.mu.Unlock()
	for p := t; p != nil; p = p.parent {
		if p.helpers == nil {
			p.helpers = map[string]bool{}
		}
		p.helpers[runtime.FuncForPC(pc).Name()] = true
	}
}

// callerFile is the base name of the file of the first caller of Errorf
// that did not call Helper.
func (t *fakeT) callerFile() string {
	pcs := make([]uintptr, 32)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)])
	for {
		f, more := frames.Next()
		if !t.helpers[f.Function] {
			return filepath.Base(f.File)
		}
		if !more {
			return ""
		}
	}
}

func (t *fakeT) Errorf(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.where = append(t.where, t.callerFile())
	t.errors = append(t.errors, fmt.Sprintf(format, args...))
	for p := t; p != nil; p = p.parent {
		p.failed = true
	}
}

func (t *fakeT) Logf(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.logs = append(t.logs, fmt.Sprintf(format, args...))
}

func (t *fakeT) Skip(args ...any) {
	t.mu.Lock()
	t.skipped = true
	t.logs = append(t.logs, fmt.Sprint(args...))
	t.mu.Unlock()
	runtime.Goexit()
}

func (t *fakeT) Parallel() { t.parallel = true }

func (t *fakeT) Run(name string, f func(*fakeT)) bool {
	sub := &fakeT{name: t.name + "/" + name, parent: t, mu: t.mu}
	t.mu.Lock()
	t.subtests = append(t.subtests, sub)
	t.mu.Unlock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(sub)
	}()
	<-done
	return !sub.failed
}

// all lists t and its subtests, depth first.
func (t *fakeT) all() []*fakeT {
	out := []*fakeT{t}
	for _, s := range t.subtests {
		out = append(out, s.all()...)
	}
	return out
}

// find returns the subtest with the full name, or nil.
func (t *fakeT) find(name string) *fakeT {
	for _, s := range t.all() {
		if s.name == name {
			return s
		}
	}
	return nil
}

// names lists the full names of t's subtests at every depth.
func (t *fakeT) names() []string {
	var out []string
	for _, s := range t.all()[1:] {
		out = append(out, s.name)
	}
	return out
}
