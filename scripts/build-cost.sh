#!/usr/bin/env bash
# build-cost.sh: what the library and the command cost to build and to
# start, measured in one run.
#
# Usage: scripts/build-cost.sh [-n RUNS] [-b REF] [-s] [-l]
#
#   -n RUNS  runs of each start-up measure; the median is reported (default 20)
#   -b REF   also measure the git REF (e.g. main), built from a copy of its
#            tree, before the working tree
#   -s       skip the cold builds (package counts, sizes and start-up only)
#   -l       cold-build the library only, not the command (minutes less)
#
# For each tree it reports:
#
#   - packages: go list -deps of ./retrievaltest (the library a user's
#     go test gate imports), of ./retrievaltest/steps (with the Gherkin
#     steps) and of ./cmd/retrievaltest, without and with the allclouds
#     tag (the bucket drivers);
#   - cold builds: wall and CPU time (user + sys, steadier than wall time
#     on a shared machine) of go build with an empty GOCACHE, so that the
#     standard library is compiled too, as on a fresh machine. The library
#     is built as a user's module does: a new module that imports
#     retrievaltest, with a replace directive to the tree. The module
#     cache is shared (downloads are not compile time);
#   - the size of the command's binary, without and with allclouds, built
#     by go build as it is and as the release builds it (.goreleaser.yaml:
#     CGO_ENABLED=0 -trimpath -ldflags "-s -w", and -tags nodb,noparquet for the
#     build without allclouds);
#   - start-up: the median wall time, the CPU time and the median and
#     largest peak resident memory of "version", and of "events" on a
#     three-line trace, over RUNS runs, for each of the four binaries.
#
# Needs Go and /usr/bin/time (GNU time, for the peak memory).
set -euo pipefail

runs=20 ref= skipcold= libonly=
while getopts "n:b:sl" opt; do
	case $opt in
	n) runs=$OPTARG ;;
	b) ref=$OPTARG ;;
	s) skipcold=1 ;;
	l) libonly=1 ;;
	*) sed -n '2,32p' "$0" >&2; exit 2 ;;
	esac
done
[ -x /usr/bin/time ] || { echo "build-cost.sh: /usr/bin/time is needed (apt-get install time)" >&2; exit 2; }

root=$(git rev-parse --show-toplevel)
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
module=github.com/agentretrieval/agentretrieval

cat >"$tmp/tiny.jsonl" <<'JSONL'
{"parentUuid":null,"isSidechain":false,"cwd":"/w","sessionId":"s","type":"user","message":{"role":"user","content":"Find the parser."},"uuid":"u1","timestamp":"2026-01-01T10:00:00.000Z"}
{"parentUuid":"u1","isSidechain":false,"cwd":"/w","sessionId":"s","type":"assistant","message":{"id":"m1","type":"message","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/w/parse.go"}}],"usage":{"input_tokens":1,"output_tokens":1}},"uuid":"a1","timestamp":"2026-01-01T10:00:01.000Z"}
{"parentUuid":"a1","isSidechain":false,"cwd":"/w","sessionId":"s","type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"package parse"}]},"uuid":"u2","timestamp":"2026-01-01T10:00:02.000Z"}
JSONL

# cold LABEL DIR CMD...: one go build with an empty build cache, in DIR.
cold() {
	local label=$1 dir=$2
	shift 2
	local cache="$tmp/gocache-$RANDOM$RANDOM"
	mkdir "$cache"
	(cd "$dir" && GOCACHE="$cache" GOFLAGS=-mod=mod /usr/bin/time -f "%e %U %S" -o "$tmp/time" "$@" >/dev/null 2>"$tmp/stderr") ||
		{ cat "$tmp/stderr" >&2; exit 1; }
	awk -v l="$label" '{ printf "  %-38s %7.1f s wall %7.1f s cpu\n", l, $1, $2 + $3 }' "$tmp/time"
	rm -rf "$cache"
}

# startup LABEL CMD...: median wall time, median and largest peak memory of RUNS
# runs, and the CPU time (user + sys) of one run, from RUNS runs in a row
# (wall time waits for a core on a loaded machine; CPU time does not).
startup() {
	local label=$1
	shift
	: >"$tmp/runs"
	for _ in $(seq "$runs"); do
		/usr/bin/time -f "%M" -o "$tmp/rss" "$@" >/dev/null 2>&1
		local t0 t1
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1
		t1=$(date +%s%N)
		echo "$(( (t1 - t0) / 1000 )) $(cat "$tmp/rss")" >>"$tmp/runs"
	done
	/usr/bin/time -f "%U %S" -o "$tmp/cpu" bash -c 'for _ in $(seq "$0"); do "$@" >/dev/null 2>&1; done' "$runs" "$@"
	local cpu
	cpu=$(awk -v n="$runs" '{ printf "%.1f", ($1 + $2) * 1000 / n }' "$tmp/cpu")
	local rss
	rss=$(sort -n -k2 "$tmp/runs" | awk '{ r[NR] = $2 } END { print r[int((NR + 1) / 2)] }')
	sort -n "$tmp/runs" | awk -v l="$label" -v cpu="$cpu" -v med="$rss" '{ t[NR] = $1; if ($2 > m) m = $2 }
		END { printf "  %-38s %7.1f ms wall %6.1f ms cpu %6.1f MiB peak (median; largest %.1f)\n", l, t[int((NR + 1) / 2)] / 1000, cpu, med / 1024, m / 1024 }'
}

# label KIND: how a binary was built, for the table.
label() {
	case $1 in
	bin) echo "(go build)" ;;
	bin-clouds) echo "(go build, allclouds)" ;;
	rel) echo "(release, nodb,noparquet)" ;;
	rel-clouds) echo "(release, allclouds)" ;;
	esac
}

