#!/usr/bin/env bash
# bench-real.sh: CPU time and peak memory of retrievaltest on real-shaped
# traces made big, side by side with jq, from alternated runs.
#
# Usage: scripts/bench-real.sh [-n RUNS] [-b REF] [-k KINDS] [-m TIMES] [-r] [-t TREC_EVAL] [-i] [-o DIR]
#
#   -n RUNS   runs of each command; medians are reported (default 5)
#   -b REF    also build retrievaltest from the git REF (e.g. main) and run
#             it alternately with the working tree's build
#   -m TIMES  make the real-shaped trace files TIMES as large (default 1;
#             -m 2 measures 200 MB files, to check that time and memory
#             grow linearly with the input)
#   -r        build both binaries as the release builds retrievaltest
#             (.goreleaser.yaml: CGO_ENABLED=0 -trimpath -ldflags "-s -w"
#             -tags nodb,noparquet) instead of with a plain go build: the
#             start-up floor is then the one of the downloaded binary
#   -i        events, metrics and jq read each real-shaped trace from
#             standard input through a pipe (cat FILE | retrievaltest
#             events -), as when a user pipes a trace in; check, whose
#             scenario names its trace file, is left out
#   -o DIR    the OpenHands V1 conversation folder -k openhands-v1 is made
#             from (default: the one folder under
#             ../shared/samples/openhands-v1, if any). No real one is in the
#             samples; a real one (a gpt-4o-mini run of the OpenHands SDK,
#             8 events, 2 calls) is kept in the history of the SDK's
#             repository:
#               git clone --filter=blob:none --no-checkout \
#                 https://github.com/OpenHands/software-agent-sdk oh-sdk
#               git -C oh-sdk checkout 4f4c68c16 -- .pr/event-json-to-openai-messages
#             then -o oh-sdk/.pr/event-json-to-openai-messages/cd94562403b9487ebdd4018e3f531dfd/conversations/cd94562403b9487ebdd4018e3f531dfd
#   -t PATH   the trec_eval binary for -k trec (default: trec_eval on PATH).
#             Build it from its public source:
#               git clone https://github.com/usnistgov/trec_eval && make -C trec_eval
#   -k KINDS  comma-separated inputs to measure (default claude,codex,suite,trec;
#             collect is measured only when named):
#             claude  the Claude Code session
#                     ../shared/samples/claude-code-jsonl/dkimuson-fe5e1c67-*.jsonl
#                     repeated 130 times (101 MB, 21,710 calls), its
#                     toolu_, "uuid":" and "parentUuid":" values made
#                     unique per copy
#             suite   200 scenarios over 20 sessions: the Claude Code
#                     session above, each copy a file of its own, named by
#                     ten scenarios each (different expectations and ground
#                     truths); check runs them with -j 1 and -j 2
#             trec    trec on a generated run of 5M lines (5,000 queries x
#                     1,000 documents, 50 relevant each, 100 judged), with the
#                     default measures and with -q -m all_trec, against
#                     trec_eval 10.0 (-t); outputs compared byte for byte
#             codex   the Codex rollout
#                     ../shared/samples/codex/acidicsoil-rollout-*.jsonl
#                     repeated 296 times (101 MB), its "call_id":" values
#                     made unique per copy
#             gemini  the Gemini CLI session document
#                     ../shared/samples/gemini-cli/skillsbench-*.session.json
#                     (51 KB, 10 calls) with its messages repeated 1,960
#                     times in one messages array (100 MB), every "id"
#                     value made unique per copy
#             gemini-jsonl  the same session in the line format Gemini
#                     CLI writes now: the metadata record, then each
#                     message as a line, a message with tool calls first
#                     without them and then again whole (the same id
#                     replaces it), each followed by a $set of
#                     lastUpdated; 1,750 copies (100 MB)
#             openhands  the OpenHands V0 event list
#                     ../shared/samples/openhands/harbor-rfc-*.json
#                     (63 KB, 14 events) repeated 1,600 times in one array
#                     (100 MB), event ids and causes offset and
#                     "call_ ids made unique per copy
#             openhands-results  the OpenHands V0 event list
#                     ../shared/samples/openhands/openhands-runtime-trajs-basic_gui_mode.json
#                     (55 KB, 4 calls whose observations hold 6 KB of
#                     file listings and command output) repeated 1,820
#                     times (101 MB, 7,280 calls), event ids and causes
#                     offset and "toolu_ ids made unique per copy
#             openhands-eval  OpenHands evaluation output.jsonl: the same
#                     event list as the history of one instance a line,
#                     2,030 instances (100 MB)
#             openhands-v1  an OpenHands V1 conversation folder (-o):
#                     its base_state.json and first event (the system
#                     prompt) once, then its other events repeated with
#                     their ids (UUIDs, call_, chatcmpl-) made unique per
#                     copy, one file each, numbered on (100 MB; from the
#                     conversation above, 25,976 copies of 7 events:
#                     181,833 files, 51,952 calls); check, whose
#                     scenario names a trace file, and -i are left out
#             collect the receiver (retrievaltest collect) under 1,000
#                     export requests of 100 spans (protobuf, 31 KB each)
#                     posted over loopback by one client and by 8 at once,
#                     against a reference server that only writes each body
#                     and fsyncs it (TestReferenceServer in
#                     collect/load_bench_test.go); the figures are the
#                     servers' own: spans/s of wall time, CPU time, peak
#                     memory
#
# The samples folder lives beside the repository (../shared/samples from
# its root); without it the script stops. The big files are written to a
# temporary folder and deleted at the end.
#
# Each command runs under /usr/bin/time, the commands taking turns within
# each round so that a change in the machine's load touches all of them
# alike. The table gives the median CPU time (user + sys: steadier than
# wall time on a shared machine), the throughput against it, the median
# wall time, and the median and largest peak resident memory. The start-up
# floor is the peak memory of `events` on a two-line trace; memory above
# it is what the input costs. jq prints the tool names of the same file:
#
#   claude: jq -c 'select(.type=="assistant") | .message.content[]? | select(.type=="tool_use") | .name'
#   codex:  jq -c 'select(.type=="response_item") | .payload | select(.type=="function_call") | .name'
#   gemini: jq -c '.messages[] | .toolCalls[]? | .name'
#   gemini-jsonl: jq -c 'select(.toolCalls) | .toolCalls[] | .name'
#   openhands, openhands-results: jq -c '.[] | select(.tool_call_metadata) | .tool_call_metadata.function_name'
#   openhands-eval: the same on .history[] of each line
#   openhands-v1: jq -c 'select(.kind == "ActionEvent") | .tool_name' on the event files, concatenated
set -euo pipefail

