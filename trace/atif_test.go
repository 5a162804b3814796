package trace

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// atifRow is a ToolCall in a form that compares with require.Equal and
// reads well in a diff: arguments as compact JSON text, time as RFC 3339,
// and cumulative tokens as -1 when absent.
type atifRow struct {
	ID, Name, Args, Result string
	HasResult, IsError     bool
	Subagent               bool
	ParentID               string
	Time                   string
	Cum                    int64
}

// atifRows converts the session's calls, checking Calls[i].Index == i.
func atifRows(t *testing.T, s *Session) []atifRow {
	t.Helper()
	rows := make([]atifRow, 0, len(s.Calls))
	for i, c := range s.Calls {
		require.Equal(t, i, c.Index, "Calls[%d].Index", i)
		r := atifRow{ID: c.ID, Name: c.Name, Args: string(c.Arguments), Result: c.Result, HasResult: c.HasResult,
			IsError: c.IsError, Subagent: c.Subagent, ParentID: c.ParentID, Cum: -1}
		if !c.Time.IsZero() {
			r.Time = c.Time.UTC().Format(time.RFC3339Nano)
		}
		if c.CumulativeTokens != nil {
			r.Cum = *c.CumulativeTokens
		}
		rows = append(rows, r)
	}
	return rows
}

// atifReadFixture reads a file of testdata/traces/atif through trace.Read,
// so detection is exercised too.
func atifReadFixture(t *testing.T, name string) *Session {
	t.Helper()
	s, err := ReadFile(filepath.Join("..", "testdata", "traces", "atif", name), Options{})
	require.NoError(t, err)
	require.Equal(t, "atif", s.Format, "detected format")
	return s
}

// atifRead reads an inline trajectory with the ATIF reader.
func atifRead(t *testing.T, doc string) *Session {
	t.Helper()
	s, err := ATIF{}.Read(strings.NewReader(doc), Options{Source: "inline.json"})
	require.NoError(t, err)
	return s
}

func atifTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestATIFResultsAreJoinedBySourceCallID(t *testing.T) {
	t.Parallel()
	s := atifReadFixture(t, "result-joined-by-source-call-id.trajectory.json")
	// The results are listed config, main, grep; each must land on the call
	// with its id. Tokens of step 2: prompt 520 (the 200 cached tokens are
	// part of it) + completion 80 = 600.
	assert.Equal(t, []atifRow{
		{ID: "call_read_main", Name: "read_file", Args: `{"path":"cmd/main.go"}`, Result: "package main\n\nfunc main() { config.ParseConfig() }", HasResult: true, Time: "2025-10-11T10:30:02Z", Cum: 600},
		{ID: "call_grep", Name: "grep_search", Args: `{"pattern":"ParseConfig"}`, Result: "internal/config/config.go:3:func ParseConfig() {}", HasResult: true, Time: "2025-10-11T10:30:02Z", Cum: 600},
		{ID: "call_read_config", Name: "read_file", Args: `{"path":"internal/config/config.go"}`, Result: "package config\n\nfunc ParseConfig() {}", HasResult: true, Time: "2025-10-11T10:30:02Z", Cum: 600},
	}, atifRows(t, s))
	assert.Equal(t, "join-by-id", s.ID)
	assert.Equal(t, "harbor-agent", s.Agent)
	assert.Equal(t, "1.0.0", s.AgentVersion)
	assert.Equal(t, "gpt-5", s.Model)
	assert.Equal(t, []string{"read_file", "grep_search"}, s.Tools)
	assert.Equal(t, atifTime("2025-10-11T10:30:00Z"), s.Start)
	assert.Equal(t, "ParseConfig is in internal/config/config.go.", s.Answer)
	// Input 520 + 600, output 80 + 44, cache reads 200 (reported, not added).
	assert.Equal(t, &Usage{InputTokens: 1120, OutputTokens: 124, CacheReadTokens: 200}, s.Usage)
	assert.Empty(t, s.Warnings)
}

func TestATIFResultsWithoutSourceCallIDAreAssignedInOrder(t *testing.T) {
	t.Parallel()
	s := atifReadFixture(t, "positional-results.trajectory.json")
	assert.Equal(t, []atifRow{
		{ID: "call_1_1", Name: "bash_command", Args: `{"keystrokes":"ls\n"}`, Result: "out of ls", HasResult: true, Cum: -1},
		{ID: "call_1_2", Name: "bash_command", Args: `{"keystrokes":"pwd\n"}`, Result: "out of pwd", HasResult: true, Cum: -1},
		// call_2_2 takes its attributed result; the loose ones go to the
		// calls still without one, in order.
		{ID: "call_2_1", Name: "bash_command", Args: `{"keystrokes":"a\n"}`, Result: "out of a", HasResult: true, Cum: -1},
		{ID: "call_2_2", Name: "bash_command", Args: `{"keystrokes":"b\n"}`, Result: "out of b", HasResult: true, Cum: -1},
		{ID: "call_2_3", Name: "bash_command", Args: `{"keystrokes":"c\n"}`, Result: "out of c", HasResult: true, Cum: -1},
		{ID: "call_3_1", Name: "bash_command", Args: `{"keystrokes":"cat hello.txt\n"}`, Result: "Hello, world!", HasResult: true, Cum: -1},
		// A call with no result is kept.
		{ID: "call_3_task_complete", Name: "mark_task_complete", Args: `{}`, Cum: -1},
	}, atifRows(t, s))
	assert.Nil(t, s.Usage, "the trajectory records no metrics")
	assert.True(t, s.Start.IsZero(), "the trajectory has no timestamps")
	// The last agent step without tool calls is step 2.
	assert.Equal(t, "Commands with unattributed results.", s.Answer)
	assert.Empty(t, s.Warnings)
}