# measure NAME DIR: every figure for the tree in DIR.
measure() {
	local name=$1 src=$2
	local tag=${name//[^A-Za-z0-9]/_}
	echo "== $name"
	(
		cd "$src"
		printf "  %-38s %4d\n" "packages ./retrievaltest" "$(go list -deps ./retrievaltest | wc -l)"
		if [ -d retrievaltest/steps ]; then
			printf "  %-38s %4d\n" "packages ./retrievaltest/steps" "$(go list -deps ./retrievaltest/steps | wc -l)"
		fi
		printf "  %-38s %4d\n" "packages ./cmd/retrievaltest" "$(go list -deps ./cmd/retrievaltest | wc -l)"
		printf "  %-38s %4d\n" "packages ... -tags allclouds" "$(go list -tags allclouds -deps ./cmd/retrievaltest | wc -l)"
		go build -o "$tmp/$tag-bin" ./cmd/retrievaltest
		go build -tags allclouds -o "$tmp/$tag-bin-clouds" ./cmd/retrievaltest
		CGO_ENABLED=0 go build -tags nodb,noparquet -trimpath -ldflags "-s -w" -o "$tmp/$tag-rel" ./cmd/retrievaltest
		CGO_ENABLED=0 go build -tags allclouds -trimpath -ldflags "-s -w" -o "$tmp/$tag-rel-clouds" ./cmd/retrievaltest
	)
	local b
	for b in bin bin-clouds rel rel-clouds; do
		printf "  %-38s %6.1f MB\n" "binary $(label $b)" "$(stat -c %s "$tmp/$tag-$b" | awk '{ print $1 / 1e6 }')"
	done
	if [ -z "$skipcold" ]; then
		local user="$tmp/user-$tag"
		mkdir -p "$user"
		cat >"$user/go.mod" <<-MOD
			module example.com/gate

			go 1.26

			require $module v0.0.0

			replace $module => $src
		MOD
		printf 'package gate\n\nimport _ "%s/retrievaltest"\n' "$module" >"$user/gate.go"
		(cd "$user" && cp "$src/go.sum" . && GOFLAGS=-mod=mod go mod tidy >/dev/null 2>"$tmp/stderr") ||
			{ cat "$tmp/stderr" >&2; exit 1; }
		cold "cold build, user module (library)" "$user" go build ./...
		if [ -z "$libonly" ]; then
			cold "cold build, command" "$src" go build -o "$tmp/cold-bin" ./cmd/retrievaltest
			cold "cold build, command allclouds" "$src" go build -tags allclouds -o "$tmp/cold-bin" ./cmd/retrievaltest
		fi
	fi
	for b in bin bin-clouds rel rel-clouds; do
		startup "version $(label $b)" "$tmp/$tag-$b" version
		startup "events $(label $b)" "$tmp/$tag-$b" events "$tmp/tiny.jsonl"
	done
}

echo "$(nproc) cores, $(go version | cut -d' ' -f3-), load $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -n "$ref" ]; then
	mkdir -p "$tmp/ref-src"
	git -C "$root" archive "$ref" | tar -x -C "$tmp/ref-src"
	measure "$ref" "$tmp/ref-src"
fi
measure "working tree" "$root"
