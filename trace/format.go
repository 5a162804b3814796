package trace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentretrieval/agentretrieval/internal/input"
)

// DetectSize is how many leading bytes of a trace a Format's Detect sees.
const DetectSize = 1 << 20

// A Format reads one native trace format.
type Format interface {
	// Name is the name users pass to force the format (-format NAME).
	Name() string
	// Detect reports whether a trace starting with prefix is in this
	// format. The prefix has leading white space and a UTF-8 byte order
	// mark removed and holds at most DetectSize bytes; it is shorter when
	// the whole trace is.
	Detect(prefix []byte) bool
	// Read reads a whole trace. It reports skipped input as warnings on
	// the session and returns an error only when nothing usable could be
	// read.
	Read(r io.Reader, opts Options) (*Session, error)
}

// FormatInfo describes a format to users: what writes it, how it is
// recognized and what its files are usually called (retrievaltest formats).
type FormatInfo struct {
	Name string `json:"name"`
	// Writer names the program that writes the format and how it is
	// recorded ("codex exec --json", "claude -p --output-format stream-json").
	Writer string `json:"writer"`
	// Detection is the detection rule in words.
	Detection string `json:"detection"`
	// Example is a typical file name or path.
	Example string `json:"example"`
	// Folder is true when the format can also be read from a folder.
	Folder bool `json:"folder,omitempty"`
	// Multi is true when one input may hold several sessions.
	Multi bool `json:"multi,omitempty"`
}

// A Describer is a Format that describes itself. Every built-in format is
// one; Registry.Infos describes the others by name only.
type Describer interface {
	Info() FormatInfo
}

// Infos describes the registered formats in order.
func (r *Registry) Infos() []FormatInfo {
	infos := make([]FormatInfo, len(r.formats))
	for i, f := range r.formats {
		if d, ok := f.(Describer); ok {
			infos[i] = d.Info()
		}
		infos[i].Name = f.Name()
		_, infos[i].Folder = f.(DirFormat)
		_, infos[i].Multi = f.(MultiFormat)
	}
	return infos
}

