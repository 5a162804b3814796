package trace

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// This file reads embedded subagent trajectories (ATIF v1.7) and puts the
// calls of every trajectory in one session, each subagent run after the
// call that started it.

func (rd *atifReader) embeddedList(t *atifTraj) error {
	line := rd.st.line()
	tok, err := rd.st.token()
	if err != nil {
		return err
	}
	if tok != json.Delim('[') {
		if tok != nil {
			rd.s.Warnf(line, "%ssubagent_trajectories: expected an array, found %s; ignored", t.path, atifTokenKind(tok))
		}
		return rd.st.skipRest(tok)
	}
	for i := 0; rd.st.dec.More(); i++ {
		path := fmt.Sprintf("%ssubagent_trajectories[%d].", t.path, i)
		if t.depth >= atifMaxDepth {
			rd.s.Warnf(rd.st.line(), "%s: subagent trajectories nest more than %d levels deep; skipped", strings.TrimSuffix(path, "."), atifMaxDepth)
			if err := rd.st.skip(); err != nil {
				return err
			}
			continue
		}
		child, err := rd.trajectory(path, t.depth+1)
		if child != nil {
			t.embedded = append(t.embedded, child)
			rd.register(child)
		}
		var shape *atifShapeError
		if errors.As(err, &shape) {
			rd.s.Warnf(shape.Line, "%s: %s; skipped", strings.TrimSuffix(path, "."), shape.Msg)
		} else if err != nil {
			return err
		}
	}
	_, err = rd.st.token()
	return err
}

func (rd *atifReader) register(t *atifTraj) {
	if id := t.trajectoryID; id != "" && rd.byTrajectory[id] == nil {
		rd.byTrajectory[id] = t
	}
	if id := t.sessionID; id != "" && rd.bySession[id] == nil {
		rd.bySession[id] = t
	}
}

// lookup finds the embedded trajectory a reference names: by trajectory_id
// (v1.7), else by session_id.
func (rd *atifReader) lookup(ref atifRef) *atifTraj {
	if t := rd.byTrajectory[ref.TrajectoryID]; ref.TrajectoryID != "" && t != nil {
		return t
	}
	if t := rd.bySession[ref.SessionID]; ref.SessionID != "" && t != nil {
		return t
	}
	return nil
}

// finish fills the session from the trajectories read.
func (rd *atifReader) finish(root *atifTraj) {
	s := rd.s
	rd.checkVersion(root, true)
	s.ID = root.sessionID
	if s.ID == "" {
		s.ID = root.trajectoryID // session_id is optional from v1.7
	}
	s.Agent, s.AgentVersion = root.agent.Name, root.agent.Version
	s.Model = cmp.Or(root.agent.ModelName, root.stepModel)
	for _, d := range root.agent.ToolDefinitions {
		if n := cmp.Or(d.Function.Name, d.Name); n != "" {
			s.Tools = append(s.Tools, n)
		}
	}
	var agentExtra map[string]json.RawMessage
	if root.agent.Extra != nil {
		agentExtra = atifExtra(*root.agent.Extra)
	}
	s.CWD = cmp.Or(root.cwd, atifString(agentExtra, "cwd"), atifFirstString(agentExtra["cwds"]), root.stepCWD)
	s.Answer = cmp.Or(root.answerNoCalls, root.answerAny)

	// Calls of an embedded trajectory go right after the call whose result
	// references it; cumulative tokens follow that order, so a main-agent
	// call after a subagent run counts the subagent's tokens.
	used, seen := rd.emit(root, false, "", 0, false)
	var all []*atifTraj
	var walk func(*atifTraj)
	walk = func(t *atifTraj) {
		for _, c := range t.embedded {
			all = append(all, c)
			walk(c)
		}
	}
	walk(root)
	for _, t := range all {
		rd.checkVersion(t, false)
		if rd.emitted[t] {
			continue
		}
		n := len(s.Calls)
		u, sn := rd.emit(t, true, "", used, seen)
		used, seen = used+u, seen || sn
		s.Warnf(t.line, "embedded subagent trajectory %s is not referenced by any observation result; its %d calls are listed at the end", atifTrajName(t), len(s.Calls)-n)
	}

	var total Usage
	has := root.hasUsage
	total = root.usage
	for _, t := range all {
		total = total.Add(t.usage)
		has = has || t.hasUsage
	}
	if has {
		s.Usage = &total
	} else if root.final != nil {
		u := *root.final
		s.Usage = &u
	}
}

// emit appends a trajectory's calls to the session, each embedded
// trajectory right after the call that references it. base is the token
// count of the run when the trajectory starts. It returns the tokens the
// trajectory used, its embedded ones included.
func (rd *atifReader) emit(t *atifTraj, sub bool, parentID string, base int64, baseSeen bool) (used int64, seen bool) {
	rd.emitted[t] = true
	var extra int64 // tokens of the embedded trajectories emitted so far
	extraSeen := false
	next := 0 // t.msgs[next] is the next message to place
	messages := func(upTo int) {
		for ; next < len(t.msgs) && t.msgs[next].Before <= upTo; next++ {
			m := t.msgs[next]
			m.Before = rd.s.NumCalls()
			m.Subagent = m.Subagent || sub
			rd.s.Messages = append(rd.s.Messages, m)
		}
	}
	defer messages(len(t.entries))
	for k, e := range t.entries {
		messages(k)
		cum, cumSeen := base+e.cum+extra, baseSeen || e.hasCum || extraSeen
		parent := parentID
		if !e.anchor {
			c := e.call
			if sub {
				c.Subagent, c.ParentID = true, parentID
			}
			if cumSeen {
				c.CumulativeTokens = &cum
			}
			rd.s.AddCall(c)
			parent = c.ID
		}
		for _, ref := range e.refs {
			child := rd.lookup(ref)
			if child == nil || rd.emitted[child] {
				continue
			}
			u, sn := rd.emit(child, true, parent, cum, cumSeen)
			extra += u
			extraSeen = extraSeen || sn
		}
	}
	return t.used + extra, t.hasUsage || extraSeen
}

func (rd *atifReader) checkVersion(t *atifTraj, root bool) {
	v := t.schema
	name := "schema_version"
	if !root {
		name = t.path + name
	}
	if v == "" {
		if root {
			rd.s.Warnf(t.line, "no schema_version; read as ATIF-v1.x")
		}
		return
	}
	rest, ok := strings.CutPrefix(v, "ATIF-v")
	major, _, _ := strings.Cut(rest, ".")
	if !ok || major != "1" {
		rd.s.Warnf(t.line, "%s %q is not a known ATIF version (ATIF-v1.x); read as ATIF-v1.x anyway", name, v)
	}
}

func atifTrajName(t *atifTraj) string {
	name := strings.TrimSuffix(t.path, ".")
	switch {
	case t.trajectoryID != "":
		name += fmt.Sprintf(" (trajectory_id %q)", t.trajectoryID)
	case t.sessionID != "":
		name += fmt.Sprintf(" (session_id %q)", t.sessionID)
	}
	return name
}