func TestATIFSidechainStepsAreSubagentCalls(t *testing.T) {
	t.Parallel()
	s := atifReadFixture(t, "sidechain-steps.trajectory.json")
	// Harbor's Claude Code converter lists the sidechain steps first.
	assert.Equal(t, []atifRow{
		{ID: "toolu_side_1", Name: "Grep", Args: `{"pattern":"MaxRetries"}`, Result: "client/retry.go:12:const MaxRetries = 3", HasResult: true, Subagent: true, Time: "2025-11-02T09:00:03Z", Cum: -1},
		{ID: "toolu_main_1", Name: "Task", Args: `{"description":"find retries","prompt":"Find where retries are configured."}`, Result: "Retries are configured in client/retry.go.", HasResult: true, Time: "2025-11-02T09:00:00.5Z", Cum: -1},
		{ID: "toolu_main_2", Name: "Edit", Args: `{"file_path":"/app/client/retry.go","old_string":"= 3","new_string":"= 5"}`, Result: "The file /app/client/retry.go has been updated.", HasResult: true, Time: "2025-11-02T09:00:07Z", Cum: -1},
	}, atifRows(t, s))
	assert.Equal(t, "/app", s.CWD)
	assert.Equal(t, atifTime("2025-11-02T09:00:00Z"), s.Start, "Start is the earliest step, not the first")
	// The sidechain's own final text is not the answer.
	assert.Equal(t, "MaxRetries is now 5.", s.Answer)
}

func TestATIFEmbeddedSubagentTrajectoriesFollowTheirParentCall(t *testing.T) {
	t.Parallel()
	s := atifReadFixture(t, "embedded-subagent-v1.7.trajectory.json")
	// Tokens (prompt + completion) per agent step:
	//   main:   step 2 1100, step 3 2050, step 4 2130
	//   sub-A:  step 2 320, step 3 425, step 4 460 (1205 in all)
	//   sub-A1: step 1 55
	//   sub-B:  step 1 11
	// t1:  main step 2                      = 1100
	// r1:  1100 + 320                       = 1420
	// r2:  1100 + 320 + 425                 = 1845
	// gl1: 1845 + 55                        = 1900
	// g1:  1100 + 2050 + sub-A 1205 + 55    = 4410
	// b1 (unreferenced, at the end): main 5280 + 1205 + 55 + 11 = 6551
	assert.Equal(t, []atifRow{
		{ID: "t1", Name: "Task", Args: `{"prompt":"find the tokenizer"}`, Result: "The tokenizer is in lexer/scan.go.", HasResult: true, Time: "2026-01-20T08:00:02Z", Cum: 1100},
		{ID: "r1", Name: "read_file", Args: `{"path":"lexer/lexer.go"}`, Result: "package lexer", HasResult: true, Subagent: true, ParentID: "t1", Time: "2026-01-20T08:00:04Z", Cum: 1420},
		{ID: "r2", Name: "read_file", Args: `{"path":"lexer/scan.go"}`, Result: "func Scan(src []byte) []Token {", HasResult: true, Subagent: true, ParentID: "t1", Time: "2026-01-20T08:00:05Z", Cum: 1845},
		// Referenced by session_id only, from inside sub-A.
		{ID: "gl1", Name: "list_dir", Args: `{"path":"lexer"}`, Result: "lexer.go\nscan.go", HasResult: true, Subagent: true, ParentID: "r2", Time: "2026-01-20T08:00:06Z", Cum: 1900},
		{ID: "g1", Name: "grep_search", Args: `{"pattern":"Scan("}`, Result: "lexer/scan.go:40:func Scan(src []byte) []Token {", HasResult: true, Time: "2026-01-20T08:00:09Z", Cum: 4410},
		{ID: "b1", Name: "file.read", Args: `{"path":"README.md"}`, Result: "# lexer", HasResult: true, Subagent: true, Cum: 6551},
	}, atifRows(t, s))
	// Input 1000+2000+2100 + 300+400+450 + 50 + 10; output 100+50+30 + 20+25+10 + 5 + 1.
	assert.Equal(t, &Usage{InputTokens: 6310, OutputTokens: 241}, s.Usage)
	assert.Equal(t, "main-traj", s.ID, "session_id is optional in v1.7; trajectory_id stands in")
	assert.Equal(t, "orchestrator", s.Agent, "agent comes after steps in this file")
	assert.Equal(t, "claude-opus-4-5", s.Model)
	assert.Equal(t, []string{"Task", "grep_search"}, s.Tools)
	assert.Equal(t, "Done.", s.Answer, "a subagent's last text is not the answer")
	assert.Equal(t, atifTime("2026-01-20T08:00:00Z"), s.Start)
	require.Len(t, s.Warnings, 1)
	assert.Equal(t, 113, s.Warnings[0].Line, "the line where sub-B starts")
	assert.Contains(t, s.Warnings[0].Message, `subagent_trajectories[1] (trajectory_id "sub-B") is not referenced`)
}

