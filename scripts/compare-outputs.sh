#!/usr/bin/env bash
# compare-outputs.sh [REF]
#
# Proves that the working tree writes the same documents as REF (default:
# the commit the branch forked from main, so that what main gained since
# is not counted as a change): it builds retrievaltest from REF (through git archive, so no
# checkout changes) and from the working tree, runs `events` and `metrics`
# with both on every file under the repository's testdata folders and
# under ../shared/samples (skipped when absent) and on generated sessions
# (internal/benchgen), and `run-dir` on the miniature run and a generated
# one (internal/synthrun), `check` (markdown and JSON reports, -j 1 and
# -j 2) on the project's scenarios, the known-bad ones of testdata/gate and
# a suite of 60 scenarios over 6 sessions, and `trec` on the TREC files of
# testdata/trec and a generated run of 200,000 lines, with the default
# measures and with -q -m all_trec, and compares standard output, standard
# error, exit status and every file run-dir writes byte for byte. Files that are not
# traces go through the same comparison: both binaries must refuse them in
# the same words.
#
# Exit status: 0 when every output is identical, 1 otherwise.
set -euo pipefail

root=$(git rev-parse --show-toplevel)
ref=${1:-$(git -C "$root" merge-base HEAD main)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/old-src"
git -C "$root" archive "$ref" | tar -x -C "$tmp/old-src"
(cd "$tmp/old-src" && go build -o "$tmp/old" ./cmd/retrievaltest)
(cd "$root" && go build -o "$tmp/new" ./cmd/retrievaltest)

inputs=()
while IFS= read -r f; do inputs+=("$f"); done < <(
	cd "$root" && find . -path ./.git -prune -o -type f -path '*/testdata/*' -print | sort
)
samples="$root/../shared/samples"
if [ -d "$samples" ]; then
	while IFS= read -r f; do inputs+=("$f"); done < <(find "$samples" -type f ! -name README.md | sort)
else
	echo "note: $samples is absent; comparing the testdata files only" >&2
fi

# Generated sessions too: a real-shaped one, one of large outputs, and one
# line of 20 MB, which the Claude reader compacts as it streams in.
for gen in real:8MB large:8MB single-line:20MB; do
	(cd "$root" && go test ./internal/benchgen -count 1 -run TestWriteFile \
		-benchgen.out="$tmp/generated-${gen%%:*}.jsonl" -benchgen.kind="${gen%%:*}" -benchgen.size="${gen#*:}" >/dev/null)
	inputs+=("$tmp/generated-${gen%%:*}.jsonl")
done

compared=0
differ=0
cd "$root"
# same ARGS...: runs both binaries with ARGS and compares what they print.
same() {
	for bin in old new; do
		set +e
		"$tmp/$bin" "$@" >"$tmp/$bin.out" 2>"$tmp/$bin.err"
		echo "$?" >"$tmp/$bin.code"
		set -e
		# The binaries' names differ; nothing else may.
		sed -i "s#$tmp/$bin#retrievaltest#g" "$tmp/$bin.err"
		if [ "$1" = check ]; then
			# check reports each scenario as it finishes, numbered in that
			# order, which depends on the scheduler: its progress lines are
			# compared without their numbers, in sorted order.
			sed 's#^check \[[0-9]*/[0-9]*\] #check [n/N] #' "$tmp/$bin.err" | sort >"$tmp/$bin.err.sorted"
			mv "$tmp/$bin.err.sorted" "$tmp/$bin.err"
		fi
	done
	compared=$((compared + 1))
	for part in out err code; do
		if ! cmp -s "$tmp/old.$part" "$tmp/new.$part"; then
			echo "DIFFERENT: $* (std$part)"
			diff "$tmp/old.$part" "$tmp/new.$part" | head -20 || true
			differ=$((differ + 1))
			break
		fi
	done
}
for f in "${inputs[@]}"; do
	for cmd in events metrics; do
		same "$cmd" "$f"
	done
done

# check: scenarios that pass, known-bad ones, and many scenarios over few
# sessions (each session read once for all of them).
mkdir -p "$tmp/suite"
suite_src=$(ls "$samples"/claude-code-jsonl/dkimuson-fe5e1c67-*.jsonl 2>/dev/null || echo "$root/testdata/examples/fix-token-expiry.claude.jsonl")
for ((i = 0; i < 6; i++)); do
	sed "s/toolu_/toolu_${i}x/g" "$suite_src" >"$tmp/suite/session-$i.jsonl"
	for ((j = 0; j < 10; j++)); do
		case $((j % 4)) in
		0) exp="  - type: patterns\n    forbid: [fishing]" ;;
		1) exp="  - type: retrieval\n    recall@5: {min: 0.5}\n    mrr: {min: 0.2}" ;;
		2) exp="  - type: tools\n    max_calls: 50\n    must_call: [Read]" ;;
		3) exp="  - type: index_usage\n    min_semantic_ratio: 0.1" ;;
		esac
		printf "name: s%d-%d\ntrace: session-%d.jsonl\nground_truth:\n  files: [file-%d.go, src/file-%d.ts]\nexpectations:\n$exp\n" "$i" "$j" "$i" "$j" "$j" >"$tmp/suite/s$i-$j.yaml"
	done
