package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/agentretrieval/agentretrieval/internal/borrowed"
	"github.com/agentretrieval/agentretrieval/internal/jsonscan"
)

// claudeReader builds a Session from the lines of either Claude dialect.
// The two dialects share their message lines; each reader looks at every
// field either of them has, so a file is read the same whichever of the
// two is forced.
type claudeReader struct {
	sess *Session
	opts Options

	lineScan
	line claudeLine

	// objects counts the lines that were JSON objects; with none, the
	// input is not a Claude trace at all.
	objects int

	calls map[string]int    // tool_use id → index in sess.Calls
	names map[string]string // interned tool names

	// Usage, one entry per model message in order of first appearance.
	msgIndex messageIDs
	msgs     []claudeUsage
	callMsg  []int32 // per call, the index in msgs of the message that issued it
	sawUsage bool
	total    claudeUsage // the result line's usage (stream-json)

	// Subagents of a session transcript.
	tasks      []claudeTask
	taskIndex  map[string]int   // Task call id → index in tasks
	byPrompt   map[string][]int // a Task call's prompt, trimmed → indexes in tasks, in order
	sideParent sideParents      // sidechain line uuid → parent Task call id

	bomLen int // length of the byte order mark cut from the line being read

	// argBufs holds the buffers of arguments whose calls CallDone
	// released, for the arguments of the calls that come next (see
	// copyArgs).
	argBufs [][]byte

	answer       string // last main-chain assistant text
	resultAnswer string
	haveResult   bool
}

// claudeTask is a Task (or Agent) call of the main chain: the call that
// starts a subagent.
type claudeTask struct {
	id string
	// done is set by the call's result; claimed once a sidechain root has
	// been attributed to the call.
	done, claimed bool
}

func claudeRead(r io.Reader, opts Options, dialect claudeDialect) (*Session, error) {
	if opts.Source == "" {
		opts.Source = "-"
	}
	name := ClaudeCode{}.Name()
	if dialect == claudeStream {
		name = ClaudeStreamJSON{}.Name()
	}
	cr := &claudeReader{
		sess:       &Session{Format: name, Source: opts.Source, Agent: "claude-code", Calls: []ToolCall{}, skipMessages: opts.SkipMessages},
		opts:       opts,
		calls:      map[string]int{},
		names:      map[string]string{},
		msgIndex:   newMessageIDs(),
		sideParent: newSideParents(),
		taskIndex:  map[string]int{},
		byPrompt:   map[string][]int{},
	}
	cr.name = cr.blockField
	if opts.CallDone != nil && opts.DropReleased {
		cr.sess.dropReleased()
	}
	lr := newLineReader(r)
	lr.compact, lr.compactAt = newClaudeCompactor(opts.MaxResultBytes), claudeLongLine
	lr.skip = func(n int, msg string) { cr.sess.Warnf(n, "%s", msg) }
	lr.warn = lr.skip
	cr.offsets = func(off int) int {
		if lr.compacted {
			// Cuts are placed in the line as read, byte order mark and all.
			return lr.compact.original(off+cr.bomLen) - cr.bomLen
		}
		return off
	}
	for {
		line, n, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: reading %s trace: %w", opts.Source, n+1, name, err)
		}
		cr.readLine(line, n)
	}
	if cr.objects == 0 {
		if len(cr.sess.Warnings) == 0 {
			return nil, fmt.Errorf("%s: not a %s trace: no line holds a JSON object", opts.Source, name)
		}
		w := cr.sess.Warnings[0]
		return nil, fmt.Errorf("%s: not a %s trace: no line holds a JSON object (line %d: %s)", opts.Source, name, w.Line, w.Message)
	}
	cr.finish()
	if opts.CallDone != nil {
		// The calls whose result never came are done too.
		cr.sess.finishHandOver(cr.handOver, nil)
	}
	return cr.sess, nil
}

func (r *claudeReader) readLine(line []byte, n int) {
	if n == 1 {
		// Read detects past a byte order mark but hands the reader the
		// stream as it is.
		trimmed := bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		r.bomLen = len(line) - len(trimmed)
		line = trimmed
	} else {
		r.bomLen = 0
	}
	if len(bytes.TrimLeft(line, " \t\r")) == 0 {
		return
	}
	r.parseLine(line)
	if err := r.sc.Err(); err != nil {
		r.skipLine(line, n, err)
		return
	}
	r.objects++
	r.apply(n)
}

