#!/usr/bin/env bash
# The LocalStack CI stage, whole: Docker engine, images (built or reused,
# localstack/build.sh), LocalStack (localstack/run.sh), template-rest.yaml
# deployed with the release binaries (localstack/deploy.sh), smoke calls on
# both orders paths and on Conduit, every Conduit scenario on the three
# Conduit REST APIs, the bench's smoke run against the stack,
# then the stack deleted and LocalStack stopped, and dockerd and the local
# registry too when this script started them. .ci/run runs it after the
# local cloud's stages; see localstack/README.md.
#
#   localstack/ci.sh                  # exit status 0 when every step passed
#   KEEP=1 localstack/ci.sh           # leave the stack and LocalStack running
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/ci-target}"
export BINARIES_DIR="${BINARIES_DIR:-$CARGO_TARGET_DIR/release}"
cache="${LOCALSTACK_IMAGES_CACHE:-$HOME/.cache/localstack-images}"
export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_DEFAULT_REGION=us-east-1
export AWS_ENDPOINT_URL=http://127.0.0.1:4566
work=$(mktemp -d)
start=$(date +%s)
step() {
    echo
    echo "== [$(($(date +%s) - start))s] $*"
}
failed=()
fail() {
    echo "FAIL: $*" >&2
    failed+=("$*")
}

