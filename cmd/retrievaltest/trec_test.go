package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	trecCases      = "../../testdata/trec/"
	conformanceDir = "../../../shared/conformance/trec"
)

type trecOutcome struct {
	code           int
	stdout, stderr string
}

func runTrecArgs(t *testing.T, stdin string, args ...string) trecOutcome {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := runTrec(context.Background(), args, strings.NewReader(stdin), &stdout, &stderr)
	return trecOutcome{code, stdout.String(), stderr.String()}
}

// The default measures on testdata/trec/cases.*; the figures are worked out
// by hand in metrics/trec_eval_test.go. The four queries' AP are 5/9
// (short), 0 (none), 1/3 (ties), 29/48 (graded): gm_map =
// exp(mean(ln 5/9, ln 0.00001, ln 1/3, ln 29/48)) = 0.0325. bpref is 1/3
// (short: a above the one judged non-relevant, b below it), 0, 0 and 1/4
// (graded: only g3 above g4): mean 0.1458. Interpolated precision per
// query at shares 0-0.3, 0.4, 0.5-0.8, 0.9-1 (cutoffs round(share·R)):
// short (R=3; relevant at 1 and 3) 1, 1, 2/3, 0; none 0; ties (R=1;
// relevant at 3) 1/3 throughout; graded (R=4; relevant at 1, 3, 4) 1,
// 0.75, 0.75, 0 — means 0.5833, 0.5208, 0.4375, 0.0833.
const casesDefaultOutput = `runid                 	all	hand
num_q                 	all	4
num_ret               	all	12
num_rel               	all	9
num_rel_ret           	all	6
map                   	all	0.3733
gm_map                	all	0.0325
Rprec                 	all	0.3542
bpref                 	all	0.1458
recip_rank            	all	0.5833
iprec_at_recall_0.00  	all	0.5833
iprec_at_recall_0.10  	all	0.5833
iprec_at_recall_0.20  	all	0.5833
iprec_at_recall_0.30  	all	0.5833
iprec_at_recall_0.40  	all	0.5208
iprec_at_recall_0.50  	all	0.4375
iprec_at_recall_0.60  	all	0.4375
iprec_at_recall_0.70  	all	0.4375
iprec_at_recall_0.80  	all	0.4375
iprec_at_recall_0.90  	all	0.0833
iprec_at_recall_1.00  	all	0.0833
P_5                   	all	0.3000
P_10                  	all	0.1500
P_15                  	all	0.1000
P_20                  	all	0.0750
P_30                  	all	0.0500
P_100                 	all	0.0150
P_200                 	all	0.0075
P_500                 	all	0.0030
P_1000                	all	0.0015
`