// Options control reading.
type Options struct {
	// Format forces a reader by name; empty means detect.
	Format string
	// Source names the input in warnings and errors (a file name, or "-").
	Source string
	// Registry is the set of formats to choose from; nil means
	// DefaultRegistry().
	Registry *Registry
	// MaxResultBytes, when positive, truncates each kept tool result to at
	// most that many bytes, bounding memory on traces with huge outputs.
	MaxResultBytes int
	// SessionID picks one session of an input that holds several (an
	// OpenTelemetry trace id, an OpenHands instance_id): the session whose
	// Task or ID equals it. Empty means the input must hold one session
	// (Read), or all are returned (ReadAll).
	SessionID string
	// MaxInputSize bounds, in bytes, what ReadFile and ReadFileAll read:
	// a trace file, standard input, or the files of a trace stored as a
	// folder, in all. A larger input is an error, not read past the
	// limit. Zero means DefaultMaxInputSize.
	MaxInputSize int64
	// HTTPHeader holds the headers sent when ReadFile reads a URL (an
	// http.Header converts to it); nil means those the
	// RETRIEVALTEST_HTTP_HEADER_* environment variables name (see
	// HTTPHeaderEnvPrefix). A URL is read by the registered URLOpener.
	HTTPHeader map[string][]string
	// HTTPTimeout bounds the whole GET of a URL, body included; zero means
	// DefaultHTTPTimeout.
	HTTPTimeout time.Duration
	// CallDone, when set, is handed each tool call once the reader is done
	// with it, so that a caller can take what it needs from the call's
	// arguments and result as the trace is read instead of after. When it
	// returns true the reader releases the call's Arguments and Result
	// (they are empty in the session returned); the call's other fields
	// stay. The Claude Code readers hand over a call when its result is
	// read, in the order results come, and the calls left without one at
	// the end of the input: a session of any size then holds one result
	// at a time. The Gemini CLI reader hands over each call of a session
	// document as its message is read (from a stream, once the stream is
	// held in a temporary file), and those of a line recording once it is
	// read. The OpenHands readers hand over each call of a V0 event list
	// and of a V1 conversation folder when its observation is read (a
	// folder with sub-agent conversations once read), and those of each
	// instance of an evaluation output once its line is read. With other
	// formats, Read, ReadAll, ReadFile and ReadFileAll hand over every
	// call, in order, once the session is read. CallDone is called once
	// per call, and may look at the session as read so far (its CWD may
	// still be unknown, see Session.CWDSettled); it finds the call with
	// s.Call(i).
	//
	// The Arguments and Result of a call CallDone releases are lent to it:
	// a reader may use their memory again once CallDone returns (the
	// Claude Code readers decode the next line's strings over the result
	// and copy the next call's arguments into the same buffer). A CallDone
	// that releases a call and keeps any part of them past its return (a
	// substring of the result, the arguments' bytes, a string made from
	// them without a copy) copies it first, with strings.Clone or
	// bytes.Clone; a string it decodes or builds from them is its own. A
	// call CallDone does not release keeps arguments and a result of its
	// own (the reader copies what CallDone left in Result), valid as long
	// as the session is.
	CallDone func(s *Session, i int) (release bool)
	// DropReleased, with CallDone, drops from the session each call that
	// CallDone releases, instead of keeping it without its arguments and
	// result: for a caller that takes from a call all it will need when
	// the call is handed over. A Claude Code session of any number of
	// calls then holds only the calls waiting for their result. The
	// session's Calls holds the calls CallDone did not release, in order,
	// each with its Index (which is no longer its place in Calls);
	// NumCalls counts every call, Call finds one by its index, and
	// CallTokens gives the CumulativeTokens of any.
	DropReleased bool
	// SkipMessages leaves out the conversation (Session.Messages): for a
	// caller that reads only the calls, so that a long session's messages
	// cost no memory. The streaming readers (Claude Code, Codex, Gemini
	// CLI, OpenHands, mini-swe-agent) then never keep them; the others
	// drop them once the session is read.
	SkipMessages bool

	// detectBuffer, when set, sizes the buffer detection reads through:
	// the size of a small file, which bounds what there is to see.
	detectBuffer int

	// file, set while ReadFile reads a regular file, reaches any part of
	// it, for formats read by position (an SQLite database); fileName
	// names it and fileSize is its size.
	file     io.ReaderAt
	fileName string
	fileSize int64

	// spool, set by tests, says when the Gemini CLI reader holds a stream
	// in a temporary file (see geminiSpool).
	spool spoolMode

	// budget, set while a folder is read, holds what is left of
	// MaxInputSize for the folder's files.
	budget *input.Budget
}

// A spoolMode says which streams a reader that reads its input by
// position holds in a temporary file.
type spoolMode int

const (
	spoolLong   spoolMode = iota // those longer than the read buffer
	spoolAlways                  // all (tests: the short fixtures)
	spoolNever                   // none (tests: the stream read as it comes)
)

// DefaultMaxInputSize is the default Options.MaxInputSize: 4 GiB.
const DefaultMaxInputSize = input.TraceLimit

func (o *Options) maxInputSize() int64 { return input.Or(o.MaxInputSize, DefaultMaxInputSize) }

// readFS reads a file of a trace stored as a folder: within the folder's
// budget while ReadFile reads the folder, else within MaxInputSize.
func (o *Options) readFS(fsys fs.FS, name string) ([]byte, error) {
	if o.budget != nil {
		return o.budget.ReadFileFS(fsys, name)
	}
	return input.ReadFileFS(fsys, name, o.maxInputSize())
}

// readFSCut is readFS for a file that is one JSON document: one longer
// than a long line is passed through the string cutter as it is read, so
// that it costs what its cut strings take. The warning says what was cut.
func (o *Options) readFSCut(fsys fs.FS, name string) (data []byte, warning func(*Session), err error) {
	var (
		f    io.ReadCloser
		size int64
	)
	if o.budget != nil {
		f, size, err = o.budget.OpenFileFS(fsys, name)
	} else {
		f, size, err = input.OpenFileFS(fsys, name, o.maxInputSize())
	}
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	opts := *o
	opts.fileSize = max(size, 1) // a size of 0 would mean unknown
	cut, summary := cutDocument(f, opts)
	data, err = io.ReadAll(cut)
	return data, func(s *Session) {
		if msg, line := summary(); msg != "" {
			s.Warnf(line, "%s: %s", name, msg)
		}
	}, err
}

