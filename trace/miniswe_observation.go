package trace

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// This file reads the observations mini-swe-agent renders for the model
// from a command's output, with the templates of its own configs
// (action_observation_template in 1.x, observation_template in 2.x, and
// the agent's timeout_template), back into the output.

// miniElided is the line that stands for the middle of an output
// mini-swe-agent left out; package events recognizes it as a cut.
func miniElided(n []byte) string { return "\n[... " + string(n) + " characters elided ...]\n" }

// miniObservation returns the command output an observation shows, and
// whether the observation says the command failed: a non-zero
// <returncode>, an <exception>, a timeout. ok is false for a text of no
// shape the templates render (a submission, a format error), which is then
// kept as it is; the timeout message of the first 1.x releases, which
// shows no output, is not ok but failed.
//
// The shapes:
//
//   - "<returncode>N</returncode>\n<output>\n" + output + "</output>",
//     after "<exception>…</exception>\n" when the command raised one
//     (2.x): the template trims the line break it puts before
//     "</output>", so a newline there ends the output itself;
//   - an output of 10,000 characters or more: "<returncode>N</returncode>\n"
//     and a <warning> block, then "<output_head>\n" + the first 5,000
//     characters + "\n</output_head>\n<elided_chars>\nK characters
//     elided\n</elided_chars>\n<output_tail>\n" + the last 5,000 +
//     "\n</output_tail>", which becomes head + "\n[... K characters
//     elided ...]\n" + tail;
//   - the JSON object of the mini config (2.x): {"returncode": N,
//     "output": …} or, for a long output, "output_head", "output_tail"
//     and "elided_chars", with "exception_info" when there was one;
//   - the timeout message (1.x): "The last command <command>…</command>
//     timed out and has been killed.\nThe output of the command was:\n",
//     then " <output>\n" + output + "\n</output>\n" (or the head, elided
//     count and tail as above, the count inline), then "Please try another
//     command …".
//
// Text after the output (the reminders some configs add about the steps
// left) is not output.
func miniObservation(text []byte) (out []byte, failed, ok bool) {
	switch {
	case bytes.HasPrefix(text, []byte("<returncode>")), bytes.HasPrefix(text, []byte("<exception>")):
		return miniTagged(text)
	case bytes.HasPrefix(text, []byte("{")):
		return miniJSONObservation(text)
	case bytes.HasPrefix(text, []byte("The last command <command>")):
		return miniTimeout(text)
	case bytes.HasPrefix(text, []byte("The command timed out. ")):
		return nil, true, false
	}
	return nil, false, false
}

// miniTagged reads the tagged observation of every config but mini's.
func miniTagged(text []byte) (out []byte, failed, ok bool) {
	rest := text
	if after, found := bytes.CutPrefix(rest, []byte("<exception>")); found {
		// The exception's message may hold anything; the return code
		// follows it.
		i := bytes.Index(after, []byte("</exception>\n<returncode>"))
		if i < 0 {
			return nil, false, false
		}
		failed = true
		rest = after[i+len("</exception>\n"):]
	}
	rest, found := bytes.CutPrefix(rest, []byte("<returncode>"))
	if !found {
		return nil, false, false
	}
	code, rest, found := bytes.Cut(rest, []byte("</returncode>\n"))
	if !found {
		return nil, false, false
	}
	if n, err := strconv.ParseFloat(string(bytes.TrimSpace(code)), 64); err == nil && n != 0 {
		failed = true
	}
	if body, found := bytes.CutPrefix(rest, []byte("<output>\n")); found {
		end := bytes.LastIndex(body, []byte("</output>"))
		if end < 0 {
			return nil, false, false
		}
		return body[:end], failed, true
	}
	out, ok = miniHeadTail(rest)
	return out, failed, ok
}

// miniHeadTail reads the head, the elided count and the tail of a long
// output, and joins them around the elided line.
func miniHeadTail(text []byte) ([]byte, bool) {
	_, rest, found := bytes.Cut(text, []byte("<output_head>\n"))
	if !found {
		return nil, false
	}
	head, rest, found := bytes.Cut(rest, []byte("\n</output_head>\n<elided_chars>"))
	if !found {
		return nil, false
	}
	count, rest, found := bytes.Cut(rest, []byte("</elided_chars>\n<output_tail>\n"))
	if !found {
		return nil, false
	}
	n, _, _ := bytes.Cut(bytes.TrimSpace(count), []byte(" "))
	if _, err := strconv.ParseInt(string(n), 10, 64); err != nil {
		return nil, false
	}
	end := bytes.LastIndex(rest, []byte("\n</output_tail>"))
	if end < 0 {
		return nil, false
	}
	tail := rest[:end]
	out := make([]byte, 0, len(head)+len(tail)+40)
	out = append(out, head...)
	out = append(out, miniElided(n)...)
	return append(out, tail...), true
}

// miniTimeout reads the 1.x timeout message.
func miniTimeout(text []byte) (out []byte, failed, ok bool) {
	const was = "</command> timed out and has been killed.\nThe output of the command was:\n"
	i := bytes.Index(text, []byte(was))
	if i < 0 {
		return nil, false, false
	}
	rest := bytes.TrimPrefix(text[i+len(was):], []byte(" "))
	if body, found := bytes.CutPrefix(rest, []byte("<output>\n")); found {
		end := bytes.LastIndex(body, []byte("\n</output>\n"))
		if end < 0 {
			return nil, true, false
		}
		return body[:end], true, true
	}
	out, ok = miniHeadTail(rest)
	return out, true, ok
}

// miniJSONObservation reads the JSON observation of the 2.x mini config.
func miniJSONObservation(text []byte) (out []byte, failed, ok bool) {
	var obs struct {
		Returncode    *json.Number `json:"returncode"`
		Output        *string      `json:"output"`
		OutputHead    *string      `json:"output_head"`
		OutputTail    *string      `json:"output_tail"`
		ElidedChars   json.Number  `json:"elided_chars"`
		ExceptionInfo string       `json:"exception_info"`
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	if dec.Decode(&obs) != nil || obs.Returncode == nil {
		return nil, false, false
	}
	if n, err := obs.Returncode.Float64(); err == nil && n != 0 {
		failed = true
	}
	failed = failed || obs.ExceptionInfo != ""
	switch {
	case obs.Output != nil:
		return []byte(*obs.Output), failed, true
	case obs.OutputHead != nil && obs.OutputTail != nil && obs.ElidedChars != "":
		out := []byte(*obs.OutputHead)
		out = append(out, miniElided([]byte(obs.ElidedChars.String()))...)
		return append(out, *obs.OutputTail...), failed, true
	}
	return nil, failed, false
}