func TestTrecPrintsTrecEvalOutput(t *testing.T) {
	t.Parallel()
	qrels, run := trecCases+"cases.qrels", trecCases+"cases.run"
	// Without -c, trec_eval 10.0 stops at the query "missing", which the
	// run lacks: those cases use the qrels without it.
	inRun := trecCases + "cases-in-run.qrels"
	runText, err := os.ReadFile(run)
	require.NoError(t, err)
	qrelsText, err := os.ReadFile(inRun)
	require.NoError(t, err)

	tests := []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{
			name: "with no -m it prints the default measures for all queries",
			args: []string{inRun, run},
			want: casesDefaultOutput,
		},
		{
			name: "-q prints each query in id order before the summary",
			args: []string{"-q", "-m", "map", inRun, run},
			want: "map                   \tgraded\t0.6042\n" +
				"map                   \tnone\t0.0000\n" +
				"map                   \tshort\t0.5556\n" +
				"map                   \tties\t0.3333\n" +
				"map                   \tall\t0.3733\n",
		},
		{
			name: "-c evaluates the query missing from the run and averages over 5",
			args: []string{"-c", "-q", "-m", "num_ret", "-m", "num_rel", "-m", "map", qrels, run},
			want: "num_ret               \tgraded\t4\nnum_rel               \tgraded\t4\nmap                   \tgraded\t0.6042\n" +
				"num_ret               \tmissing\t0\nnum_rel               \tmissing\t2\nmap                   \tmissing\t0.0000\n" +
				"num_ret               \tnone\t2\nnum_rel               \tnone\t1\nmap                   \tnone\t0.0000\n" +
				"num_ret               \tshort\t3\nnum_rel               \tshort\t3\nmap                   \tshort\t0.5556\n" +
				"num_ret               \tties\t3\nnum_rel               \tties\t1\nmap                   \tties\t0.3333\n" +
				"num_ret               \tall\t12\nnum_rel               \tall\t11\nmap                   \tall\t0.2986\n",
		},
		{
			name: "-l 2 changes map but not ndcg",
			args: []string{"-l", "2", "-m", "map", "-m", "ndcg", inRun, run},
			want: "map                   \tall\t0.0694\nndcg                  \tall\t0.4486\n",
		},
		{
			name: "measures print in trec_eval's order whatever the flag order",
			args: []string{"-m", "success.5,1", "-m", "P.1", "-m", "num_q", inRun, run},
			want: "num_q                 \tall\t4\nP_1                   \tall\t0.5000\nsuccess_1             \tall\t0.5000\nsuccess_5             \tall\t0.7500\n",
		},
		{
			name: "glued trec_eval spellings -l2 -mmap -qc are read",
			args: []string{"-qc", "-l2", "-mmap", qrels, run},
			want: "map                   \tgraded\t0.2778\nmap                   \tmissing\t0.0000\nmap                   \tnone\t0.0000\n" +
				"map                   \tshort\t0.0000\nmap                   \tties\t0.0000\nmap                   \tall\t0.0556\n",
		},
		{
			name: "flags after the files are read, as trec_eval's getopt reads them",
			args: []string{inRun, run, "-m", "num_q"},
			want: "num_q                 \tall\t4\n",
		},
		{
			name:  "the run can come from standard input",
			stdin: string(runText),
			args:  []string{"-m", "num_ret", inRun, "-"},
			want:  "num_ret               \tall\t12\n",
		},
		{
			name:  "the qrels can come from standard input",
			stdin: string(qrelsText),
			args:  []string{"-m", "num_rel", "-", run},
			want:  "num_rel               \tall\t9\n",
		},
		{
			name: "after -- a file name may start with a dash",
			args: []string{"-m", "num_q", "--", inRun, run},
			want: "num_q                 \tall\t4\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := runTrecArgs(t, tt.stdin, tt.args...)
			assert.Equal(t, trecOutcome{exitOK, tt.want, ""}, got)
		})
	}
}

func TestTrecRejectsBadInputWithExitCode2(t *testing.T) {
	t.Parallel()
	qrels, run := trecCases+"cases.qrels", trecCases+"cases.run"
	tests := []struct {
		name       string
		args       []string
		wantStderr string
	}{
		{"no files", nil, "want 2 files, QRELS and RUN; got 0"},
		{"one file", []string{qrels}, "want 2 files, QRELS and RUN; got 1"},
		{"three files", []string{qrels, run, run}, "got 3"},
		{"an unknown flag", []string{"-x", qrels, run}, "flag provided but not defined: -x"},
		{"a level that is not a number", []string{"-l", "two", qrels, run}, `invalid value "two" for flag -l`},
		{"a negative level", []string{"-l", "-1", qrels, run}, "-l -1: the level must be 0 or more"},
		{"an unknown measure", []string{"-m", "bogus", qrels, run}, `-m: unknown measure "bogus"`},
		{"a negative -M", []string{"-M", "-1", qrels, run}, "-M -1: the number of documents must be 0 or more"},
		{"a bad cutoff", []string{"-m", "P.0", qrels, run}, "cutoff 0 is not positive"},
		{"a qrels file that does not exist", []string{trecCases + "absent.qrels", run}, "qrels: open " + trecCases + "absent.qrels"},
		{"a run file that does not exist", []string{qrels, trecCases + "absent.run"}, "run: open " + trecCases + "absent.run"},
		{"a malformed qrels line, named by file and line", []string{trecCases + "malformed.qrels", run}, trecCases + "malformed.qrels:2: malformed line"},
		{"a malformed run line, named by file and line", []string{qrels, trecCases + "malformed.run"}, trecCases + `malformed.run:2: malformed line: score "high" is not a number`},
		{"a document listed twice in the run", []string{qrels, trecCases + "duplicate.run"}, trecCases + `duplicate.run:3: duplicate document "d1" for query "q1"`},
		{"both files from standard input", []string{"-", "-"}, "only one of QRELS and RUN can be standard input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := runTrecArgs(t, "", tt.args...)
			assert.Equal(t, exitBadInput, got.code)
			assert.Empty(t, got.stdout)
			assert.Contains(t, got.stderr, tt.wantStderr)
		})
	}
}