// ErrEmpty is returned (wrapped) for an input with no content.
var ErrEmpty = errors.New("trace is empty")

// A FormatError reports an input that no known reader recognizes.
type FormatError struct {
	Source string
	// Tried lists the formats that were tried, in order.
	Tried []string
	// Folder is true when the input was a folder (only formats that can be
	// stored as a folder were tried).
	Folder bool
	// Input says what the start of the input looked like ("a JSON object
	// with keys …", "text starting …").
	Input string
	// Readable lists the formats that, forced, read tool calls from the
	// input; empty when none does, and then no format is suggested.
	Readable []string
	// Setting is how the user forces a format where the input was named,
	// with NAME standing for the format: "-format NAME" (the default) for
	// a command's flag, "format: NAME" for a scenario key. The suggestion
	// names it so that it points at something the user can set.
	Setting string
}

func (e *FormatError) Error() string {
	if e.Folder {
		return fmt.Sprintf("%s: a folder that holds no trace of a known folder format (tried %s)", e.Source, strings.Join(e.Tried, ", "))
	}
	msg := fmt.Sprintf("%s: not a known trace format (tried %s)", e.Source, strings.Join(e.Tried, ", "))
	if e.Input != "" {
		msg += "; the input is " + e.Input
	}
	setting := e.Setting
	if setting == "" {
		setting = "-format NAME"
	}
	switch len(e.Readable) {
	case 0:
	case 1:
		msg += fmt.Sprintf("; forcing the %s format (%s) reads tool calls from it", e.Readable[0], strings.ReplaceAll(setting, "NAME", e.Readable[0]))
	default:
		msg += fmt.Sprintf("; forcing one of %s (%s) reads tool calls from it", strings.Join(e.Readable, ", "), setting)
	}
	return msg
}

// A Registry is a set of trace formats, tried in registration order.
type Registry struct {
	formats []Format
}

// NewRegistry returns a registry holding the given formats.
func NewRegistry(formats ...Format) *Registry {
	return &Registry{formats: slices.Clone(formats)}
}

// DefaultRegistry returns a new registry with every built-in format: Claude
// Code session JSONL, Claude Code stream-json, Codex CLI rollouts, codex
// exec --json streams, OpenTelemetry GenAI traces (OTLP/JSON), Harbor ATIF
// trajectories, Gemini CLI chat recordings, mini-swe-agent trajectories,
// tool-call records, OpenHands V0 event lists, OpenHands V1 conversations
// (folders, or their events as JSON Lines), the OpenHands evaluation
// harness's output.jsonl, SWE-agent .traj files, and the stores of the
// editors' agents: Amp threads, Copilot Chat sessions, Cursor's
// state.vscdb and hook transcript, and Cline task folders.
func DefaultRegistry() *Registry {
	return NewRegistry(ClaudeCode{}, ClaudeStreamJSON{}, Codex{}, CodexExecJSON{}, OTel{}, ATIF{}, GeminiCLI{}, MiniSWEAgent{}, ToolCalls{}, OpenHands{}, OpenHandsV1{}, OpenHandsEval{}, SWEAgent{}, Amp{}, CopilotChat{}, Cursor{}, CursorAgentTranscript{}, Cline{})
}

// Register adds a format. A format with the name of one already registered
// replaces it.
func (r *Registry) Register(f Format) {
	for i, g := range r.formats {
		if g.Name() == f.Name() {
			r.formats[i] = f
			return
		}
	}
	r.formats = append(r.formats, f)
}

// Lookup returns the format with the given name.
func (r *Registry) Lookup(name string) (Format, bool) {
	for _, f := range r.formats {
		if f.Name() == name {
			return f, true
		}
	}
	return nil, false
}

// Names lists the registered format names in order.
func (r *Registry) Names() []string {
	names := make([]string, len(r.formats))
	for i, f := range r.formats {
		names[i] = f.Name()
	}
	return names
}

// Detect returns the first format whose Detect accepts the prefix.
func (r *Registry) Detect(prefix []byte) (Format, bool) {
	prefix = trimLeading(prefix)
	for _, f := range r.formats {
		if f.Detect(prefix) {
			return f, true
		}
	}
	return nil, false
}