done
for dir in scenarios testdata/gate "$tmp/suite"; do
	for j in 1 2; do
		same check -j "$j" "$dir"
		same check -j "$j" -format json "$dir"
	done
done

# trec: the TREC files of testdata/trec, and a generated run.
awk 'BEGIN { for (q = 1; q <= 200; q++) for (d = 1; d <= 100; d++) printf "q%d 0 doc%d %d\n", q, (d * 13 + q) % 1000, (d <= 50) ? 1 + (d % 3 == 0) : 0 }' >"$tmp/gen.qrels"
awk 'BEGIN { srand(11); for (q = 1; q <= 200; q++) for (r = 1; r <= 1000; r++) printf "q%d Q0 doc%d %d %.4f run1\n", q, (r * 7 + q * 3) % 1000, r, 1000 - r + rand() * 0.5 }' >"$tmp/gen.run"
for pair in testdata/trec/cases.qrels:testdata/trec/cases.run testdata/trec/cases-in-run.qrels:testdata/trec/cases.run \
	testdata/trec/cases.qrels:testdata/trec/duplicate.run testdata/trec/malformed.qrels:testdata/trec/cases.run \
	testdata/trec/cases.qrels:testdata/trec/malformed.run "$tmp/gen.qrels:$tmp/gen.run"; do
	same trec "${pair%%:*}" "${pair#*:}"
	same trec -q -c -m all_trec "${pair%%:*}" "${pair#*:}"
done

# run-dir: every artifact, the summary and the HTML report, and the
# command's output, on the miniature run and on a generated run of 600
# trials, each evaluated twice into the same folder (the second run
# replaces every artifact). Both binaries write to "out" in their own
# folder, so that the paths they print are the same.
go run ./internal/synthrun/gen -tasks 100 -repeats 2 -run "$tmp/synth-run" -gt "$tmp/synth-gt" >/dev/null 2>&1
rundirs=0
for pair in "$root/testdata/runs/mini:$root/testdata/runs/gt" "$tmp/synth-run:$tmp/synth-gt"; do
	for bin in old new; do
		rm -rf "$tmp/rd-$bin"
		mkdir "$tmp/rd-$bin"
		for pass in 1 2; do
			set +e
			(cd "$tmp/rd-$bin" && "$tmp/$bin" run-dir -gt-root "${pair#*:}" -out out "${pair%%:*}" >"stdout$pass" 2>"stderr$pass")
			echo "$?" >"$tmp/rd-$bin/code$pass"
			set -e
			sed -i "s#$tmp/$bin#retrievaltest#g" "$tmp/rd-$bin/stderr$pass"
		done
	done
	compared=$((compared + 1))
	rundirs=$((rundirs + 1))
	if ! diff -r "$tmp/rd-old" "$tmp/rd-new" >"$tmp/rd.diff"; then
		echo "DIFFERENT: run-dir ${pair%%:*}"
		head -20 "$tmp/rd.diff"
		differ=$((differ + 1))
	fi
done
echo "compared $compared outputs of events, metrics, check and trec, and of run-dir on $rundirs runs, against $ref: $differ differ"
[ "$differ" -eq 0 ]