func TestTrecHelpGoesToStdout(t *testing.T) {
	t.Parallel()
	got := runTrecArgs(t, "", "-h")
	assert.Equal(t, exitOK, got.code)
	assert.Contains(t, got.stdout, "Usage: retrievaltest trec [-q] [-c] [-n] [-J] [-l LEVEL] [-M N] [-N N]")
	assert.Contains(t, got.stdout, "-m NAME[.PARAMS]")
	assert.Empty(t, got.stderr)
}

func TestRunDispatchesTrec(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"trec", trecCases + "cases-in-run.qrels", trecCases + "cases.run"}, strings.NewReader(""), &stdout, &stderr)
	assert.Equal(t, exitOK, code)
	assert.Equal(t, casesDefaultOutput, stdout.String())
	assert.Empty(t, stderr.String())
}

func TestTrecMatchesTrecEvalConformanceFiles(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(filepath.Join(conformanceDir, "README.md"))
	if err != nil {
		t.Skipf("trec_eval reference files not available (%v)", err)
	}
	var measures []string
	for _, m := range regexp.MustCompile(`-m (\S+)`).FindAllStringSubmatch(string(readme), -1) {
		measures = append(measures, "-m", m[1])
	}
	require.NotEmpty(t, measures)
	files := []string{filepath.Join(conformanceDir, "qrels"), filepath.Join(conformanceDir, "run")}

	tests := []struct {
		name     string
		level    []string
		expected string
	}{
		{"trec -c -q at the default level", nil, "expected.trec_eval"},
		{"trec -c -q -l 2", []string{"-l", "2"}, "expected.l2.trec_eval"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			want, err := os.ReadFile(filepath.Join(conformanceDir, tt.expected))
			require.NoError(t, err)
			args := append(append(append([]string{"-c", "-q"}, tt.level...), measures...), files...)
			got := runTrecArgs(t, "", args...)
			assert.Equal(t, exitOK, got.code)
			assert.Empty(t, got.stderr)
			assert.Equal(t, string(want), got.stdout, "output differs from trec_eval's %s", tt.expected)
		})
	}
}

// The flags -J, -n and -Z, and a qrels query the run lacks, give the bytes
// and exit status of trec_eval 10.0 (its outputs are in
// testdata/trec/trec_eval, with the flags in its README).
func TestTrecMatchesTrecEvalOnItsOtherFlags(t *testing.T) {
	t.Parallel()
	files := []string{trecCases + "cases.qrels", trecCases + "cases.run"}
	z := trecCases + "cases.zscores"
	zMeasures := []string{"-m", "num_ret", "-m", "num_rel", "-m", "num_rel_ret", "-m", "map", "-m", "gm_map", "-m", "P.5,10"}
	tests := []struct {
		name     string
		flags    []string
		expected string
		code     int
	}{
		{"-J drops unjudged documents, and an empty ranking prints -nan", []string{"-q", "-c", "-J", "-m", "all_trec"}, "J.qc.all_trec", exitOK},
		{"-n prints no summary", []string{"-q", "-c", "-n", "-m", "official"}, "n.qc", exitOK},
		{"a query the run lacks stops after the queries before it, with status 4", []string{"-q", "-m", "all_trec"}, "q.all_trec.missing", exitTrecQueryNotInRun},
		{"-Z prints z-scores", append([]string{"-q", "-c", "-Z", z, "-m", "runid", "-m", "num_q"}, zMeasures...), "Z.qc", exitOK},
		{"-Z and -J together", append([]string{"-q", "-c", "-J", "-Z", z}, zMeasures...), "JZ.qc", exitOK},
		{"yaap", []string{"-q", "-c", "-m", "yaap"}, "yaap.qc", exitOK},
		{"-N gives utility the collection size", []string{"-q", "-c", "-m", "utility.1,-1,0.5,0.25", "-N", "50"}, "N.qc", exitOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			want, err := os.ReadFile(trecCases + "trec_eval/" + tt.expected)
			require.NoError(t, err)
			got := runTrecArgs(t, "", append(tt.flags, files...)...)
			assert.Equal(t, tt.code, got.code, got.stderr)
			assert.Equal(t, string(want), got.stdout)
			if tt.code == exitTrecQueryNotInRun {
				assert.Contains(t, got.stderr, `query "missing": the run has no results for a query of the qrels`)
			}
		})
	}
}