// A positionalFormat is a format whose files are read by position rather
// than from start to end (an SQLite database): ReadFile hands it the file
// itself, and its Read, given a stream, reads the stream whole first.
type positionalFormat interface {
	MultiFormat
	// readAllAt reads every session of the file r of the given size;
	// name is its path, where files that belong with it are found (an
	// SQLite write-ahead log).
	readAllAt(r io.ReaderAt, size int64, name string, opts Options) ([]*Session, error)
}

// A MultiFormat is a Format whose inputs may hold several sessions: an
// OpenTelemetry file with spans of several traces, an evaluation harness's
// output file with one task run a line.
type MultiFormat interface {
	Format
	// ReadAll reads every session of the input, in input order. It returns
	// an error when the input holds no session at all. (Read, on such a
	// format, returns the session Options.SessionID names, or the only one.)
	ReadAll(r io.Reader, opts Options) ([]*Session, error)
}

// A DirFormat is a Format whose traces may also be stored as a folder of
// files (OpenHands V1 conversations: events/event-NNNNN-*.json).
type DirFormat interface {
	Format
	// DetectDir reports whether the folder holds a trace of this format.
	DetectDir(fsys fs.FS) bool
	// ReadDir reads the trace stored in the folder.
	ReadDir(fsys fs.FS, opts Options) (*Session, error)
}

// A MultiSessionError reports a Read of an input that holds several
// sessions when Options.SessionID does not pick one of them.
type MultiSessionError struct {
	Source string
	// IDs lists the sessions of the input: their Task when the trace names
	// one, else their ID.
	IDs []string
	// Want is the SessionID asked for; empty when none was given.
	Want string
}

func (e *MultiSessionError) Error() string {
	ids := e.IDs
	more := ""
	if len(ids) > 5 {
		ids, more = ids[:5], fmt.Sprintf(" and %d more", len(e.IDs)-5)
	}
	list := strings.Join(ids, ", ") + more
	if e.Want != "" {
		return fmt.Sprintf("%s: no session %q among its %d sessions (%s)", e.Source, e.Want, len(e.IDs), list)
	}
	return fmt.Sprintf("%s: holds %d sessions (%s); pick one by its id, or read them all", e.Source, len(e.IDs), list)
}

// Read reads a trace from r, detecting its format unless opts.Format names
// one. When the input holds several sessions (see MultiFormat), it returns
// the one opts.SessionID names, and a *MultiSessionError when none is
// named. It never panics on malformed input: a reader that panics is
// reported as an error naming the source.
func Read(r io.Reader, opts Options) (*Session, error) {
	all, err := readAll(r, &opts, true)
	if err != nil {
		return nil, err
	}
	return pickSession(all, opts)
}

// ReadAll reads every session of a trace: one for most formats, several for
// a MultiFormat input. With opts.SessionID set, it returns only that one.
func ReadAll(r io.Reader, opts Options) ([]*Session, error) {
	all, err := readAll(r, &opts, false)
	if err != nil || opts.SessionID == "" {
		return all, err
	}
	s, err := pickSession(all, opts)
	if err != nil {
		return nil, err
	}
	return []*Session{s}, nil
}

// ReadFile reads the trace in the named file or folder; "-" reads standard
// input, and an http:// or https:// URL is read with one GET once package
// trace/httpsource is imported (see RegisterURLOpener; a status other than
// 200 is an *HTTPStatusError; Options.HTTPHeader and HTTPTimeout apply). See Read. Only regular files are read: a named pipe, a device or
// a socket is refused (a symbolic link is judged by its target), and so is
// an input larger than opts.MaxInputSize.
func ReadFile(name string, opts Options) (*Session, error) {
	all, err := readFileAll(name, &opts, true)
	if err != nil {
		return nil, err
	}
	return pickSession(all, opts)
}

// ReadFileAll reads every session of the trace in the named file, folder
// or URL (see ReadFile); "-" reads standard input. See ReadAll.
func ReadFileAll(name string, opts Options) ([]*Session, error) {
	all, err := readFileAll(name, &opts, false)
	if err != nil || opts.SessionID == "" {
		return all, err
	}
	s, err := pickSession(all, opts)
	if err != nil {
		return nil, err
	}
	return []*Session{s}, nil
}