func TestATIFCopiedContextStepsAreSkipped(t *testing.T) {
	t.Parallel()
	s := atifReadFixture(t, "copied-context.trajectory.json")
	// Steps 1-3 repeat the parent's turns: their calls and their 682+60
	// and 750+50 tokens belong to the parent. Step 5: 500 + 200 = 700.
	assert.Equal(t, []atifRow{
		{ID: "call_summary_1", Name: "bash_command", Args: `{"keystrokes":"ls -la test_dir\n"}`, Result: "file1.txt\nfile2.txt", HasResult: true, Cum: 700},
	}, atifRows(t, s))
	// Input 500 + 600, output 200 + 50.
	assert.Equal(t, &Usage{InputTokens: 1100, OutputTokens: 250}, s.Usage)
	assert.Equal(t, "I created test_dir with two files; hello.txt is still missing.", s.Answer)
}

func TestATIFMultimodalContentKeepsTheTextParts(t *testing.T) {
	t.Parallel()
	s := atifReadFixture(t, "multimodal-content-v1.6.trajectory.json")
	assert.Equal(t, []atifRow{
		{ID: "shot", Name: "screenshot", Args: `{}`, Result: "Screenshot of /settings\nviewport 1280x720", HasResult: true, Cum: -1},
		{ID: "css", Name: "read_file", Args: `{"path":"web/app.css"}`, Result: ".button { position: absolute; }", HasResult: true, Cum: -1},
	}, atifRows(t, s))
	assert.Equal(t, "The button is absolutely positioned.\nRemove position: absolute in web/app.css.", s.Answer)
	assert.Empty(t, s.Warnings)
}

func TestATIFTruncatedTrajectoryKeepsTheStepsBeforeTheCut(t *testing.T) {
	t.Parallel()
	s := atifReadFixture(t, "truncated.trajectory.json")
	assert.Equal(t, []atifRow{
		{ID: "c1", Name: "bash_command", Args: `{"keystrokes":"ls\n"}`, Result: "main.go", HasResult: true, Cum: -1},
		{ID: "c2", Name: "bash_command", Args: `{"keystrokes":"cat main.go\n"}`, Result: "package main", HasResult: true, Cum: -1},
	}, atifRows(t, s))
	require.Len(t, s.Warnings, 1)
	w := s.Warnings[0]
	assert.Equal(t, 24, w.Line, "the file ends on line 24, inside step 3")
	assert.Equal(t, filepath.Join("..", "testdata", "traces", "atif", "truncated.trajectory.json"), w.Source)
	assert.Contains(t, w.Message, "unexpected EOF")
	assert.Contains(t, w.Message, "kept the 2 steps")
}

func TestATIFUsageRepeatedByHarborIsCountedOnce(t *testing.T) {
	t.Parallel()
	s := atifReadFixture(t, "usage-repeated-by-harbor.trajectory.json")
	// Message 1 (steps 2-3): 12000 + 200 = 12200, written twice.
	// Message 2 (steps 4-6): 13500 + 150 = 13650, written three times.
	// Message 3 (step 7):    14000 + 80  = 14080.
	// Summing every step would give 12200*2 + 13650*3 + 14080 = 79430;
	// adding cached_tokens to prompt_tokens would give more again.
	assert.Equal(t, []atifRow{
		{ID: "toolu_01", Name: "Read", Args: `{"file_path":"/srv/upload/handler.go"}`, Result: "func Upload(w http.ResponseWriter, r *http.Request) {", HasResult: true, Time: "2025-11-03T14:00:02.3Z", Cum: 12200},
		{ID: "toolu_02", Name: "Grep", Args: `{"pattern":"uploadDeadline"}`, Result: "/srv/upload/config.go:8:var uploadDeadline = 5 * time.Second", HasResult: true, Time: "2025-11-03T14:00:05.2Z", Cum: 25850},
		{ID: "toolu_03", Name: "Read", Args: `{"file_path":"/srv/upload/config.go"}`, Result: "var uploadDeadline = 5 * time.Second", HasResult: true, Time: "2025-11-03T14:00:05.4Z", Cum: 25850},
	}, atifRows(t, s))
	// Input 12000 + 13500 + 14000, output 200 + 150 + 80, cache reads
	// 11000 + 12000 + 13400; total 39930.
	assert.Equal(t, &Usage{InputTokens: 39500, OutputTokens: 430, CacheReadTokens: 36400}, s.Usage)
	assert.Equal(t, int64(39930), s.Usage.Total())
}