// skipLine warns about a line that could not be used, saying whether it
// was not JSON, not an object, or had a field of the wrong type.
func (r *claudeReader) skipLine(line []byte, n int, err error) {
	msg, object, _ := r.lineProblem(line, err)
	if object {
		r.objects++
	}
	r.sess.Warnf(n, "%s", msg)
}

// apply adds what one parsed line says to the session.
func (r *claudeReader) apply(n int) {
	l := &r.line
	if !l.typ.set {
		r.sess.Warnf(n, "missing field type; line skipped")
		return
	}
	var t time.Time
	if l.timestamp.set {
		if p, ok := parseTimestamp(r.bytes(l.timestamp)); ok {
			t = p
			r.sess.NoteTime(t)
		} else {
			r.sess.Warnf(n, "field timestamp: %q is not an RFC 3339 time; time ignored", r.text(l.timestamp))
		}
	}
	r.setOnce(&r.sess.ID, l.sessionID)
	r.setOnce(&r.sess.CWD, l.cwd)
	r.setOnce(&r.sess.AgentVersion, l.version)

	var sub bool
	var parent string
	if l.parentToolUseID.set || l.isSidechain {
		sub, parent = r.subagent()
	}
	switch string(r.bytes(l.typ)) {
	case "assistant":
		r.assistant(n, t, sub, parent)
	case "user":
		r.user(n, t, sub)
	case "system":
		if string(r.bytes(l.subtype)) == "init" {
			r.init()
		}
	case "result":
		r.result()
	}
}

// init reads the stream-json system/init line. A resumed run can have
// several; the first one describes the session.
func (r *claudeReader) init() {
	l := &r.line
	if r.sess.Tools == nil && len(l.tools) > 0 {
		r.sess.Tools = make([]string, len(l.tools))
		for i, sp := range l.tools {
			r.sess.Tools[i] = r.text(sp)
		}
	}
	r.setOnce(&r.sess.Model, l.model)
}

// result reads the stream-json result line: the final answer and Claude
// Code's own token total.
func (r *claudeReader) result() {
	l := &r.line
	if l.result.set {
		r.resultAnswer = r.text(l.result)
		r.haveResult = true
	}
	if l.resultUsage.set {
		r.total = l.resultUsage
	}
}

// subagent tells which Task call a subagent line belongs to.
//
// Stream-json names it in parent_tool_use_id. A session transcript writes
// subagents inline as sidechains, and only chains their lines together:
// each line's parentUuid is the uuid of the line before it, and the first
// line of a sidechain has a null parentUuid and the Task call's prompt as
// its text. So the root is matched to the open Task call with that prompt
// (parallel Task calls interleave their sidechains), and the answer is
// passed down the uuid chain.
func (r *claudeReader) subagent() (bool, string) {
	l := &r.line
	if l.parentToolUseID.set {
		return true, r.text(l.parentToolUseID)
	}
	var parent string
	if !l.parentUUID.set {
		parent = r.matchTask(r.rootText())
	} else if p, ok := r.sideParent.get(r.bytes(l.parentUUID)); ok {
		parent = p
	} else {
		// The line chains to one that was skipped or never written.
		parent = r.openTask(false)
	}
	if uuid := r.bytes(l.uuid); len(uuid) > 0 {
		r.sideParent.set(uuid, parent)
	}
	return true, parent
}

// rootText is the text of a sidechain's first line: its content string,
// or its text blocks joined with "\n".
func (r *claudeReader) rootText() string {
	l := &r.line
	if l.contentText.set {
		return r.text(l.contentText)
	}
	var b strings.Builder
	texts := 0
	for _, blk := range l.blocks {
		if string(r.bytes(blk.typ)) == "text" {
			if texts > 0 {
				b.WriteByte('\n')
			}
			b.Write(r.bytes(blk.text))
			texts++
		}
	}
	return b.String()
}

