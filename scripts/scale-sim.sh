#!/usr/bin/env bash
# scale-sim.sh [-b BINARY] [-s SHARDS] [-j JOBS] TASKS...
#
# Measures run-dir and merge on generated runs (internal/synthrun: 3
# configurations, 4 trials of each task in each): for each TASKS, a run of
# TASKS×12 trials is generated, then evaluated whole, then in SHARDS
# shards writing into one shared output folder, and the shards merged.
# Every stage is timed with /usr/bin/time -v: wall time, CPU time (user +
# system) and peak RSS. The merged summary is compared with the whole
# run's, byte for byte (cmp). With a plan-capable binary the shards read a
# plan written once (run-dir -plan) instead of each listing the run.
#
# Example: scripts/scale-sim.sh -s 10 237 952     # 2,844 and 11,424 trials
set -euo pipefail

root=$(git rev-parse --show-toplevel)
bin= shards=10 jobs=2
while getopts b:s:j: o; do
	case $o in
	b) bin=$OPTARG ;;
	s) shards=$OPTARG ;;
	j) jobs=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: $0 [-b BINARY] [-s SHARDS] [-j JOBS] TASKS..." >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$bin" ]; then
	bin=$tmp/retrievaltest
	(cd "$root" && go build -o "$bin" ./cmd/retrievaltest)
fi
(cd "$root" && go build -o "$tmp/gen" ./internal/synthrun/gen)
plan=no
if "$bin" run-dir -h 2>&1 | grep -q -- '-plan'; then plan=yes; fi

# measure NAME CMD...: runs CMD under /usr/bin/time -v and prints a line.
measure() {
	local name=$1
	shift
	local code=0
	/usr/bin/time -v -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" || code=$?
	if [ "$code" -gt 2 ]; then
		cat "$tmp/err" >&2
		exit 1
	fi
	awk -v name="$name" -F': ' '
		/Elapsed \(wall clock\)/ { n = split($2, p, ":"); wall = 0; for (i = 1; i <= n; i++) wall = wall * 60 + p[i] }
		/User time/ { cpu += $2 } /System time/ { cpu += $2 }
		/Maximum resident set size/ { rss = $2 / 1024 }
		END { printf "%-28s wall %7.2f s  cpu %7.2f s  max RSS %7.1f MB\n", name, wall, cpu, rss }' "$tmp/time"
}

for tasks in "$@"; do
	run=$tmp/run-$tasks gt=$tmp/gt-$tasks
	"$tmp/gen" -tasks "$tasks" -repeats 4 -run "$run" -gt "$gt" 2>&1
	measure "run-dir whole" "$bin" run-dir -j "$jobs" -gt-root "$gt" -out "$tmp/whole" "$run"
	planflag=()
	if [ "$plan" = yes ]; then
		measure "run-dir -plan" "$bin" run-dir -plan "$tmp/plan.jsonl" -shards "$shards" -gt-root "$gt" "$run"
		planflag=(-plan "$tmp/plan.jsonl")
	fi
	for k in $(seq 1 "$shards"); do
		measure "run-dir -shard $k/$shards" "$bin" run-dir -j "$jobs" "${planflag[@]}" -shard "$k/$shards" -gt-root "$gt" -out "$tmp/shared" "$run"
	done
	measure "merge" "$bin" merge -max-input-size 1GiB -out "$tmp/shared" "$tmp/shared"
	if cmp -s "$tmp/whole/run_retrieval_summary.json" "$tmp/shared/run_retrieval_summary.json"; then
		echo "merged summary: identical to the whole run's ($(wc -c <"$tmp/whole/run_retrieval_summary.json") bytes)"
	else
		echo "merged summary: DIFFERS from the whole run's" >&2
		exit 1
	fi
	rm -rf "$run" "$gt" "$tmp/whole" "$tmp/shared" "$tmp/plan.jsonl"
done
