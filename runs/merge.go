package runs

import (
	"cmp"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"

	"github.com/agentretrieval/agentretrieval/events"
	"github.com/agentretrieval/agentretrieval/trace"
)

// Trace files of a Harbor trial, relative to the trial folder.
const (
	TrajectoryFile = "agent/trajectory.json" // ATIF
	TranscriptFile = "agent/claude-code.txt" // Claude Code stream-json
)

// trialTraces is what a trial's trace files gave.
type trialTraces struct {
	sess   *trace.Session // nil when neither trace is usable
	source string         // events.Source*; "" when sess is nil
	// hasTraj and hasTrans say which traces were found and parseable,
	// whichever the events came from.
	hasTraj, hasTrans bool
	degraded          string // why sess is nil
	warnings          []string
}

// readTrial reads a trial's trajectory and transcript and merges them
// when both are usable and agree.
func readTrial(t *Trial, opts trace.Options) trialTraces {
	var tt trialTraces
	read := func(rel string) (*trace.Session, string) {
		p := filepath.Join(t.Dir, filepath.FromSlash(rel))
		if _, err := os.Stat(p); err != nil {
			return nil, "no " + rel
		}
		o := opts
		o.Source = path.Join(t.Rel, rel)
		s, err := readTrialTrace(p, t.Task, o)
		if err != nil {
			tt.warnings = append(tt.warnings, fmt.Sprintf("%s is not usable: %v", rel, err))
			return nil, rel + " is not usable"
		}
		return s, ""
	}
	traj, whyTraj := read(TrajectoryFile)
	trans, whyTrans := read(TranscriptFile)
	tt.hasTraj, tt.hasTrans = traj != nil, trans != nil
	switch {
	case traj != nil && trans != nil:
		merged, err := MergeSessions(traj, trans)
		if err != nil {
			tt.warnings = append(tt.warnings, fmt.Sprintf("%s and %s disagree (%v); using the trajectory alone", TrajectoryFile, TranscriptFile, err))
			tt.sess, tt.source = traj, events.SourceTrajectory
		} else {
			tt.sess, tt.source = merged, events.SourceMerged
		}
	case traj != nil:
		tt.sess, tt.source = traj, events.SourceTrajectory
	case trans != nil:
		tt.sess, tt.source = trans, events.SourceTranscript
	default:
		tt.degraded = "no usable trace: " + whyTraj + ", " + whyTrans
	}
	return tt
}

// readTrialTrace reads one trace file of a trial. A file that holds
// several sessions gives the one opts.SessionID names, else the one whose
// task is the trial's; a file of one session gives that one whatever its
// id, so that a session id meant for some trials does not set the others
// aside.
func readTrialTrace(file, task string, opts trace.Options) (*trace.Session, error) {
	want := cmp.Or(opts.SessionID, task)
	opts.SessionID = ""
	all, err := trace.ReadFileAll(file, opts)
	if err != nil {
		return nil, err
	}
	if len(all) == 1 {
		return all[0], nil
	}
	var ids []string
	for _, s := range all {
		if s.Task == want || s.ID == want {
			return s, nil
		}
		ids = append(ids, s.Name())
	}
	return nil, &trace.MultiSessionError{Source: opts.Source, IDs: ids, Want: want}
}

// A MismatchError says where a trajectory and a transcript of the same run
// stop agreeing.
type MismatchError struct {
	// Call is the index of the first call whose tool differs, or -1 when
	// the two have a different number of calls.
	Call int
	// Trajectory and Transcript are the two tool names at Call, or the two
	// numbers of calls.
	Trajectory, Transcript string
}

func (e *MismatchError) Error() string {
	if e.Call < 0 {
		return fmt.Sprintf("the trajectory has %s tool calls, the transcript %s", e.Trajectory, e.Transcript)
	}
	return fmt.Sprintf("step %d is %q in the trajectory and %q in the transcript", e.Call+1, e.Trajectory, e.Transcript)
}

// MergeSessions joins a trajectory and a transcript of the same run on the
// call index. The trajectory is preferred for the calls (name, arguments,
// id), their timestamps and token counts; the transcript gives the result
// text and error flag (Harbor's trajectories may shorten results) and the
// subagent markers (stream-json's parent_tool_use_id), and fills whatever
// the trajectory lacks. Both must list the same tools in the same order;
// otherwise they are not the same run, and a *MismatchError says where
// they differ. The inputs are not changed.
func MergeSessions(traj, trans *trace.Session) (*trace.Session, error) {
	if len(traj.Calls) != len(trans.Calls) {
		return nil, &MismatchError{Call: -1, Trajectory: strconv.Itoa(len(traj.Calls)), Transcript: strconv.Itoa(len(trans.Calls))}
	}
	for i := range traj.Calls {
		if a, b := traj.Calls[i].Name, trans.Calls[i].Name; a != b {
			return nil, &MismatchError{Call: i, Trajectory: a, Transcript: b}
		}
	}
	m := *traj
	m.Format = traj.Format + "+" + trans.Format
	m.Source = traj.Source + "+" + trans.Source
	m.ID = cmp.Or(traj.ID, trans.ID)
	m.Task = cmp.Or(traj.Task, trans.Task)
	m.Agent = cmp.Or(traj.Agent, trans.Agent)
	m.AgentVersion = cmp.Or(traj.AgentVersion, trans.AgentVersion)
	m.Model = cmp.Or(traj.Model, trans.Model)
	m.CWD = cmp.Or(traj.CWD, trans.CWD)
	if len(m.Tools) == 0 {
		m.Tools = trans.Tools
	}
	m.Start = traj.Start
	m.NoteTime(trans.Start)
	if m.Usage == nil {
		m.Usage = trans.Usage
	}
	m.Answer = cmp.Or(trans.Answer, traj.Answer)
	if len(trans.Messages) > 0 {
		// The agent's own log holds the whole conversation (thinking
		// included); both place messages by the same call indexes.
		m.Messages = trans.Messages
	}
	m.Warnings, m.WarningsDropped = nil, 0
	m.AddWarnings(traj)
	m.AddWarnings(trans)
	m.Calls = make([]trace.ToolCall, len(traj.Calls))
	for i, c := range traj.Calls {
		t := trans.Calls[i]
		if t.HasResult {
			c.Result, c.HasResult, c.IsError = t.Result, true, t.IsError
		}
		c.Subagent = c.Subagent || t.Subagent
		c.ParentID = cmp.Or(t.ParentID, c.ParentID)
		c.ID = cmp.Or(c.ID, t.ID)
		if c.Time.IsZero() {
			c.Time = t.Time
		}
		if c.CumulativeTokens == nil {
			c.CumulativeTokens = t.CumulativeTokens
		}
		if len(c.Arguments) == 0 {
			c.Arguments = t.Arguments
		}
		m.Calls[i] = c
	}
	return &m, nil
}