func readFileAll(name string, opts *Options, one bool) ([]*Session, error) {
	if opts.Source == "" {
		opts.Source = name
	}
	if name == "-" {
		return readAll(input.LimitReader(os.Stdin, "-", opts.maxInputSize()), opts, one)
	}
	if IsURL(name) {
		return readURL(name, opts, one)
	}
	info, err := input.Stat(name)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		s, err := readDir(os.DirFS(name), opts)
		if err != nil {
			return nil, err
		}
		return []*Session{s}, nil
	}
	f, err := input.Open(name, opts.maxInputSize())
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// A small file needs no detection buffer of DetectSize: a run of
	// thousands of small traces would spend its time clearing them.
	o := *opts
	o.detectBuffer = int(min(info.Size()+4096, DetectSize))
	if ra, ok := f.(io.ReaderAt); ok {
		o.file, o.fileName, o.fileSize = ra, name, info.Size()
	}
	return readAll(f, &o, one)
}

// readDir reads a trace stored as a folder with the DirFormat that
// recognizes it (or the one opts.Format forces).
func readDir(fsys fs.FS, opts *Options) (sess *Session, err error) {
	reg := opts.registry()
	var f DirFormat
	if opts.Format != "" {
		g, ok := reg.Lookup(opts.Format)
		if !ok {
			return nil, unknownFormatError(reg, opts)
		}
		if f, ok = g.(DirFormat); !ok {
			return nil, fmt.Errorf("%s: is a folder, and the %s format is read from a file", opts.Source, g.Name())
		}
	} else {
		var dirFormats []string
		for _, g := range reg.formats {
			if d, ok := g.(DirFormat); ok {
				dirFormats = append(dirFormats, d.Name())
				if f == nil && d.DetectDir(fsys) {
					f = d
				}
			}
		}
		if f == nil {
			return nil, &FormatError{Source: opts.Source, Tried: dirFormats, Folder: true}
		}
	}
	defer recoverReader(&err, opts.Source, f)
	dirOpts := *opts
	dirOpts.budget = input.NewBudget(opts.Source, opts.maxInputSize())
	sess, err = f.ReadDir(fsys, dirOpts)
	if err != nil {
		return nil, err
	}
	finishSession(sess, f, *opts)
	handOverRead(sess, *opts)
	return sess, nil
}

// readAll detects or looks up the format and reads every session. one says
// that the caller wants one session, so that a single-session format's Read
// is used directly.
func readAll(r io.Reader, opts *Options, one bool) (all []*Session, err error) {
	reg := opts.registry()
	if opts.Source == "" {
		opts.Source = "-"
	}
	size := DetectSize
	if opts.detectBuffer > 0 {
		size = opts.detectBuffer
	}
	br := readBuffer(r, size)
	defer freeReadBuffer(br)
	prefix, perr := br.Peek(DetectSize)
	if perr != nil && perr != io.EOF && perr != bufio.ErrBufferFull {
		return nil, fmt.Errorf("%s: %w", opts.Source, perr)
	}
	trimmed := trimLeading(prefix)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("%s: %w", opts.Source, ErrEmpty)
	}
	// Editors on Windows write a UTF-8 byte order mark; no reader should
	// have to know about it.
	if bytes.HasPrefix(prefix, []byte(bom)) {
		br.Discard(len(bom))
	}
	var f Format
	if opts.Format != "" {
		var ok bool
		if f, ok = reg.Lookup(opts.Format); !ok {
			return nil, unknownFormatError(reg, opts)
		}
	} else {
		var ok bool
		if f, ok = reg.Detect(trimmed); !ok {
			return nil, &FormatError{Source: opts.Source, Tried: reg.Names(), Input: describeInput(trimmed), Readable: forcedReaders(reg, trimmed, *opts)}
		}
	}
	defer recoverReader(&err, opts.Source, f)
	if p, ok := f.(positionalFormat); ok && opts.file != nil {
		all, err = p.readAllAt(opts.file, opts.fileSize, opts.fileName, *opts)
	} else if m, ok := f.(MultiFormat); ok {
		all, err = m.ReadAll(br, *opts)
	} else {
		var s *Session
		s, err = f.Read(br, *opts)
		all = []*Session{s}
	}
	if err != nil {
		return nil, err
	}
	for _, s := range all {
		finishSession(s, f, *opts)
		handOverRead(s, *opts)
	}
	return all, nil
}