func TestATIFReadsInlineTrajectories(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		doc   string
		check func(t *testing.T, s *Session)
	}{
		{
			name: "identical metrics without extra are two model calls",
			// Harbor's golden terminus-2 files repeat 850/40 on two distinct
			// calls; only Claude-converted steps (which carry metrics.extra)
			// are taken for copies. 890 + 890 = 1780.
			doc: `{"schema_version":"ATIF-v1.5","steps":[
				{"step_id":1,"source":"agent","message":"","tool_calls":[{"tool_call_id":"a","function_name":"x","arguments":{}}],"metrics":{"prompt_tokens":850,"completion_tokens":40}},
				{"step_id":2,"source":"agent","message":"","tool_calls":[{"tool_call_id":"b","function_name":"x","arguments":{}}],"metrics":{"prompt_tokens":850,"completion_tokens":40}}]}`,
			check: func(t *testing.T, s *Session) {
				rows := atifRows(t, s)
				require.Len(t, rows, 2)
				assert.Equal(t, int64(890), rows[0].Cum)
				assert.Equal(t, int64(1780), rows[1].Cum)
				assert.Equal(t, &Usage{InputTokens: 1700, OutputTokens: 80}, s.Usage)
			},
		},
		{
			name: "identical metrics are counted again after a different step",
			// 110 + 220 + 110: the repeat must be consecutive.
			doc: `{"schema_version":"ATIF-v1.2","steps":[
				{"step_id":1,"source":"agent","message":"","metrics":{"prompt_tokens":100,"completion_tokens":10,"extra":{"service_tier":"standard"}}},
				{"step_id":2,"source":"agent","message":"","metrics":{"prompt_tokens":200,"completion_tokens":20,"extra":{"service_tier":"standard"}}},
				{"step_id":3,"source":"agent","message":"","tool_calls":[{"tool_call_id":"a","function_name":"x","arguments":{}}],"metrics":{"prompt_tokens":100,"completion_tokens":10,"extra":{"service_tier":"standard"}}}]}`,
			check: func(t *testing.T, s *Session) {
				assert.Equal(t, int64(440), *s.Calls[0].CumulativeTokens)
			},
		},
		{
			name: "a step with wrong field types is skipped with a warning naming it",
			doc: `{"schema_version":"ATIF-v1.5","steps":[
				{"step_id":1,"source":"agent","message":"","tool_calls":[{"tool_call_id":"a","function_name":"read","arguments":{}}]},
				{"step_id":2,"source":"agent","message":"","tool_calls":"read everything"},
				{"step_id":3,"source":"agent","message":"","tool_calls":[{"tool_call_id":"c","function_name":"edit","arguments":{}}]}]}`,
			check: func(t *testing.T, s *Session) {
				assert.Equal(t, []string{"read", "edit"}, atifNames(s))
				require.Len(t, s.Warnings, 1)
				w := s.Warnings[0]
				assert.Equal(t, 3, w.Line)
				assert.Equal(t, "inline.json", w.Source)
				assert.Equal(t, "steps[1] (step_id 2) skipped: field tool_calls: expected an array, found string", w.Message)
			},
		},
		{
			name: "a syntax error mid-document keeps the steps before it and names the line",
			doc: "{\"schema_version\":\"ATIF-v1.5\",\"steps\":[\n" +
				"{\"step_id\":1,\"source\":\"agent\",\"message\":\"\",\"tool_calls\":[{\"tool_call_id\":\"a\",\"function_name\":\"read\",\"arguments\":{}}]},\n" +
				"{\"step_id\":2,\"source\":\"agent\",\n" +
				"\"message\": oops}\n" +
				"]}",
			check: func(t *testing.T, s *Session) {
				assert.Equal(t, []string{"read"}, atifNames(s))
				require.Len(t, s.Warnings, 1)
				assert.Equal(t, 4, s.Warnings[0].Line)
				assert.Contains(t, s.Warnings[0].Message, "invalid character 'o'")
			},
		},
		{
			name: "an unknown major version is read with a warning",
			doc:  `{"schema_version":"ATIF-v2.0","steps":[{"step_id":1,"source":"agent","message":"","tool_calls":[{"tool_call_id":"a","function_name":"read","arguments":{}}]}]}`,
			check: func(t *testing.T, s *Session) {
				assert.Equal(t, []string{"read"}, atifNames(s))
				require.Len(t, s.Warnings, 1)
				assert.Contains(t, s.Warnings[0].Message, `"ATIF-v2.0" is not a known ATIF version`)
			},
		},
		{
			name: "an error result or a step flagged tool_result_is_error marks the call",
			doc: `{"schema_version":"ATIF-v1.5","steps":[
				{"step_id":1,"source":"agent","message":"","tool_calls":[{"tool_call_id":"a","function_name":"read","arguments":{}}],
				 "observation":{"results":[{"source_call_id":"a","content":"no such file","extra":{"is_error":true}}]}},
				{"step_id":2,"source":"agent","message":"","tool_calls":[{"tool_call_id":"b","function_name":"Bash","arguments":{}}],
				 "observation":{"results":[{"source_call_id":"b","content":"exit 1"}]},"extra":{"tool_result_is_error":true}},
				{"step_id":3,"source":"agent","message":"","tool_calls":[{"tool_call_id":"c","function_name":"read","arguments":{}}],
				 "observation":{"results":[{"source_call_id":"c","content":"ok","extra":{"is_error":false}}]}}]}`,
			check: func(t *testing.T, s *Session) {
				require.Len(t, s.Calls, 3)
				assert.True(t, s.Calls[0].IsError)
				assert.True(t, s.Calls[1].IsError)
				assert.False(t, s.Calls[2].IsError)
			},
		},
		{
			name: "the working directory comes from the root extra before the agent extra",
			doc:  `{"extra":{"cwd":"/root-extra"},"schema_version":"ATIF-v1.5","agent":{"name":"a","version":"1","extra":{"cwd":"/agent-extra"}},"steps":[{"step_id":1,"source":"user","message":"","extra":{"cwd":"/step"}}]}`,
			check: func(t *testing.T, s *Session) {
				assert.Equal(t, "/root-extra", s.CWD)
			},
		},
		{
			name: "the working directory falls back to the first step's extra",
			doc:  `{"schema_version":"ATIF-v1.5","agent":{"name":"a","version":"1"},"steps":[{"step_id":1,"source":"user","message":""},{"step_id":2,"source":"user","message":"","extra":{"cwd":"/step"}}]}`,
			check: func(t *testing.T, s *Session) {
				assert.Equal(t, "/step", s.CWD)
			},
		},
		{
			name: "a result in a later step joins its call",
			doc: `{"schema_version":"ATIF-v1.5","steps":[
				{"step_id":1,"source":"agent","message":"","tool_calls":[{"tool_call_id":"a","function_name":"read","arguments":{}}]},
				{"step_id":2,"source":"system","message":"","observation":{"results":[{"source_call_id":"a","content":"late"}]}}]}`,
			check: func(t *testing.T, s *Session) {
				require.Len(t, s.Calls, 1)
				assert.Equal(t, "late", s.Calls[0].Result)
				assert.True(t, s.Calls[0].HasResult)
				assert.Empty(t, s.Warnings)
			},
		},
		{
			name: "a call repeated under the same id in a later step is one call",
			doc: `{"schema_version":"ATIF-v1.5","steps":[
				{"step_id":1,"source":"agent","message":"","tool_calls":[{"tool_call_id":"a","function_name":"read","arguments":{"path":"x"}}]},
				{"step_id":2,"source":"agent","message":"","tool_calls":[{"tool_call_id":"a","function_name":"read","arguments":{"path":"x"}}],
				 "observation":{"results":[{"source_call_id":"a","content":"body of x"}]}}]}`,
			check: func(t *testing.T, s *Session) {
				require.Len(t, s.Calls, 1)
				assert.Equal(t, "body of x", s.Calls[0].Result)
			},
		},
		{
			name: "a result for an unknown call id is dropped with a warning",
			doc:  `{"schema_version":"ATIF-v1.5","steps":[{"step_id":1,"source":"agent","message":"","observation":{"results":[{"source_call_id":"ghost","content":"?"}]}}]}`,
			check: func(t *testing.T, s *Session) {
				assert.Empty(t, s.Calls)
				require.Len(t, s.Warnings, 1)
				assert.Contains(t, s.Warnings[0].Message, `"ghost"`)
			},
		},
		{
			name: "arguments written as a JSON string holding an object become the object",
			doc:  `{"schema_version":"ATIF-v1.5","steps":[{"step_id":1,"source":"agent","message":"","tool_calls":[{"tool_call_id":"a","function_name":"read","arguments":"{\"path\": \"x.go\"}"}]}]}`,
			check: func(t *testing.T, s *Session) {
				assert.JSONEq(t, `{"path":"x.go"}`, string(s.Calls[0].Arguments))
				assert.Equal(t, map[string]any{"path": "x.go"}, s.Calls[0].ArgumentsMap())
			},
		},
		{
			name: "a subagent referenced by a step without calls comes at that step",
			doc: `{"schema_version":"ATIF-v1.7","steps":[
				{"step_id":1,"source":"agent","message":"","tool_calls":[{"tool_call_id":"a","function_name":"read","arguments":{}}]},
				{"step_id":2,"source":"system","message":"delegating","observation":{"results":[{"subagent_trajectory_ref":[{"trajectory_id":"s1"}]}]}},
				{"step_id":3,"source":"agent","message":"","tool_calls":[{"tool_call_id":"b","function_name":"edit","arguments":{}}]}],
			 "subagent_trajectories":[{"trajectory_id":"s1","steps":[{"step_id":1,"source":"agent","message":"","tool_calls":[{"tool_call_id":"s","function_name":"grep","arguments":{}}]}]}]}`,
			check: func(t *testing.T, s *Session) {
				assert.Equal(t, []string{"read", "grep", "edit"}, atifNames(s))
				assert.True(t, s.Calls[1].Subagent)
				assert.Empty(t, s.Calls[1].ParentID)
				assert.Empty(t, s.Warnings)
			},
		},
		{
			name: "a reference to a trajectory file is not followed and not warned about",
			doc: `{"schema_version":"ATIF-v1.5","steps":[{"step_id":1,"source":"system","message":"",
				"observation":{"results":[{"subagent_trajectory_ref":[{"session_id":"x","trajectory_path":"trajectory.summarization-1-summary.json"}]}]}}]}`,
			check: func(t *testing.T, s *Session) {
				assert.Empty(t, s.Calls)
				assert.Empty(t, s.Warnings)
			},
		},
		{
			name: "results are cut to MaxResultBytes",
			doc:  `{"schema_version":"ATIF-v1.5","steps":[{"step_id":1,"source":"agent","message":"","tool_calls":[{"tool_call_id":"a","function_name":"read","arguments":{}}],"observation":{"results":[{"source_call_id":"a","content":"héllo world"}]}}]}`,
			check: func(t *testing.T, s *Session) {
				// Read again with a limit of 2 bytes: "h" and the two bytes
				// of "é" do not fit, so the cut falls before "é".
				s2, err := ATIF{}.Read(strings.NewReader(`{"schema_version":"ATIF-v1.5","steps":[{"step_id":1,"source":"agent","message":"","tool_calls":[{"tool_call_id":"a","function_name":"read","arguments":{}}],"observation":{"results":[{"source_call_id":"a","content":"héllo world"}]}}]}`), Options{MaxResultBytes: 2})
				require.NoError(t, err)
				assert.Equal(t, "héllo world", s.Calls[0].Result)
				assert.Equal(t, "h", s2.Calls[0].Result)
			},
		},
		{
			name: "data after the document is ignored with a warning",
			doc:  "{\"schema_version\":\"ATIF-v1.5\",\"steps\":[]}\n{\"another\":1}",
			check: func(t *testing.T, s *Session) {
				require.Len(t, s.Warnings, 1)
				assert.Equal(t, 2, s.Warnings[0].Line)
			},
		},
		{
			name: "a step with an unparseable timestamp keeps its calls without a time",
			doc:  `{"schema_version":"ATIF-v1.5","steps":[{"step_id":1,"timestamp":"yesterday","source":"agent","message":"","tool_calls":[{"tool_call_id":"a","function_name":"read","arguments":{}}]}]}`,
			check: func(t *testing.T, s *Session) {
				require.Len(t, s.Calls, 1)
				assert.True(t, s.Calls[0].Time.IsZero())
				require.Len(t, s.Warnings, 1)
				assert.Contains(t, s.Warnings[0].Message, `"yesterday"`)
			},
		},
		{
			name: "a timestamp without a zone is read as UTC",
			doc:  `{"schema_version":"ATIF-v1.5","steps":[{"step_id":1,"timestamp":"2025-10-11T10:30:00.123456","source":"user","message":""}]}`,
			check: func(t *testing.T, s *Session) {
				assert.Equal(t, atifTime("2025-10-11T10:30:00.123456Z"), s.Start)
			},
		},
		{
			name: "an empty steps array is a valid empty session",
			doc:  `{"schema_version":"ATIF-v1.5","session_id":"s","agent":{"name":"a","version":"1"},"steps":[]}`,
			check: func(t *testing.T, s *Session) {
				assert.Empty(t, s.Calls)
				assert.Empty(t, s.Warnings)
				assert.Equal(t, "s", s.ID)
			},
		},
		{
			name: "unreadable timestamps in many steps are one warning naming the first",
			doc: `{"schema_version":"ATIF-v1.7","steps":[
				{"step_id":1,"timestamp":"<redacted>","source":"user","message":"go"},
				{"step_id":2,"timestamp":"<redacted>","source":"agent","message":"","tool_calls":[{"tool_call_id":"a","function_name":"read","arguments":{}}]},
				{"step_id":3,"timestamp":"2025-10-11T10:30:02Z","source":"agent","message":"","tool_calls":[{"tool_call_id":"b","function_name":"grep","arguments":{}}]},
				{"step_id":4,"timestamp":"yesterday","source":"agent","message":"done"}]}`,
			check: func(t *testing.T, s *Session) {
				require.Len(t, s.Warnings, 1)
				assert.Equal(t, 2, s.Warnings[0].Line)
				assert.Equal(t, `steps[0] (step_id 1): timestamp "<redacted>" is not ISO 8601, nor are the timestamps of 2 more steps; their calls have no time`, s.Warnings[0].Message)
				rows := atifRows(t, s)
				assert.Empty(t, rows[0].Time)
				assert.Equal(t, "2025-10-11T10:30:02Z", rows[1].Time)
			},
		},
		{
			name: "the raw tool result Harbor keeps beside its annotated content is the result",
			doc: `{"schema_version":"ATIF-v1.6","steps":[{"step_id":1,"source":"agent","message":"",
				"tool_calls":[{"tool_call_id":"a","function_name":"Bash","arguments":{"command":"cat a.go"}}],
				"observation":{"results":[{"source_call_id":"a","content":"package a\n[exit_code] 1\n[metadata] {}",
					"extra":{"tool_result_metadata":{"raw_tool_result":{"type":"tool_result","tool_use_id":"a","is_error":true,
						"content":[{"type":"text","text":"package a"}]}}}}]}}]}`,
			check: func(t *testing.T, s *Session) {
				rows := atifRows(t, s)
				require.Len(t, rows, 1)
				assert.Equal(t, "package a", rows[0].Result)
				assert.True(t, rows[0].HasResult)
				assert.True(t, rows[0].IsError, "raw_tool_result.is_error")
			},
		},
		{
			name: "a result whose extra status is an error marks its call failed",
			doc: `{"schema_version":"ATIF-v1.7","steps":[{"step_id":1,"source":"agent","message":"",
				"tool_calls":[
					{"tool_call_id":"a","function_name":"terminal","arguments":{"command":"ls"},"extra":{"provider_data":{"call_id":"p1"}}},
					{"tool_call_id":"b","function_name":"terminal","arguments":{"command":"make"},"extra":{"provider_data":{"call_id":"p2"}}}],
				"observation":{"results":[
					{"source_call_id":"a","content":"a.go","extra":{"event_name":"terminal","status":"success"}},
					{"source_call_id":"b","content":"make: *** no rule","extra":{"event_name":"terminal","status":"error"}}]}}]}`,
			check: func(t *testing.T, s *Session) {
				rows := atifRows(t, s)
				require.Len(t, rows, 2)
				assert.False(t, rows[0].IsError)
				assert.True(t, rows[1].IsError)
				assert.Equal(t, `{"command":"ls"}`, rows[0].Args, "a tool call's extra is not part of its arguments")
				assert.Empty(t, s.Warnings)
			},
		},
		{
			name: "a single subagent_trajectory_ref object is read as a list of one",
			doc: `{"schema_version":"ATIF-v1.7","trajectory_id":"root","steps":[{"step_id":1,"source":"agent","message":"",
				"tool_calls":[{"tool_call_id":"t","function_name":"task","arguments":{}}],
				"observation":{"results":[{"source_call_id":"t","content":"ok","subagent_trajectory_ref":{"trajectory_id":"child"}}]}}],
				"subagent_trajectories":[{"schema_version":"ATIF-v1.7","trajectory_id":"child","steps":[{"step_id":1,"source":"agent","message":"",
					"tool_calls":[{"tool_call_id":"c","function_name":"read","arguments":{}}]}]}]}`,
			check: func(t *testing.T, s *Session) {
				assert.Empty(t, s.Warnings)
				rows := atifRows(t, s)
				require.Len(t, rows, 2)
				assert.Equal(t, "root", s.ID, "trajectory_id names the session when session_id is absent")
				assert.Equal(t, atifRow{ID: "c", Name: "read", Args: "{}", Subagent: true, ParentID: "t", Cum: -1}, rows[1])
			},
		},
		{
			name: "a trajectory continued in another file says so",
			doc: `{"schema_version":"ATIF-v1.5","steps":[{"step_id":1,"source":"agent","message":"","tool_calls":[{"tool_call_id":"a","function_name":"read","arguments":{}}]}],
				"continued_trajectory_ref":"trajectory.cont-1.json"}`,
			check: func(t *testing.T, s *Session) {
				assert.Equal(t, []string{"read"}, atifNames(s))
				require.Len(t, s.Warnings, 1)
				assert.Equal(t, `continued_trajectory_ref: the run continues in "trajectory.cont-1.json", which is not read; its calls are missing`, s.Warnings[0].Message)
			},
		},
		{
			name: "final_metrics give the usage when no step has metrics",
			doc: `{"schema_version":"ATIF-v1.7","steps":[{"step_id":1,"source":"<redacted>","message":"","metrics":{"prompt_tokens":90,"completion_tokens":7}}],
				"final_metrics":{"total_prompt_tokens":90,"total_completion_tokens":7,"total_cached_tokens":40}}`,
			check: func(t *testing.T, s *Session) {
				assert.Equal(t, &Usage{InputTokens: 90, OutputTokens: 7, CacheReadTokens: 40}, s.Usage)
			},
		},
		{
			name: "step metrics are preferred to final_metrics",
			doc: `{"schema_version":"ATIF-v1.5","steps":[{"step_id":1,"source":"agent","message":"","metrics":{"prompt_tokens":100,"completion_tokens":10}}],
				"final_metrics":{"total_prompt_tokens":999,"total_completion_tokens":99}}`,
			check: func(t *testing.T, s *Session) {
				assert.Equal(t, &Usage{InputTokens: 100, OutputTokens: 10}, s.Usage)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.check(t, atifRead(t, tt.doc))
		})
	}
}