func TestTrecRefusesNumbersTrecEvalWouldReadOtherwise(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	qrels := filepath.Join(dir, "q")
	require.NoError(t, os.WriteFile(qrels, []byte("q1 0 d1 1e1\n"), 0o644))
	run := filepath.Join(dir, "r")
	require.NoError(t, os.WriteFile(run, []byte("q1 Q0 d1 1 1_000 r\n"), 0o644))
	good := trecCases + "cases-in-run.qrels"
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a relevance with an exponent", []string{qrels, trecCases + "cases.run"}, `relevance "1e1": number that trec_eval would read differently; trec_eval's atol would read it as 1`},
		{"a score with a digit separator", []string{good, run}, `score "1_000": number that trec_eval would read differently; trec_eval's atof would read only "1"`},
		{"a level written as a decimal", []string{"-l", "2.5", good, trecCases + "cases.run"}, `invalid value "2.5" for flag -l: "2.5": number that trec_eval would read differently; trec_eval's atol would read it as 2`},
		{"-M in hexadecimal, which Go's flag package would read as 5", []string{"-M", "0x5", good, trecCases + "cases.run"}, `atol would read it as 0`},
		{"preferences with a relevance measure", []string{"-R", "prefs", "-m", "map", trecCases + "cases.prefs", trecCases + "cases-prefs.run"}, "with preferences (-R prefs, qrels_prefs) only runid, num_q and the prefs measures are computed"},
		{"an unknown qrels format", []string{"-R", "qrel", good, trecCases + "cases.run"}, "-R qrel: unknown qrels format; want qrels, qrels_jg, prefs or qrels_prefs"},
		{"judgment groups with a plain measure", []string{"-R", "qrels_jg", "-m", "map", trecCases + "cases.qrels_jg", trecCases + "cases.run"}, "only runid, num_q, map_avgjg, P_avgjg and Rprec_mult_avgjg are computed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := runTrecArgs(t, "", tt.args...)
			assert.Equal(t, exitBadInput, got.code)
			assert.Empty(t, got.stdout)
			assert.Contains(t, got.stderr, tt.want)
		})
	}
	got := runTrecArgs(t, "", "-l", "010", "-m", "num_rel", good, trecCases+"cases.run")
	assert.Equal(t, trecOutcome{exitOK, "num_rel               \tall\t0\n", ""}, got, "-l 010 is level 10, as atol reads it, not 8")
}

func TestTrecHelpDefinesTheMeasuresAsked(t *testing.T) {
	t.Parallel()
	got := runTrecArgs(t, "", "-h", "-m", "bpref")
	assert.Equal(t, exitOK, got.code)
	assert.Contains(t, got.stdout, "\nMeasures:\nbpref\n    Binary preference:")
	assert.NotContains(t, got.stdout, "\nmap\n")
	all := runTrecArgs(t, "", "-h")
	for _, m := range []string{"runid", "gm_map", "iprec_at_recall", "infAP", "Rndcg", "set_F", "rbp_resid", "unj"} {
		assert.Contains(t, all.stdout, "\n"+m+"\n    ", m)
	}
}