// matchTask returns the id of the Task call whose prompt is text,
// preferring one that no sidechain has claimed yet and that has no result;
// without a match it falls back to the most recent open Task call.
func (r *claudeReader) matchTask(text string) string {
	best := -1
	for _, i := range r.byPrompt[strings.TrimSpace(text)] {
		t := &r.tasks[i]
		if !t.claimed && !t.done {
			best = i
			break
		}
		if best < 0 {
			best = i
		}
	}
	if best >= 0 {
		r.tasks[best].claimed = true
		return r.tasks[best].id
	}
	return r.openTask(true)
}

// openTask returns the most recent Task call still without a result,
// preferring one no sidechain has claimed, or "" when there is none.
func (r *claudeReader) openTask(claim bool) string {
	for _, unclaimedOnly := range []bool{true, false} {
		for i := len(r.tasks) - 1; i >= 0; i-- {
			t := &r.tasks[i]
			if t.done || unclaimedOnly && t.claimed {
				continue
			}
			if claim {
				t.claimed = true
			}
			return t.id
		}
	}
	return ""
}

func (r *claudeReader) assistant(n int, t time.Time, sub bool, parent string) {
	l := &r.line
	if !l.hasMessage {
		return
	}
	// Claude Code labels messages it makes up itself (API errors,
	// interruptions) with the model "<synthetic>".
	if r.sess.Model == "" && l.msgModel.set && string(r.bytes(l.msgModel)) != "<synthetic>" {
		r.sess.Model = r.text(l.msgModel)
	}
	msg := r.noteMessage()
	lastText := lineSpan{}
	if l.contentText.set {
		lastText = l.contentText
		r.sess.addMessageBytes(RoleAssistant, KindText, r.bytes(l.contentText), t, sub)
	}
	for i := range l.blocks {
		b := &l.blocks[i]
		switch string(r.bytes(b.typ)) {
		case "tool_use":
			r.toolUse(n, b, t, msg, sub, parent)
		case "text":
			lastText = b.text
			r.sess.addMessageBytes(RoleAssistant, KindText, r.bytes(b.text), t, sub)
		case "thinking":
			r.sess.addMessageBytes(RoleAssistant, KindReasoning, r.bytes(b.text), t, sub)
		}
	}
	if !sub && lastText.set {
		r.answer = r.text(lastText)
	}
}

func (r *claudeReader) toolUse(n int, b *claudeBlock, t time.Time, msg int32, sub bool, parent string) {
	id := r.text(b.id)
	if id != "" {
		if _, dup := r.calls[id]; dup {
			r.sess.Warnf(n, "second tool_use with id %q; call ignored", id)
			return
		}
	}
	name, ok := r.names[string(r.bytes(b.name))]
	if !ok {
		name = r.text(b.name)
		r.names[name] = name
	}
	var args json.RawMessage
	if b.input != nil {
		args = r.copyArgs(b.input)
	}
	i := r.sess.AddCall(ToolCall{ID: id, Name: name, Arguments: args, Time: t, Subagent: sub, ParentID: parent})
	// The line's scanner checked the input as it read it (Raw).
	r.sess.markChecked(i, args)
	r.callMsg = append(r.callMsg, msg)
	if id != "" {
		r.calls[id] = i
	}
	if !sub && (name == "Task" || name == "Agent") {
		if id != "" {
			r.taskIndex[id] = len(r.tasks)
		}
		if prompt := r.taskPrompt(b.input); prompt != "" {
			// A prompt of blanks alone matches a root line without text.
			key := strings.TrimSpace(prompt)
			r.byPrompt[key] = append(r.byPrompt[key], len(r.tasks))
		}
		r.tasks = append(r.tasks, claudeTask{id: id})
	}
}

// taskPrompt returns the prompt argument of a Task call, "" without one.
func (r *claudeReader) taskPrompt(input []byte) string {
	var sc jsonscan.Scanner
	sc.Reset(input)
	if sc.Peek() != jsonscan.Object {
		return ""
	}
	sc.Object()
	var prompt []byte
	for key, ok := sc.NextKey(); ok; key, ok = sc.NextKey() {
		if string(key) == "prompt" && sc.Peek() == jsonscan.String {
			prompt, _ = sc.AppendString(nil, -1)
		} else {
			sc.Skip()
		}
	}
	return string(prompt)
}