func atifNames(s *Session) []string {
	names := make([]string, len(s.Calls))
	for i, c := range s.Calls {
		names[i] = c.Name
	}
	return names
}

func TestATIFReadErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		doc     string
		wantErr string
		is      error
	}{
		{
			name:    "a document cut before any step is an error naming the source and line",
			doc:     "{\"schema_version\": \"ATIF-v1.5\",\n\"steps\": [{\"step_id\": 1,",
			wantErr: "in.json:2: reading ATIF trajectory: no step could be read",
			is:      io.ErrUnexpectedEOF,
		},
		{
			name:    "an array is not a trajectory",
			doc:     `[{"schema_version":"ATIF-v1.5"}]`,
			wantErr: "in.json:1: expected an ATIF trajectory (a JSON object with schema_version), found an array",
		},
		{
			name:    "garbage is an error",
			doc:     "not json",
			wantErr: "in.json:1: reading ATIF trajectory: no step could be read: invalid character 'o'",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := ATIF{}.Read(strings.NewReader(tt.doc), Options{Source: "in.json"})
			require.Error(t, err)
			assert.Nil(t, s)
			assert.Contains(t, err.Error(), tt.wantErr)
			if tt.is != nil {
				assert.True(t, errors.Is(err, tt.is), "errors.Is(%v, %v)", err, tt.is)
			}
		})
	}
}

