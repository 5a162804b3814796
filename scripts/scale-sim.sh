#!/usr/bin/env bash
# scale-sim.sh [-b BINARY] [-s SHARDS] [-j JOBS] TASKS...
#
# Measures run-dir and merge on generated runs (internal/synthrun: 3
# configurations, 4 trials of each task in each): for each TASKS, a run of
# TASKS×12 trials is generated, then evaluated whole, then in SHARDS
# shards writing into one shared output folder, and the shards merged.
# Every stage is timed with /usr/bin/time -v: wall time, CPU time (user +
# system) and peak RSS. The merged summary and trials table are compared
# with the whole run's, byte for byte (cmp), and the sizes of what the
# shards wrote for the merge are printed. With a plan-capable binary the shards read a
# plan written once (run-dir -plan) instead of each listing the run.
#
# -m BINARY also times the merge of the same shards by another build, into
# a folder of its own (a merge's cost before and after a change, without
# evaluating the run twice).
#
# With more than 10 shards, the shards are summed on one line (CPU time
# in all, the range of wall times and the largest peak RSS) instead of
# one line each; -v prints every shard. The last line of each run gives
# the merge's wall and CPU time as a share of the whole run's evaluation.
#
# Example: scripts/scale-sim.sh -s 10 237 952     # 2,844 and 11,424 trials
#          scripts/scale-sim.sh -s 100 8334       # 100,008 trials in 100 shards
set -euo pipefail

root=$(git rev-parse --show-toplevel)
bin= other= shards=10 jobs=2 verbose=no
while getopts b:m:s:j:v o; do
	case $o in
	b) bin=$OPTARG ;;
	m) other=$OPTARG ;;
	s) shards=$OPTARG ;;
	j) jobs=$OPTARG ;;
	v) verbose=yes ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: $0 [-b BINARY] [-m BINARY] [-s SHARDS] [-j JOBS] [-v] TASKS..." >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$bin" ]; then
	bin=$tmp/retrievaltest
	(cd "$root" && go build -o "$bin" ./cmd/retrievaltest)
fi
(cd "$root" && go build -o "$tmp/gen" ./internal/synthrun/gen)
plan=no
# Not "-h | grep -q": with pipefail, grep leaving early makes the help's
# writer fail, and the pipeline with it.
help=$("$bin" run-dir -h 2>&1 || true)
if grep -q -- '-plan' <<<"$help"; then plan=yes; fi

# measure NAME CMD...: runs CMD under /usr/bin/time -v, prints a line
# (unless quiet=yes) and appends "NAME WALL CPU RSS_MB" to $tmp/figures.
quiet=no
measure() {
	local name=$1
	shift
	local code=0
	/usr/bin/time -v -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" || code=$?
	if [ "$code" -gt 2 ]; then
		cat "$tmp/err" >&2
		exit 1
	fi
	awk -v name="$name" -v quiet="$quiet" -v figures="$tmp/figures" -F': ' '
		/Elapsed \(wall clock\)/ { n = split($2, p, ":"); wall = 0; for (i = 1; i <= n; i++) wall = wall * 60 + p[i] }
		/User time/ { cpu += $2 } /System time/ { cpu += $2 }
		/Maximum resident set size/ { rss = $2 / 1024 }
		END {
			if (quiet != "yes") printf "%-28s wall %7.2f s  cpu %7.2f s  max RSS %7.1f MB\n", name, wall, cpu, rss
			gsub(/ /, "_", name); printf "%s %f %f %f\n", name, wall, cpu, rss >> figures
		}' "$tmp/time"
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
	quiet=no
	if [ "$shards" -gt 10 ] && [ "$verbose" = no ]; then quiet=yes; fi
	for k in $(seq 1 "$shards"); do
		measure "run-dir -shard $k/$shards" "$bin" run-dir -j "$jobs" "${planflag[@]}" -shard "$k/$shards" -gt-root "$gt" -out "$tmp/shared" "$run"
	done
	quiet=no
	if [ "$shards" -gt 10 ] && [ "$verbose" = no ]; then
		awk -v n="$shards" '$1 ~ /^run-dir_-shard_/ {
			k++; cpu += $3; if (k == 1 || $2 < lo) lo = $2; if ($2 > hi) hi = $2; if ($4 > rss) rss = $4 }
			END { printf "%-28s wall %.2f–%.2f s each  cpu %7.2f s in all  max RSS %7.1f MB\n", n " shards", lo, hi, cpu, rss }' "$tmp/figures"
	fi
	if [ -n "$other" ]; then
		measure "merge by -m, elsewhere" "$other" merge -max-input-size 1GiB -out "$tmp/other" "$tmp/shared"
		rm -rf "$tmp/other"
	fi
	measure "merge" "$bin" merge -max-input-size 1GiB -out "$tmp/shared" "$tmp/shared"
	awk '$1 == "run-dir_whole" { w = $2; c = $3 } $1 ~ /^run-dir_-shard_/ { sc += $3 } $1 == "merge" { mw = $2; mc = $3 }
		END { printf "merge: %.1f%% of the whole run'"'"'s wall time, %.1f%% of its CPU time, %.1f%% of the shards'"'"' CPU time\n", 100 * mw / w, 100 * mc / c, 100 * mc / sc }' "$tmp/figures"
	rm -f "$tmp/figures"
	for f in run_retrieval_summary.json run_retrieval_trials.parquet; do
		[ -f "$tmp/whole/$f" ] || continue
		if cmp -s "$tmp/whole/$f" "$tmp/shared/$f"; then
			echo "merged $f: identical to the whole run's ($(wc -c <"$tmp/whole/$f") bytes)"
		else
			echo "merged $f: DIFFERS from the whole run's" >&2
			exit 1
		fi
	done
	du -sb "$tmp/shared" | awk '{ printf "shared output folder: %.1f MB\n", $1 / 1e6 }'
	ls "$tmp/shared" | grep -q '\.shard-.*\.trials$' && cat "$tmp/shared"/*.shard-*.trials | wc -c | awk '{ printf "shard trials files: %.1f MB in all\n", $1 / 1e6 }'
	cat "$tmp/shared"/*.shard-*.json | wc -c | awk '{ printf "shard summaries: %.1f MB in all\n", $1 / 1e6 }' 
	rm -rf "$run" "$gt" "$tmp/whole" "$tmp/shared" "$tmp/plan.jsonl"
done