func TestTrecReadsOtherQrelsFormatsAsTrecEvalDoes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		expected string
		args     []string
	}{
		{"jg.qc", []string{"-q", "-c", "-m", "qrels_jg", "-R", "qrels_jg", trecCases + "cases.qrels_jg", trecCases + "cases.run"}},
		{"prefs.q", []string{"-q", "-m", "all_prefs", "-R", "prefs", trecCases + "cases.prefs", trecCases + "cases-prefs.run"}},
		{"qrels_prefs.qc", []string{"-q", "-c", "-m", "all_prefs", "-R", "qrels_prefs", trecCases + "cases.qrels", trecCases + "cases.run"}},
	}
	for _, tt := range tests {
		t.Run(tt.expected, func(t *testing.T) {
			t.Parallel()
			want, err := os.ReadFile(trecCases + "trec_eval/" + tt.expected)
			require.NoError(t, err)
			assert.Equal(t, trecOutcome{exitOK, string(want), ""}, runTrecArgs(t, "", tt.args...))
		})
	}
}

// trecEvalSuiteEnv names a checkout of usnistgov/trec_eval whose test
// folder holds trec_eval's own test suite (the quicktest of its Makefile).
const trecEvalSuiteEnv = "TREC_EVAL_SRC"

// The test suite of trec_eval itself, where its files are at hand: every
// case of its quicktest must give its expected output byte for byte.
func TestTrecPassesTrecEvalsOwnTestSuite(t *testing.T) {
	t.Parallel()
	src := os.Getenv(trecEvalSuiteEnv)
	if src == "" {
		t.Skipf("set %s to a trec_eval checkout to run its test suite", trecEvalSuiteEnv)
	}
	dir := filepath.Join(src, "test")
	p := func(name string) string { return filepath.Join(dir, name) }
	measParams := strings.Fields("-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 -m Rprec_mult.5.0,0.2,0.35 -mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 -mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20")
	tests := []struct {
		expected string
		args     []string
	}{
		{"out.test", []string{p("qrels.test"), p("results.test")}},
		{"out.test", []string{p("qrels.test.with-comments"), p("results.test")}},
		{"out.comment.test", []string{p("qrels.comment.test"), p("results.comment.test")}},
		{"out.test.a", []string{"-m", "all_trec", p("qrels.test"), p("results.test")}},
		{"out.test.aq", []string{"-m", "all_trec", "-q", p("qrels.test"), p("results.test")}},
		{"out.test.aqc", []string{"-m", "all_trec", "-q", "-c", p("qrels.test"), p("results.trunc")}},
		{"out.test.aqcM", []string{"-m", "all_trec", "-q", "-c", "-M100", p("qrels.test"), p("results.trunc")}},
		{"out.test.aql", []string{"-m", "all_trec", "-mrelstring.20", "-q", "-l2", p("qrels.rel_level"), p("results.test")}},
		{"out.test.prefs", []string{"-m", "all_prefs", "-q", "-R", "prefs", p("prefs.test"), p("prefs.results.test")}},
		{"out.test.prefs", []string{"-m", "all_prefs", "-q", "-R", "prefs", p("prefs.comment.test"), p("prefs.results.test")}},
		{"out.test.qrels_prefs", []string{"-m", "all_prefs", "-q", "-R", "qrels_prefs", p("qrels.test"), p("results.test")}},
		{"out.test.qrels_jg", []string{"-m", "qrels_jg", "-q", "-R", "qrels_jg", p("qrels.123"), p("results.test")}},
		{"out.test.qrels_jg", []string{"-m", "qrels_jg", "-q", "-R", "qrels_jg", p("qrels.comments.123"), p("results.test")}},
		{"out.test.meas_params", append(measParams, p("qrels.test"), p("results.test"))},
		{"out.test.aqZ", []string{"-q", "-m", "all_trec", "-Z", p("zscores_file"), p("qrels.test"), p("results.test")}},
	}
	for _, tt := range tests {
		t.Run(tt.expected, func(t *testing.T) {
			t.Parallel()
			want, err := os.ReadFile(p(tt.expected))
			require.NoError(t, err)
			got := runTrecArgs(t, "", tt.args...)
			assert.Equal(t, trecOutcome{exitOK, string(want), ""}, got)
		})
	}
}