func TestATIFDetect(t *testing.T) {
	t.Parallel()
	fixture, err := os.ReadFile(filepath.Join("..", "testdata", "traces", "atif", "embedded-subagent-v1.7.trajectory.json"))
	require.NoError(t, err)
	tests := []struct {
		name   string
		prefix string
		want   bool
	}{
		{"a pretty-printed trajectory is detected", "{\n  \"schema_version\": \"ATIF-v1.5\",\n  \"steps\": []\n}", true},
		{"a compact trajectory is detected", `{"schema_version":"ATIF-v1.7","steps":[]}`, true},
		{"schema_version after other root keys is found", string(fixture), true},
		{"a nested schema_version before the root one is not mistaken for it", `{"agent":{"schema_version":"x"},"schema_version":"ATIF-v1.2"}`, true},
		{"a byte order mark and leading white space are ignored", "\xef\xbb\xbf \n{\"schema_version\":\"ATIF-v1.6\"}", true},
		{"a prefix cut inside the steps is still detected", `{"schema_version": "ATIF-v1.5", "steps": [{"step_id`, true},
		{"another writer's schema_version is not ATIF", `{"schema_version":"1.4","steps":[]}`, false},
		{"a non-string schema_version is not ATIF", `{"schema_version":1.5}`, false},
		{"schema_version only in a nested object is not ATIF", `{"meta":{"schema_version":"ATIF-v1.5"}}`, false},
		{"a Claude JSONL line quoting an ATIF document is not ATIF", `{"type":"user","message":{"content":"{\"schema_version\": \"ATIF-v1.5\"}"}}` + "\n" + `{"type":"assistant"}`, false},
		{"a Claude JSONL session is not ATIF", `{"type":"summary","summary":"x","leafUuid":"u"}` + "\n" + `{"type":"user","sessionId":"s","message":{"role":"user","content":"hi"}}`, false},
		{"an array is not ATIF", `[{"schema_version":"ATIF-v1.5"}]`, false},
		{"tool-call records are not ATIF", `{"toolCalls":[{"tool":"x"}]}`, false},
		{"empty input is not ATIF", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, ATIF{}.Detect([]byte(tt.prefix)))
		})
	}
}

