#!/usr/bin/env bash
# Installs DynamoDB Local (the official jar shipped inside the npm package
# amplify-dynamodb-simulator) into a cache, starts it in the background on a
# port and prints its endpoint once it answers.
#
#   scripts/oracles/dynamodb-local.sh [port]        # default port 8765
#   export DYNAMODB_LOCAL_ENDPOINT=$(scripts/oracles/dynamodb-local.sh)
#   scripts/oracles/dynamodb-local.sh --stop [port]
#
# Idempotent: a second call reuses the install and an instance already
# listening on the port. Needs Java 17 and npm.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cache_dir="${DYNAMODB_LOCAL_CACHE:-$repo_root/target/oracles/dynamodb-local}"
package="amplify-dynamodb-simulator@2.9.30"

stop=0
if [[ "${1:-}" == "--stop" ]]; then stop=1; shift; fi
port="${1:-8765}"
endpoint="http://127.0.0.1:$port"
pid_file="$cache_dir/dynamodb-local-$port.pid"
log_file="$cache_dir/dynamodb-local-$port.log"

answers() {
    # Any HTTP answer (even a 400 for the unsigned request) means it is up.
    curl -s -o /dev/null -m 2 -X POST "$endpoint" \
        -H 'X-Amz-Target: DynamoDB_20120810.ListTables' \
        -H 'Content-Type: application/x-amz-json-1.0' -d '{}'
}

if [[ $stop == 1 ]]; then
    if [[ -f "$pid_file" ]]; then
        kill "$(cat "$pid_file")" 2>/dev/null || true
        rm -f "$pid_file"
    fi
    exit 0
fi

mkdir -p "$cache_dir"
jar="$(find "$cache_dir/node_modules" -name DynamoDBLocal.jar -print -quit 2>/dev/null || true)"
if [[ -z "$jar" ]]; then
    echo "installing $package into $cache_dir" >&2
    npm install --prefix "$cache_dir" --no-save --no-audit --no-fund "$package" >&2
    jar="$(find "$cache_dir/node_modules" -name DynamoDBLocal.jar -print -quit)"
fi
[[ -n "$jar" ]] || { echo "DynamoDBLocal.jar not found after install" >&2; exit 1; }
jar_dir="$(dirname "$jar")"

if ! answers; then
    # `exec` makes the background subshell become java, so the pid is java's.
    (cd "$jar_dir" && exec java -Djava.library.path="$jar_dir/DynamoDBLocal_lib" \
        -jar DynamoDBLocal.jar -inMemory -sharedDb -disableTelemetry -port "$port") \
        </dev/null >"$log_file" 2>&1 &
    echo $! >"$pid_file"
    for _ in $(seq 1 120); do
        answers && break
        sleep 0.5
    done
    answers || { echo "DynamoDB Local did not answer on $endpoint; see $log_file" >&2; exit 1; }
fi
echo "$endpoint"