func (r *claudeReader) user(n int, t time.Time, sub bool) {
	l := &r.line
	if r.sess.Prompt == "" && !sub {
		r.notePrompt()
	}
	r.userMessage(t, sub)
	for i := range l.blocks {
		b := &l.blocks[i]
		if string(r.bytes(b.typ)) != "tool_result" {
			continue
		}
		id := r.bytes(b.toolUseID)
		if len(id) == 0 {
			r.sess.Warnf(n, "tool_result without tool_use_id; result dropped")
			continue
		}
		idx, ok := r.calls[string(id)]
		if !ok {
			r.sess.Warnf(n, "tool_result for unknown tool_use id %q; result dropped", id)
			continue
		}
		c := r.sess.Call(idx) // nil: handed over with its result, and dropped
		if c == nil || c.HasResult {
			r.sess.Warnf(n, "second tool_result for tool_use id %q; ignored", id)
			continue
		}
		if r.opts.CallDone != nil {
			// Lent to CallDone (see handOver): most results are only
			// read there, and need no string of their own.
			c.Result = borrowed.String(r.bytes(b.content))
		} else {
			c.Result = r.text(b.content)
		}
		c.HasResult = true
		c.IsError = b.isError
		if j, ok := r.taskIndex[c.ID]; ok {
			r.tasks[j].done = true
		}
		if r.opts.CallDone != nil {
			r.handOver(idx)
		}
	}
}

// noteMessage records the line's message for token counting and returns
// its index in r.msgs. Claude Code writes one line per content block and
// repeats the message's usage on each (output_tokens may grow from one to
// the next), so lines with the same message id are one message whose
// usage is the per-field maximum. A line without an id is a message of its
// own.
func (r *claudeReader) noteMessage() int32 {
	l := &r.line
	id := r.bytes(l.msgID)
	i, ok := r.msgIndex.get(id)
	if len(id) == 0 || !ok {
		i = int32(len(r.msgs))
		r.msgs = append(r.msgs, claudeUsage{})
		if len(id) > 0 {
			r.msgIndex.set(id, i)
		}
	}
	if u := l.usage; u.set {
		r.sawUsage = true
		r.msgs[i] = r.msgs[i].max(u)
	}
	return i
}

// max is the per-field maximum of two usages.
func (u claudeUsage) max(v claudeUsage) claudeUsage {
	return claudeUsage{
		set:           u.set || v.set,
		input:         max(u.input, v.input),
		cacheCreation: max(u.cacheCreation, v.cacheCreation),
		cacheRead:     max(u.cacheRead, v.cacheRead),
		output:        max(u.output, v.output),
	}
}

// usage converts to the session's Usage, where input includes the cached
// prompt tokens that Claude counts apart.
func (u claudeUsage) usage() Usage {
	return Usage{
		InputTokens:         u.input + u.cacheCreation + u.cacheRead,
		OutputTokens:        u.output,
		CacheReadTokens:     u.cacheRead,
		CacheCreationTokens: u.cacheCreation,
	}
}

// finish computes the token totals and the answer once every line is read.
func (r *claudeReader) finish() {
	if r.sawUsage || r.total.set {
		var sum claudeUsage
		upTo := make([]int64, len(r.msgs)) // tokens up to and including message i
		for i, m := range r.msgs {
			sum = claudeUsage{
				input:         sum.input + m.input,
				cacheCreation: sum.cacheCreation + m.cacheCreation,
				cacheRead:     sum.cacheRead + m.cacheRead,
				output:        sum.output + m.output,
			}
			upTo[i] = sum.usage().Total()
		}
		u := sum.max(r.total).usage()
		r.sess.Usage = &u
		if r.sawUsage {
			tokens := make([]int64, len(r.callMsg))
			for i, m := range r.callMsg {
				tokens[i] = upTo[m]
			}
			if l := r.sess.ledger; l != nil {
				ptrs := make([]*int64, len(tokens))
				for i := range tokens {
					ptrs[i] = &tokens[i]
				}
				l.setTokens(ptrs)
			} else {
				for i := range r.sess.Calls {
					r.sess.Calls[i].CumulativeTokens = &tokens[i]
				}
			}
		}
	}
	r.sess.Answer = r.answer
	if r.haveResult {
		r.sess.Answer = r.resultAnswer
	}
}

