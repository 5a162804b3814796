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
# one (internal/synthrun), and compares standard output, standard error,
# exit status and every file run-dir writes byte for byte. Files that are not
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
for f in "${inputs[@]}"; do
	for cmd in events metrics; do
		for bin in old new; do
			set +e
			"$tmp/$bin" "$cmd" "$f" >"$tmp/$bin.out" 2>"$tmp/$bin.err"
			echo "$?" >"$tmp/$bin.code"
			set -e
			# The binaries' names differ; nothing else may.
			sed -i "s#$tmp/$bin#retrievaltest#g" "$tmp/$bin.err"
		done
		compared=$((compared + 1))
		for part in out err code; do
			if ! cmp -s "$tmp/old.$part" "$tmp/new.$part"; then
				echo "DIFFERENT: $cmd $f (std$part)"
				diff "$tmp/old.$part" "$tmp/new.$part" | head -20 || true
				differ=$((differ + 1))
				break
			fi
		done
	done
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
echo "compared $compared outputs of events and metrics, and of run-dir on $rundirs runs, against $ref: $differ differ"
[ "$differ" -eq 0 ]
