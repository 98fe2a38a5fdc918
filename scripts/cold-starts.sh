#!/usr/bin/env bash
# Init Duration of every function of a template on the local cloud: starts
# `localcloud serve` ROUNDS times (default 5), each time invokes every function
# once with `{}` (a cold start; the handlers reject that event, but for the
# reply-queue sweeper, which sweeps), and prints each function's Init
# Duration from the REPORT lines the local cloud writes to its function logs,
# with the median.
#
#   scripts/cold-starts.sh                    # target/release, template.yaml, 5 rounds
#   ROUNDS=9 BINARIES_DIR=target/release TEMPLATE=template.yaml scripts/cold-starts.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${BINARIES_DIR:-target/release}"
template="${TEMPLATE:-template.yaml}"
rounds="${ROUNDS:-5}"
work=$(mktemp -d)
server_pid=
cleanup() {
    if [[ -n "$server_pid" ]]; then kill -INT "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

for round in $(seq "$rounds"); do
    dir="$work/$round"
    mkdir -p "$dir"
    "$bin/localcloud" serve --bind 127.0.0.1:0 --stack-name cold --template "$template" \
        --binaries-dir "$bin" --log-dir "$dir/logs" --endpoints-file "$dir/endpoints.json" \
        --parameter-overrides "JwtSecret=$(printf 'x%.0s' {1..40})" >"$dir/localcloud.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 300); do [[ -s "$dir/endpoints.json" ]] && break; sleep 0.1; done
    endpoint=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["endpoint"])' "$dir/endpoints.json")
    for name in $(python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["functions"].values()))' "$dir/endpoints.json"); do
        curl -s -o /dev/null -X POST -d '{}' "$endpoint/2015-03-31/functions/$name/invocations"
    done
    kill -INT "$server_pid"
    wait "$server_pid" 2>/dev/null || true
    server_pid=
done

python3 - "$work" "$rounds" <<'PY'
import glob, json, os, re, statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
inits = {}
for round in range(1, rounds + 1):
    functions = json.load(open(f"{work}/{round}/endpoints.json"))["functions"]
    for logical_id, name in functions.items():
        for path in glob.glob(f"{work}/{round}/logs/*"):
            if name not in os.path.basename(path):
                continue
            for line in open(path, errors="replace"):
                m = re.search(r"Init Duration: ([0-9.]+) ms", line)
                if m:
                    inits.setdefault(logical_id, []).append(float(m.group(1)))
print("| function | cold starts | Init Duration median ms | min | max |")
print("|---|---:|---:|---:|---:|")
for logical_id in sorted(inits):
    v = inits[logical_id]
    print(f"| {logical_id} | {len(v)} | {statistics.median(v):.1f} | {min(v):.1f} | {max(v):.1f} |")
PY