// setOnce sets *dst from sp unless dst is already set: the first line that
// names a value wins.
func (r *claudeReader) setOnce(dst *string, sp lineSpan) {
	if *dst == "" && sp.end > sp.off {
		*dst = r.text(sp)
	}
}

// notePrompt takes the text of a main-agent user line as the session's
// prompt: the string content, or its text blocks joined. Claude Code also
// writes user lines of its own: tags around a slash command and its output
// ("<command-name>", "<local-command-stdout>"), "[Request interrupted by
// user]", and a meta line that starts "Caveat:" before local command
// output; none is the task. The meta line that expands a slash command
// into its instructions is.
func (r *claudeReader) notePrompt() {
	l := &r.line
	var parts []string
	if l.contentText.set {
		parts = append(parts, r.text(l.contentText))
	}
	for i := range l.blocks {
		if b := &l.blocks[i]; string(r.bytes(b.typ)) == "text" && b.text.set {
			parts = append(parts, r.text(b.text))
		}
	}
	text := strings.TrimSpace(strings.Join(parts, "\n"))
	switch {
	case text == "", strings.HasPrefix(text, "<"), strings.HasPrefix(text, "[Request interrupted"),
		l.isMeta && strings.HasPrefix(text, "Caveat:"):
		return
	}
	r.sess.Prompt = text
}

// userMessage keeps the text of a user line as a message: its string
// content, or each text block. The meta line Claude Code writes before
// local command output ("Caveat: …") is not the user's.
func (r *claudeReader) userMessage(t time.Time, sub bool) {
	l := &r.line
	add := func(text []byte) {
		if !l.isMeta || !bytes.HasPrefix(trimSpace(text), []byte("Caveat:")) {
			r.sess.addMessageBytes(RoleUser, KindText, text, t, sub)
		}
	}
	if l.contentText.set {
		add(r.bytes(l.contentText))
	}
	for i := range l.blocks {
		if b := &l.blocks[i]; string(r.bytes(b.typ)) == "text" && b.text.set {
			add(r.bytes(b.text))
		}
	}
}

// sideParents maps the uuid of each sidechain line to the Task call its
// subagent belongs to. A session has tens of thousands of sidechain
// lines and few Task calls: their uuids, in the canonical lowercase form
// Claude Code writes, are kept as 16 bytes, with the number of whatever
// comes before the uuid in a table of such prefixes (none, in the files
// Claude Code writes; a copy's or an agent's mark in files made from
// them); any other string is kept as it is. Each uuid comes with the
// number of its parent's id in a table of the ids.
type sideParents struct {
	uuids    map[prefixedUUID]uint32
	prefixes map[string]uint32
	other    map[string]uint32
	ids      []string
	num      map[string]uint32
	// recent holds the last uuids set, with their parent's number: a
	// line's parentUuid is mostly the line just before it in its chain,
	// found here without a look-up in a map of every line.
	recent     [8]recentUUID
	recentNext int
	// last holds the prefix and the parent met last, with their numbers:
	// consecutive lines share both, found here without hashing.
	lastPrefix, lastParent string
	lastP, lastN           uint32
	lastSet                bool
}

type recentUUID struct {
	key prefixedUUID
	n   uint32
	set bool
}

// prefixedUUID is a string that ends in a canonical uuid: the number of
// the bytes before the uuid, and the uuid's value.
type prefixedUUID struct {
	prefix uint32
	uuid   [16]byte
}

func newSideParents() sideParents {
	return sideParents{uuids: map[prefixedUUID]uint32{}, prefixes: map[string]uint32{}, other: map[string]uint32{}, num: map[string]uint32{}}
}