// TestATIFLineNumbersSurviveLargeSteps checks that warnings still name the
// right line after the decoder's buffer has grown and been refilled many
// times.
func TestATIFLineNumbersSurviveLargeSteps(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	b.WriteString("{\"schema_version\": \"ATIF-v1.5\",\n\"steps\": [\n")
	big := strings.Repeat("x", 70000)
	for i := range 40 {
		// Each step takes 3 lines.
		b.WriteString("{\"step_id\": 1, \"source\": \"agent\", \"message\": \"\",\n")
		b.WriteString("\"tool_calls\": [{\"tool_call_id\": \"c" + strconv.Itoa(i) + "\", \"function_name\": \"read\", \"arguments\": {}}],\n")
		b.WriteString("\"observation\": {\"results\": [{\"content\": \"" + big + "\"}]}},\n")
	}
	// Line 2 + 40*3 + 1 = 123: a step whose source is a number.
	b.WriteString("{\"step_id\": 41, \"source\": 7},\n")
	b.WriteString("{\"step_id\": 42, \"source\": \"agent\", \"message\": \"\"}\n]}\n")
	s, err := ATIF{}.Read(&b, Options{Source: "big.json"})
	require.NoError(t, err)
	assert.Equal(t, 40, len(s.Calls))
	require.Len(t, s.Warnings, 1)
	assert.Equal(t, 123, s.Warnings[0].Line)
	assert.Contains(t, s.Warnings[0].Message, "steps[40] (step_id 41) skipped: field source: expected a string, found number")
}