// handOverRead hands every call of a session its reader did not hand over
// as it read (see Options.CallDone) over, in order, now that it is read.
func handOverRead(s *Session, opts Options) {
	if opts.CallDone == nil || s.streamed {
		return
	}
	if opts.DropReleased {
		s.dropReleasedAfterRead()
	}
	for i := range s.NumCalls() {
		handOver(s, i, opts.CallDone)
	}
	if s.ledger != nil {
		s.closeLedger()
	}
}

// readBuffers holds the buffers of DetectSize that traces of
// pooledReadSize or more are read through: a run of many traces (check's,
// run-dir's) reads them through a few instead of making one each. A
// reader keeps no slice of its input past its read (what it reads next
// overwrites the buffer, so whatever it keeps it copies), so a buffer is
// free again once readAll returns (TestNoSessionKeepsTheReadBuffer).
var readBuffers = &sync.Pool{New: func() any { return bufio.NewReaderSize(nil, DetectSize) }}

// pooledReadSize is the smallest buffer taken from readBuffers: a smaller
// trace is read through a buffer of its size, which costs less to make
// than a pooled one costs to keep.
const pooledReadSize = 1 << 16

// readBuffer returns a reader of r with a buffer of at least size bytes.
// A pooled buffer is bigger than the size asked for a file smaller than
// DetectSize, and holds the whole file all the same.
func readBuffer(r io.Reader, size int) *bufio.Reader {
	if size < pooledReadSize {
		return bufio.NewReaderSize(r, size)
	}
	br := readBuffers.Get().(*bufio.Reader)
	br.Reset(r)
	return br
}

// freeReadBuffer puts a buffer readBuffer took from readBuffers back.
func freeReadBuffer(br *bufio.Reader) {
	if br.Size() != DetectSize {
		return
	}
	br.Reset(nil)
	readBuffers.Put(br)
}

// handOver gives call i to done and releases what done no longer needs:
// with Options.DropReleased, the whole call. It reports whether done
// released the call: its arguments' and result's memory is then the
// reader's again (see Options.CallDone).
func handOver(s *Session, i int, done func(*Session, int) bool) (released bool) {
	if !done(s, i) {
		return false
	}
	s.forgetChecked(i)
	if l := s.ledger; l != nil && l.live != nil {
		delete(l.live, i)
		return true
	}
	c := &s.Calls[i]
	c.Arguments, c.Result = nil, ""
	return true
}

// recoverReader turns a reader's panic into an error naming the source.
func recoverReader(err *error, source string, f Format) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("%s: %s reader failed: %v", source, f.Name(), p)
	}
}

func finishSession(s *Session, f Format, opts Options) {
	if s.Format == "" {
		s.Format = f.Name()
	}
	if s.Source == "" {
		s.Source = opts.Source
	}
	if opts.SkipMessages {
		s.Messages = nil
	}
	if s.Calls == nil {
		s.Calls = []ToolCall{} // "calls": [] in JSON, not null
	}
}

// pickSession returns the session opts.SessionID names (by Task or ID), or
// the only one.
func pickSession(all []*Session, opts Options) (*Session, error) {
	ids := make([]string, len(all))
	for i, s := range all {
		ids[i] = s.Name()
		if opts.SessionID != "" && (s.Task == opts.SessionID || s.ID == opts.SessionID) {
			return s, nil
		}
	}
	if opts.SessionID == "" && len(all) == 1 {
		return all[0], nil
	}
	return nil, &MultiSessionError{Source: opts.Source, IDs: ids, Want: opts.SessionID}
}

func unknownFormatError(reg *Registry, opts *Options) error {
	return fmt.Errorf("%s: unknown trace format %q (known: %s)", opts.Source, opts.Format, strings.Join(reg.Names(), ", "))
}

func (o *Options) registry() *Registry {
	if o.Registry == nil {
		return DefaultRegistry()
	}
	return o.Registry
}

const bom = "\xef\xbb\xbf"

// trimLeading drops a UTF-8 byte order mark and leading white space.
func trimLeading(b []byte) []byte {
	b = bytes.TrimPrefix(b, []byte(bom))
	return bytes.TrimLeft(b, " \t\r\n")
}