# dockerd: stopped at the end only if this script started it.
dockerd_was_up=0
docker info >/dev/null 2>&1 && dockerd_was_up=1
registry_was_up=0
curl -sf -o /dev/null http://127.0.0.1:5000/v2/ && registry_was_up=1
deployed=0
cleanup() {
    local status=$?
    if [[ "${KEEP:-0}" != 1 ]]; then
        if ((deployed)); then
            step "sam delete"
            localstack/deploy.sh --delete >"$work/delete.log" 2>&1 || {
                tail -20 "$work/delete.log" >&2
                echo "FAIL: sam delete" >&2
                status=1
            }
        fi
        if docker info >/dev/null 2>&1; then
            docker logs localstack-main >"$work/localstack.log" 2>&1 || true
            localstack/run.sh stop || true
        fi
        if ((!registry_was_up)) && [[ -f "$cache/registry.pid" ]]; then
            kill "$(cat "$cache/registry.pid")" 2>/dev/null || true
            rm -f "$cache/registry.pid"
        fi
        if ((!dockerd_was_up)) && [[ -f "$cache/dockerd.pid" ]]; then
            step "stopping dockerd"
            kill "$(cat "$cache/dockerd.pid")" 2>/dev/null || true
            for _ in $(seq 100); do
                kill -0 "$(cat "$cache/dockerd.pid")" 2>/dev/null || break
                sleep 0.1
            done
            rm -f "$cache/dockerd.pid"
        fi
    fi
    echo "logs: $work"
    echo "== [$(($(date +%s) - start))s] LocalStack CI stage: $( ((status == 0)) && echo ok || echo FAILED)"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

step "release build (no-op when CI built it already)"
cargo build --quiet --release --workspace --all-targets

step "images (localstack/build.sh)"
localstack/build.sh

step "LocalStack (localstack/run.sh start)"
localstack/run.sh start

step "deploy template-rest.yaml (localstack/deploy.sh --rest, release binaries)"
t=$(date +%s)
deployed=1
# The Conduit scenarios' JWT secret (shared/conduit/tests/it/common/client.rs):
# some scenarios forge tokens. A test value, never a real secret.
JWT_SECRET=unit-test-secret-unit-test-secret-0123 \
    localstack/deploy.sh --rest >"$work/deploy.log" 2>&1 || {
    tail -40 "$work/deploy.log" >&2
    docker logs --tail 60 localstack-main >&2 || true
    echo "FAIL: deploy" >&2
    exit 1
}
grep -E '^(packaged|sam deploy took|  [A-Za-z]+: )' "$work/deploy.log" || true
echo "deploy: $(($(date +%s) - t)) s"
output() {
    python3 -c 'import json, sys
for o in json.load(open("localstack/outputs.json"))["Stacks"][0]["Outputs"]:
    if o["OutputKey"] == sys.argv[1]: print(o["OutputValue"])' "$1"
}

step "smoke calls"
"$BINARIES_DIR/bench" seed-orders --stack-outputs localstack/outputs.json || fail "bench seed-orders"
# call NAME METHOD URL [BODY]: prints status and time, keeps the body in $work.
call() {
    local name=$1 method=$2 url=$3 body=${4:-} out code ms s
    out="$work/$name.body"
    s=$(date +%s%N)
    code=$(curl -s -o "$out" -w '%{http_code}' -m 60 -X "$method" -H 'content-type: application/json' \
        ${body:+-d "$body"} "$url") || code=000
    ms=$((($(date +%s%N) - s) / 1000000))
    echo "$name: $method $url -> $code in $ms ms: $(head -c 200 "$out")"
    [[ "$code" == 2* ]]
}
for api in OrdersDirectUrl OrdersQueueUrl; do
    url="$(output "$api")/orders/3"
    call "$api-first" GET "$url" || fail "$api first GET /orders/3"
    call "$api-warm" GET "$url" || fail "$api warm GET /orders/3"
    [[ -s "$work/$api-warm.body" ]] || fail "$api: empty body"
done
user="ci$(date +%s)"
for api in ConduitUrl ConduitMicroInvokeUrl; do
    if ! call "$api-register" POST "$(output "$api")/api/users" \
        "{\"user\":{\"username\":\"$user$api\",\"email\":\"$user$api@example.com\",\"password\":\"secret123\"}}" ||
        ! grep -q '"token"' "$work/$api-register.body"; then
        fail "$api: POST /api/users"
    fi
    call "$api-articles" GET "$(output "$api")/api/articles" || fail "$api: GET /api/articles"
done

# Every Conduit scenario of the test suites against the three Conduit REST
# APIs, over empty tables each time, as scripts/deploy-e2e.sh runs them on the
# local cloud (shared/conduit-micro/tests/it/deployed_stack.rs). Only
# conduit-micro's `it` binary has tests under `deployed_stack::`: the passed
# counts of every binary are summed.
step "Conduit scenarios on the three REST APIs"
conduit_tables=$(python3 -c 'import json
print(",".join(r["PhysicalResourceId"] for r in json.load(open("localstack/resources.json"))["StackResources"]
               if r["ResourceType"] == "AWS::DynamoDB::Table" and r["LogicalResourceId"].startswith("Conduit")))')
[[ -n "$conduit_tables" ]] || fail "no Conduit table in localstack/resources.json"
for api in ConduitUrl ConduitMicroInvokeUrl ConduitMicroQueueUrl; do
    t=$(date +%s)
    if CONDUIT_URL=$(output "$api") CONDUIT_TABLES="$conduit_tables" \
        cargo test --quiet --release --workspace --test it deployed_stack:: -- --ignored \
        >"$work/scenarios-$api.log" 2>&1; then
        passed=$(grep -o '[0-9]* passed' "$work/scenarios-$api.log" | awk '{n += $1} END {print n + 0}')
        echo "$api: $passed Conduit scenarios passed in $(($(date +%s) - t)) s"
        ((passed > 0)) || fail "Conduit scenarios on $api: no test ran (filter deployed_stack::)"
    else
        grep -E '^test .*FAILED|panicked|^failures:' "$work/scenarios-$api.log" | head -40 >&2
        fail "Conduit scenarios on $api (log: $work/scenarios-$api.log)"
    fi
done

if ((${#failed[@]} == 0)); then
    step "bench run --smoke --target localstack --api rest"
    t=$(date +%s)
    "$BINARIES_DIR/bench" run --smoke --target localstack --api rest \
        --stack-outputs localstack/outputs.json --out "$work/bench" >"$work/bench.log" 2>&1 || {
        tail -30 "$work/bench.log" >&2
        fail "bench run --smoke"
    }
    tail -25 "$work/bench.log"
    echo "bench --smoke: $(($(date +%s) - t)) s"
else
    echo "bench skipped: the smoke calls failed"
fi

((${#failed[@]} == 0)) || {
    printf 'failed: %s\n' "${failed[@]}" >&2
    exit 1
}