// key splits s into a prefix and a canonical uuid, numbering a new prefix
// when add is set. ok is false when s does not end in a canonical uuid, or
// (without add) when its prefix was never numbered, so that no key holds
// it.
func (m *sideParents) key(s []byte, add bool) (k prefixedUUID, canonical, ok bool) {
	if len(s) < 36 {
		return k, false, false
	}
	at := len(s) - 36
	u, canonical := parseUUID(s[at:])
	if !canonical {
		return k, false, false
	}
	if m.lastSet && string(s[:at]) == m.lastPrefix {
		return prefixedUUID{prefix: m.lastP, uuid: u}, true, true
	}
	p, ok := m.prefixes[string(s[:at])]
	if !ok {
		if !add {
			return k, true, false
		}
		p = uint32(len(m.prefixes))
		m.prefixes[string(s[:at])] = p
	}
	m.lastPrefix, m.lastP, m.lastSet = string(s[:at]), p, true
	return prefixedUUID{prefix: p, uuid: u}, true, true
}

func (m *sideParents) get(uuid []byte) (string, bool) {
	var n uint32
	var ok bool
	if k, canonical, known := m.key(uuid, false); canonical {
		if !known {
			return "", false
		}
		// Newest first: a uuid set twice has the parent it was set to last.
		for i := range len(m.recent) {
			e := &m.recent[(m.recentNext+len(m.recent)-1-i)%len(m.recent)]
			if e.set && e.key == k {
				return m.ids[e.n], true
			}
		}
		n, ok = m.uuids[k]
	} else {
		n, ok = m.other[string(uuid)]
	}
	if !ok {
		return "", false
	}
	return m.ids[n], true
}

func (m *sideParents) set(uuid []byte, parent string) {
	n, ok := m.lastN, len(m.ids) > 0 && parent == m.lastParent
	if !ok {
		n, ok = m.num[parent]
	}
	if !ok {
		n = uint32(len(m.ids))
		m.ids = append(m.ids, parent)
		m.num[parent] = n
	}
	m.lastParent, m.lastN = parent, n
	if k, canonical, _ := m.key(uuid, true); canonical {
		m.uuids[k] = n
		m.recent[m.recentNext] = recentUUID{key: k, n: n, set: true}
		m.recentNext = (m.recentNext + 1) % len(m.recent)
		return
	}
	m.other[string(uuid)] = n
}

// messageIDs numbers the model messages of a session by their id. A
// session has one message or more per tool call: an id of up to 31 bytes
// (Claude's "msg_" ids have 28) is kept in place with its length, in one
// array, a longer one as a string.
type messageIDs struct {
	short map[[32]byte]int32
	long  map[string]int32
}

func newMessageIDs() messageIDs {
	return messageIDs{short: map[[32]byte]int32{}, long: map[string]int32{}}
}

func (m *messageIDs) get(id []byte) (int32, bool) {
	if k, ok := shortID(id); ok {
		i, found := m.short[k]
		return i, found
	}
	i, found := m.long[string(id)]
	return i, found
}

func (m *messageIDs) set(id []byte, i int32) {
	if k, ok := shortID(id); ok {
		m.short[k] = i
		return
	}
	m.long[string(id)] = i
}

// shortID is id in 32 bytes, its length in the last, when it fits: two
// ids give the same array only when they are the same.
func shortID(id []byte) (k [32]byte, ok bool) {
	if len(id) >= len(k) {
		return k, false
	}
	copy(k[:], id)
	k[len(k)-1] = byte(len(id))
	return k, true
}

// parseUUID reads a uuid written as 36 characters, lowercase hexadecimal
// digits in groups of 8-4-4-4-12. Exactly one string reads to each value,
// so the bytes stand for the string.
func parseUUID(s []byte) ([16]byte, bool) {
	var u [16]byte
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, false
	}
	var bad byte
	for k, at := range uuidDigits {
		hi, lo := hexValue[s[at]], hexValue[s[at+1]]
		bad |= hi | lo
		u[k] = hi<<4 | lo&0x0f
	}
	return u, bad&0xf0 == 0
}

// uuidDigits are the offsets of the 16 digit pairs of a canonical uuid.
var uuidDigits = [16]uint8{0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34}

// hexValue maps a lowercase hexadecimal digit to its value and every
// other byte to 0xff.
var hexValue = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(lowerHex(byte(i)))
	}
	return t
}()

func lowerHex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	}
	return -1
}