runs=5 ref= kinds=claude,codex,suite,trec trec_eval=trec_eval times=1 release= stdin= v1conv=
while getopts "n:b:k:m:rt:io:" opt; do
	case $opt in
	n) runs=$OPTARG ;;
	b) ref=$OPTARG ;;
	k) kinds=$OPTARG ;;
	m) times=$OPTARG ;;
	r) release=1 ;;
	t) trec_eval=$OPTARG ;;
	i) stdin=1 ;;
	o) v1conv=$OPTARG ;;
	*) sed -n '2,113p' "$0" >&2; exit 2 ;;
	esac
done
[ -x /usr/bin/time ] || { echo "bench-real.sh: /usr/bin/time is needed (apt-get install time)" >&2; exit 2; }
command -v jq >/dev/null || { echo "bench-real.sh: jq is needed (apt-get install jq)" >&2; exit 2; }

root=$(git rev-parse --show-toplevel)
samples=$root/../shared/samples
[ -d "$samples" ] || { echo "bench-real.sh: $samples is absent; the real-shaped files are made from its traces" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# build DIR OUT: builds the command of the tree at DIR into OUT, as a plain
# go build does or, with -r, as the release does.
build() {
	if [ -n "$release" ]; then
		(cd "$1" && CGO_ENABLED=0 go build -tags nodb,noparquet -trimpath -ldflags "-s -w" -o "$2" ./cmd/retrievaltest)
	else
		(cd "$1" && go build -o "$2" ./cmd/retrievaltest)
	fi
}
echo "building${release:+ as the release does}..." >&2
build "$root" "$tmp/new"
bins=(new)
if [ -n "$ref" ]; then
	mkdir -p "$tmp/old-src"
	git -C "$root" archive "$ref" | tar -x -C "$tmp/old-src"
	build "$tmp/old-src" "$tmp/old"
	bins=(old new)
fi

# make KIND: writes $tmp/KIND.jsonl from its sample.
make_input() {
	local kind=$1 src copies i
	case $kind in
	claude)
		src=$(ls "$samples"/claude-code-jsonl/dkimuson-fe5e1c67-*.jsonl)
		copies=130
		for ((i = 0; i < copies; i++)); do
			sed "s/toolu_/toolu_${i}x/g; s/\"uuid\":\"/\"uuid\":\"${i}-/g; s/\"parentUuid\":\"/\"parentUuid\":\"${i}-/g" "$src"
		done >"$tmp/claude.jsonl"
		;;
	codex)
		src=$(ls "$samples"/codex/acidicsoil-rollout-*.jsonl)
		copies=296
		for ((i = 0; i < copies; i++)); do
			sed "s/\"call_id\":\"/\"call_id\":\"${i}x/g" "$src"
		done >"$tmp/codex.jsonl"
		;;
	gemini)
		src=$(ls "$samples"/gemini-cli/skillsbench-*.session.json)
		copies=$((1960 * times))
		# The session fields and "messages": [, then the messages of each
		# copy (the array's elements, indented as Gemini CLI writes them),
		# then the closing lines.
		{
			head -6 "$src"
			for ((i = 0; i < copies; i++)); do
				sed 1,6d "$src" | head -n -2 | sed "s/\"id\": \"/\"id\": \"${i}-/g"'; $s/}$/},/'
			done | sed '$s/},$/}/'
			tail -2 "$src"
		} >"$tmp/gemini.jsonl"
		;;
	gemini-jsonl)
		src=$(ls "$samples"/gemini-cli/skillsbench-*.session.json)
		copies=$((1750 * times))
		jq -c '.messages[] | (if .toolCalls then del(.toolCalls) else empty end), ., {"$set": {lastUpdated: .timestamp}}' "$src" >"$tmp/gemini.lines"
		{
			jq -c '{sessionId, projectHash, startTime, lastUpdated, kind: "main"}' "$src"
			for ((i = 0; i < copies; i++)); do
				sed "s/\"id\":\"/\"id\":\"${i}-/g" "$tmp/gemini.lines"
			done
		} >"$tmp/gemini-jsonl.jsonl"
		rm -f "$tmp/gemini.lines"
		;;
	openhands)
		src=$(ls "$samples"/openhands/harbor-rfc-*.json)
		copies=$((1600 * times))
		{
			echo "["
			for ((i = 0; i < copies; i++)); do
				sed 1d "$src" | head -n -1 | sed "s/\"call_/\"call_${i}x/g"'; $s/}$/},/' |
					perl -pe 's/"(id|cause)": (\d+)/"\"$1\": " . ($2 + '"$i"' * 1000)/ge'
			done | sed '$s/},$/}/'
			echo "]"
		} >"$tmp/openhands.jsonl"
		;;
	openhands-results)
		src=$(ls "$samples"/openhands/openhands-runtime-trajs-basic_gui_mode.json)
		copies=$((1820 * times))
		{
			echo "["
			for ((i = 0; i < copies; i++)); do
				sed 1d "$src" | head -n -1 | sed "s/\"toolu_/\"toolu_${i}x/g"'; $s/}$/},/' |
					perl -pe 's/"(id|cause)": (\d+)/"\"$1\": " . ($2 + '"$i"' * 1000)/ge'
			done | sed '$s/},$/}/'
			echo "]"
		} >"$tmp/openhands-results.jsonl"
		;;
	openhands-eval)
		src=$(ls "$samples"/openhands/harbor-rfc-*.json)
		copies=$((2030 * times))
		jq -c '{instance_id: "task-N", instruction: "Create hello.txt", metadata: {agent_class: "CodeActAgent", llm_config: {model: "openai/gpt-5"}},
			history: ., metrics: {accumulated_token_usage: ([.[] | .llm_metrics.accumulated_token_usage? // empty] | last)}, test_result: {git_patch: ""}, error: null}' "$src" >"$tmp/openhands.line"
		for ((i = 0; i < copies; i++)); do
			sed "s/\"task-N\"/\"task-${i}\"/" "$tmp/openhands.line"
		done >"$tmp/openhands-eval.jsonl"
		rm -f "$tmp/openhands.line"
		;;
	openhands-v1)
		src=$v1conv
		[ -n "$src" ] || src=$(ls -d "$samples"/openhands-v1/*/ 2>/dev/null | head -1)
		[ -d "$src/events" ] || { echo "bench-real.sh: -k openhands-v1 needs a V1 conversation folder: -o DIR (see the usage)" >&2; exit 2; }
		mkdir -p "$tmp/openhands-v1/events"
		cp "$src/base_state.json" "$tmp/openhands-v1/"
		# The first event (the system prompt) once, then the others
		# repeated until 100 MB, each a file named by its index and id.
		ls "$src"/events/event-*.json | sort | perl -e '
			my ($dir, $size) = @ARGV;
			chomp(my @names = <STDIN>);
			my @events = map { local $/; open my $f, "<", $_ or die "$_: $!"; scalar <$f> } @names;
			my $first = shift @events;
			my $write = sub {
				my ($n, $text) = @_;
				my ($id) = $text =~ /"id":"([^"]*)"/;
				open my $f, ">", sprintf("%s/events/event-%05d-%s.json", $dir, $n, $id) or die;
				print $f $text;
				return length $text;
			};
			my ($n, $total) = (0, 0);
			$total += $write->($n++, $first);
			for (my $i = 0; $total < $size; $i++) {
				my $hex = sprintf("%08x", $i);
				for my $e (@events) {
					(my $t = $e) =~ s/"[0-9a-f]{8}(-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")/"$hex$1/g;
					$t =~ s/"call_/"call_${i}x/g;
					$t =~ s/"chatcmpl-/"chatcmpl-${i}x/g;
					$total += $write->($n++, $t);
				}
			}' "$tmp/openhands-v1" $((100000000 * times))
		;;
	*) echo "bench-real.sh: unknown kind $kind (claude, codex, gemini, gemini-jsonl, openhands, openhands-results, openhands-eval, openhands-v1, suite, trec, collect)" >&2; exit 2 ;;
	esac
}

# make_suite: writes 20 sessions and 200 scenarios naming them to
# $tmp/suite.
make_suite() {
	local src i j
	src=$(ls "$samples"/claude-code-jsonl/dkimuson-fe5e1c67-*.jsonl)
	mkdir -p "$tmp/suite"
	for ((i = 0; i < 20; i++)); do
		sed "s/toolu_/toolu_${i}x/g; s/\"uuid\":\"/\"uuid\":\"${i}-/g; s/\"parentUuid\":\"/\"parentUuid\":\"${i}-/g" "$src" >"$tmp/suite/session-$i.jsonl"
		for ((j = 0; j < 10; j++)); do
			case $((j % 5)) in
			0) exp="  - type: patterns\n    forbid: [fishing]" ;;
			1) exp="  - type: retrieval\n    recall@5: {min: 0.5}\n    mrr: {min: 0.2}" ;;
			2) exp="  - type: tools\n    max_calls: 500\n    must_call: [Read]" ;;
			3) exp="  - type: budget\n    max_total_calls: 2000" ;;
			4) exp="  - type: index_usage\n    min_semantic_ratio: 0.1" ;;
			esac
			printf "name: s%d-%d\ntrace: session-%d.jsonl\nground_truth:\n  files: [file-%d.go, src/file-%d.ts]\nexpectations:\n$exp\n" "$i" "$j" "$i" "$j" "$j" >"$tmp/suite/s$i-$j.yaml"
		done
	done
}

jqfilter() {
	case $1 in
	claude) echo 'select(.type=="assistant") | .message.content[]? | select(.type=="tool_use") | .name' ;;
	codex) echo 'select(.type=="response_item") | .payload | select(.type=="function_call") | .name' ;;
	gemini) echo '.messages[] | .toolCalls[]? | .name' ;;
	gemini-jsonl) echo 'select(.toolCalls) | .toolCalls[] | .name' ;;
	openhands | openhands-results) echo '.[] | select(.tool_call_metadata) | .tool_call_metadata.function_name' ;;
	openhands-eval) echo '.history[] | select(.tool_call_metadata) | .tool_call_metadata.function_name' ;;
	openhands-v1) echo 'select(.kind == "ActionEvent") | .tool_name' ;;
	esac
}

# measure FILE CMD...: one run, appended to FILE as "wall cpu rss_kb".
measure() {
	local out=$1
	shift
	/usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "$@" >/dev/null 2>"$tmp/stderr" || {
		# check exits 1 when an expectation fails; that is a result.
		[ $? -eq 1 ] && [ "${2:-}" = check ] || { cat "$tmp/stderr" >&2; exit 1; }
	}
	# time puts "Command exited with non-zero status 1" on a line of its own
	# before the figures.
	tail -1 "$tmp/time" | awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' >>"$out"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# The floor: what the binary takes to start and read a two-line trace,
# whatever the input's size (the mapped binary, the runtime, the
# taxonomy).
cat >"$tmp/floor.jsonl" <<'JSONL'
{"type":"assistant","sessionId":"s","cwd":"/w","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/w/a.go"}}]}}
{"type":"user","sessionId":"s","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"package a"}]}}
JSONL

# serve_load NAME CLIENTS: starts the server NAME (reference, or a build
# of retrievaltest) on a free loopback port under /usr/bin/time, posts the
# load to it from CLIENTS clients, stops it with SIGINT, and appends
# "spans/s cpu rss_kb" to $tmp/collect-NAME-CLIENTS.times.
serve_load() {
	local name=$1 clients=$2 out=$tmp/collect-out pid child url rate i
	rm -rf "$out" "$tmp/serve.log"
	mkdir -p "$out"
	if [ "$name" = reference ]; then
		/usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "$tmp/collect.test" -test.run '^TestReferenceServer$' \
			-collect.reference 127.0.0.1:0 -collect.reference-dir "$out" >/dev/null 2>"$tmp/serve.log" &
	else
		/usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "$tmp/$name" collect -addr 127.0.0.1:0 -out "$out" >/dev/null 2>"$tmp/serve.log" &
	fi
	pid=$!
	for ((i = 0; i < 200; i++)); do
		url=$(grep -o 'http://127.0.0.1:[0-9]*' "$tmp/serve.log" 2>/dev/null | head -1) && [ -n "$url" ] && break
		sleep 0.05
	done
	[ -n "$url" ] || { cat "$tmp/serve.log" >&2; exit 1; }
	rate=$("$tmp/collect.test" -test.run '^TestLoadClient$' -collect.load "$url" -collect.clients "$clients" | grep 'spans/s' | cut -d' ' -f1)
	# /usr/bin/time passes no signal on: stop the server itself.
	child=$(pgrep -P "$pid")
	kill -INT "$child"
	wait "$pid"
	tail -1 "$tmp/time" | awk -v r="$rate" '{ printf "%s %.2f %s\n", r, $2 + $3, $4 }' >>"$tmp/collect-$name-$clients.times"
	rm -rf "$out"
}

IFS=, read -r -a kindlist <<<"$kinds"
for kind in "${kindlist[@]}"; do
	if [ "$kind" = collect ]; then
		echo "building the load client and the reference server..." >&2
		(cd "$root" && go test -c -o "$tmp/collect.test" ./collect)
		names=(reference)
		for bin in "${bins[@]}"; do names+=("$bin"); done
		rm -f "$tmp"/collect-*.times
		for ((i = 0; i < runs; i++)); do
			for clients in 1 8; do
				for name in "${names[@]}"; do serve_load "$name" "$clients"; done
			done
		done
		printf "\ncollect: 1,000 requests of 100 spans, %d alternated runs each, medians (the server's CPU and memory)\n\n" "$runs"
		printf "| %-10s | %7s | %9s | %8s | %11s |\n" server clients "spans/s" "cpu s" "RSS max MiB"
		printf "|%s|%s|%s|%s|%s|\n" ------------ ---------: -----------: ----------: ------------:
		for clients in 1 8; do
			for name in "${names[@]}"; do
				f=$tmp/collect-$name-$clients.times
				rate=$(cut -d' ' -f1 "$f" | median)
				cpu=$(cut -d' ' -f2 "$f" | median)
				rss=$(cut -d' ' -f3 "$f" | sort -n | tail -1)
				echo "$name-$clients $rate $cpu $rss" >>"$tmp/collect-summary"
				awk -v n="$name" -v c="$clients" -v r="$rate" -v u="$cpu" -v m="$rss" 'BEGIN { printf "| %-10s | %7d | %9.0f | %8.2f | %11.1f |\n", n, c, r, u, m / 1024 }'
			done
		done
		echo
		awk -v bins="${bins[*]}" '{ rate[$1] = $2; cpu[$1] = $3 } END {
			n = split(bins, bin, " ")
			for (i = 1; i <= n; i++) for (c = 1; c <= 8; c += 7)
				printf "%s, %d client(s): %.2fx the spans/s of the reference, %.2fx its cpu\n", bin[i], c, rate[bin[i] "-" c] / rate["reference-" c], cpu[bin[i] "-" c] / cpu["reference-" c]
		}' "$tmp/collect-summary"
		rm -f "$tmp/collect-summary"
		continue
	fi
	if [ "$kind" = trec ]; then
		command -v "$trec_eval" >/dev/null || {
			echo "bench-real.sh: $trec_eval not found; build trec_eval 10.0 (git clone https://github.com/usnistgov/trec_eval && make -C trec_eval) and pass -t PATH" >&2
			exit 2
		}
		echo "making a run of 5M lines..." >&2
		awk 'BEGIN { for (q = 1; q <= 5000; q++) for (d = 1; d <= 100; d++) printf "q%d 0 doc%d %d\n", q, (d * 13 + q) % 1000, (d <= 50) ? 1 + (d % 3 == 0) : 0 }' >"$tmp/big.qrels"
		awk 'BEGIN { srand(11); for (q = 1; q <= 5000; q++) for (r = 1; r <= 1000; r++) printf "q%d Q0 doc%d %d %.4f run1\n", q, (r * 7 + q * 3) % 1000, r, 1000 - r + rand() * 0.5 }' >"$tmp/big.run"
		names=(trec_eval)
		for bin in "${bins[@]}"; do names+=("$bin"); done
		rm -f "$tmp"/*.times "$tmp/summary"
		for measures in default all_trec; do
			args=()
			[ "$measures" = all_trec ] && args=(-q -m all_trec)
			for ((i = 0; i < runs; i++)); do
				for name in "${names[@]}"; do
					if [ "$name" = trec_eval ]; then
						measure "$tmp/$measures-$name.times" "$trec_eval" "${args[@]}" "$tmp/big.qrels" "$tmp/big.run"
						[ "$i" -eq 0 ] && "$trec_eval" "${args[@]}" "$tmp/big.qrels" "$tmp/big.run" >"$tmp/trec_eval.out"
					else
						measure "$tmp/$measures-$name.times" "$tmp/$name" trec "${args[@]}" "$tmp/big.qrels" "$tmp/big.run"
						if [ "$i" -eq 0 ]; then
							"$tmp/$name" trec "${args[@]}" "$tmp/big.qrels" "$tmp/big.run" >"$tmp/$name.out"
							cmp -s "$tmp/trec_eval.out" "$tmp/$name.out" && echo "$name trec -m $measures: output identical to trec_eval's" >&2 ||
								{ echo "bench-real.sh: $name trec -m $measures: output differs from trec_eval's" >&2; exit 1; }
						fi
					fi
				done
			done
		done
		printf "\ntrec: %d run lines (%d bytes), %d alternated runs each, medians\n\n" "$(wc -l <"$tmp/big.run")" "$(wc -c <"$tmp/big.run")" "$runs"
		printf "| %-22s | %7s | %7s | %11s |\n" command "cpu s" "wall s" "RSS max MiB"
		printf "|%s|%s|%s|%s|\n" ------------------------ ---------: ---------: ------------:
		for measures in default all_trec; do
			for name in "${names[@]}"; do
				f=$tmp/$measures-$name.times
				wall=$(cut -d' ' -f1 "$f" | median)
				cpu=$(cut -d' ' -f2 "$f" | median)
				rss=$(cut -d' ' -f3 "$f" | sort -n | tail -1)
				echo "$measures-$name $cpu $rss" >>"$tmp/summary"
				awk -v n="$name ($measures)" -v w="$wall" -v c="$cpu" -v r="$rss" 'BEGIN { printf "| %-22s | %7.2f | %7.2f | %11.1f |\n", n, c, w, r / 1024 }'
			done
		done
		echo
		awk -v bins="${bins[*]}" '{ cpu[$1] = $2; rss[$1] = $3 } END {
			n = split(bins, bin, " ")
			for (i = 1; i <= n; i++) for (m = 1; m <= 2; m++) {
				ms = (m == 1) ? "default" : "all_trec"
				printf "%s (%s): %.2fx the cpu of trec_eval, %.2fx its peak memory\n", bin[i], ms, cpu[ms "-" bin[i]] / cpu[ms "-trec_eval"], rss[ms "-" bin[i]] / rss[ms "-trec_eval"]
			}
		}' "$tmp/summary"
		rm -f "$tmp/big.qrels" "$tmp/big.run"
		continue
	fi
	if [ "$kind" = suite ]; then
		echo "making the suite of 200 scenarios over 20 sessions..." >&2
		make_suite
		names=()
		for bin in "${bins[@]}"; do names+=("$bin-j1" "$bin-j2"); done
		rm -f "$tmp"/*.times "$tmp/summary"
		for ((i = 0; i < runs; i++)); do
			for name in "${names[@]}"; do
				measure "$tmp/$name.times" "$tmp/${name%%-*}" check -j "${name#*-j}" "$tmp/suite"
			done
		done
		printf "\nsuite: check on 200 scenarios over 20 sessions of %d bytes, %d alternated runs each, medians\n\n" "$(wc -c <"$tmp/suite/session-0.jsonl")" "$runs"
		printf "| %-12s | %7s | %7s | %11s |\n" command "wall s" "cpu s" "RSS max MiB"
		printf "|%s|%s|%s|%s|\n" -------------- ---------: ---------: ------------:
		for name in "${names[@]}"; do
			wall=$(cut -d' ' -f1 "$tmp/$name.times" | median)
			cpu=$(cut -d' ' -f2 "$tmp/$name.times" | median)
			rss=$(cut -d' ' -f3 "$tmp/$name.times" | sort -n | tail -1)
			echo "$name $wall $cpu" >>"$tmp/summary"
			awk -v n="check $name" -v w="$wall" -v c="$cpu" -v r="$rss" 'BEGIN { printf "| %-12s | %7.2f | %7.2f | %11.1f |\n", n, w, c, r / 1024 }'
		done
		echo
		awk -v bins="${bins[*]}" '{ wall[$1] = $2; cpu[$1] = $3 } END {
			n = split(bins, bin, " ")
			for (i = 1; i <= n; i++) printf "%s: -j 1 / -j 2 %.2fx wall\n", bin[i], wall[bin[i] "-j1"] / wall[bin[i] "-j2"]
			if (n == 2) printf "old / new: -j 1 %.2fx cpu, -j 2 %.2fx wall\n", cpu["old-j1"] / cpu["new-j1"], wall["old-j2"] / wall["new-j2"]
		}' "$tmp/summary"
		rm -rf "$tmp/suite"
		continue
	fi
	if [ "$kind" = openhands-v1 ] && [ -n "$stdin" ]; then
		echo "bench-real.sh: -i: openhands-v1 is a folder, not read from standard input; skipped" >&2
		continue
	fi
	echo "making the real-shaped $kind file..." >&2
	make_input "$kind"
	file=$tmp/$kind.jsonl
	[ "$kind" = openhands-v1 ] && file=$tmp/$kind
	bytes=$(find "$file" -type f -printf '%s\n' | awk '{ n += $1 } END { print n }')
	cat >"$tmp/$kind.yaml" <<YAML
name: bench
trace: $(basename "$file")
expectations:
  - type: patterns
    forbid: [fishing]
YAML
	# A file of many sessions: check judges one, reading them all.
	[ "$kind" = openhands-eval ] && echo "trace_id: task-0" >>"$tmp/$kind.yaml"
	names=()
	cmds=(events metrics check)
	# A scenario names a trace file, not a folder.
	if [ -n "$stdin" ] || [ -d "$file" ]; then cmds=(events metrics); fi
	for bin in "${bins[@]}"; do
		for cmd in "${cmds[@]}"; do names+=("$bin-$cmd"); done
	done
	names+=(jq)
	for bin in "${bins[@]}"; do names+=("$bin-floor" "$bin-startup"); done
	rm -f "$tmp"/*.times "$tmp/summary"
	echo "running $runs rounds on $kind..." >&2
	for ((i = 0; i < runs; i++)); do
		for name in "${names[@]}"; do
			case $name in
			jq) if [ -n "$stdin" ]; then
				cat "$file" | measure "$tmp/$name.times" jq -c "$(jqfilter "$kind")"
			elif [ -d "$file" ]; then
				# Too many files for one command line.
				measure "$tmp/$name.times" sh -c 'find "$0/events" -name "*.json" -exec cat {} + | jq -c "$1"' "$file" "$(jqfilter "$kind")"
			else
				measure "$tmp/$name.times" jq -c "$(jqfilter "$kind")" "$file"
			fi ;;
			*-check) measure "$tmp/$name.times" "$tmp/${name%%-*}" check "$tmp/$kind.yaml" ;;
			*-floor) measure "$tmp/$name.times" "$tmp/${name%%-*}" events "$tmp/floor.jsonl" ;;
			# 20 starts in a row: one is below the resolution of time.
			*-startup) measure "$tmp/$name.times" sh -c 'for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do "$0" events "$1" >/dev/null; done' "$tmp/${name%%-*}" "$tmp/floor.jsonl" ;;
			*) if [ -n "$stdin" ]; then
				cat "$file" | measure "$tmp/$name.times" "$tmp/${name%%-*}" "${name#*-}" -
			else
				measure "$tmp/$name.times" "$tmp/${name%%-*}" "${name#*-}" "$file"
			fi ;;
			esac
		done
	done

	printf "\n%s%s: %d bytes (%.1f MB), %d alternated runs each, medians\n\n" "$kind" "${stdin:+, read from standard input}" "$bytes" "$(awk -v b="$bytes" 'BEGIN { print b / 1e6 }')" "$runs"
	printf "| %-12s | %7s | %8s | %7s | %11s | %11s |\n" command "cpu s" "cpu MB/s" "wall s" "RSS med MiB" "RSS max MiB"
	printf "|%s|%s|%s|%s|%s|%s|\n" -------------- ---------: ---------: ---------: ------------: ------------:
	for name in "${names[@]}"; do
		[[ $name == *-startup ]] && continue
		wall=$(cut -d' ' -f1 "$tmp/$name.times" | median)
		cpu=$(cut -d' ' -f2 "$tmp/$name.times" | median)
		rssmed=$(cut -d' ' -f3 "$tmp/$name.times" | median)
		rss=$(cut -d' ' -f3 "$tmp/$name.times" | sort -n | tail -1)
		echo "$name $wall $cpu $rss $rssmed" >>"$tmp/summary"
		awk -v n="$name" -v w="$wall" -v c="$cpu" -v r="$rss" -v m="$rssmed" -v b="$bytes" 'BEGIN {
			printf "| %-12s | %7.2f | %8.0f | %7.2f | %11.1f | %11.1f |\n", n, c, (c > 0 ? b / 1e6 / c : 0), w, m / 1024, r / 1024 }'
	done
	echo
	for bin in "${bins[@]}"; do
		wall=$(awk '{ print $1 / 20 }' "$tmp/$bin-startup.times" | median)
		cpu=$(awk '{ print $2 / 20 }' "$tmp/$bin-startup.times" | median)
		awk -v n="$bin" -v w="$wall" -v c="$cpu" 'BEGIN { printf "%s: start-up (events on a 2-line trace, 20 in a row, medians): %.1f ms wall, %.1f ms cpu each\n", n, 1000 * w, 1000 * c }'
	done
	awk -v b="$bytes" -v bins="${bins[*]}" '{ cpu[$1] = $3; rss[$1] = $4 } END {
		n = split(bins, bin, " ")
		for (i = 1; i <= n; i++) {
			p = bin[i]
			# check is not run with -i.
			chk = (p "-check") in cpu
			printf "%s: jq / events %.2fx cpu; metrics / events %.2fx cpu", p, cpu["jq"] / cpu[p "-events"], cpu[p "-metrics"] / cpu[p "-events"]
			if (chk) printf "; check / events %.2fx cpu", cpu[p "-check"] / cpu[p "-events"]
			printf "\n"
			f = rss[p "-floor"]
			printf "%s: start-up floor %.1f MiB; peak above it: events %.1f MiB (%.1f%% of input), metrics %.1f MiB (%.1f%%)", p, f / 1024,
				(rss[p "-events"] - f) / 1024, 100 * (rss[p "-events"] - f) * 1024 / b,
				(rss[p "-metrics"] - f) / 1024, 100 * (rss[p "-metrics"] - f) * 1024 / b
			if (chk) printf ", check %.1f MiB (%.1f%%)", (rss[p "-check"] - f) / 1024, 100 * (rss[p "-check"] - f) * 1024 / b
			printf "\n"
		}
		if (n == 2) {
			printf "old / new: events %.2fx cpu, metrics %.2fx cpu", cpu["old-events"] / cpu["new-events"], cpu["old-metrics"] / cpu["new-metrics"]
			if ("old-check" in cpu) printf ", check %.2fx cpu", cpu["old-check"] / cpu["new-check"]
			printf "\n"
		}
	}' "$tmp/summary"
	rm -rf "$file"
done
