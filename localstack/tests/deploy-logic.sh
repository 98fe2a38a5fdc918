#!/usr/bin/env bash
# Offline test of localstack/deploy.sh's choice of template and of the
# one-line message for a LocalStack that needs an auth token (no Docker, no
# network: a fake LocalStack on a loopback port, a fake `docker` on PATH).
# scripts/check-templates.sh runs it in CI; it takes about a second.
#
#   localstack/tests/deploy-logic.sh
#
# The health documents (localstack/tests/health/) are one per image kind,
# in the shape LocalStack's HealthResource (localstack-core,
# localstack/services/internal.py) returns: {"services": {...}, "edition",
# "version"}, the edition being the name of the image's marker file
# /usr/lib/localstack/.<edition>-version, "unknown" without one:
#   community-4.14.0.json   localstack/localstack:4.14.0, the last community
#                           image (marker .community-version in its
#                           Dockerfile; services: the providers of
#                           localstack-core 4.14.0, no apigatewayv2)
#   build-sh-2026.3.0.json  the image localstack/build.sh builds (no marker:
#                           "unknown", as deploy.sh printed in localstack/ci.sh
#                           runs; localstack-core 2026.3.0's providers)
#   pro-4.14.0.json         localstack/localstack-pro:4.14.0 with a token
#                           ("pro", as LocalStack's auth-token docs show)
#   unified-2026.7.5.json   localstack/localstack 2026.x, the unified image
#                           (edition "pro" in health documents users published
#                           for 2026.7.x; LocalStack documents no other value)
#   localcloud.json         what deploy.sh uses for the local cloud
# The unified image's plan shows only in its answer to GET /v2/apis: 200 on
# a plan with API Gateway v2 (Base and above), 501 on the free Hobby plan.
set -euo pipefail
cd "$(dirname "$0")/../.."
fixtures=localstack/tests/health
work=$(mktemp -d)
server_pid=""
cleanup() {
    [[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

failed=0
pass() { echo "ok - $*"; }
fail() {
    echo "FAIL - $*" >&2
    failed=1
}

# --- choose-template.sh: health document (+ GET /v2/apis status) -> template
expect_choice() { # fixture v2_status expected_template reason_part
    local out
    out=$(localstack/choose-template.sh "$fixtures/$1" "$2") || { fail "choose-template $1 '$2' failed"; return; }
    local template=${out%%$'\n'*} reason=${out#*$'\n'}
    if [[ "$template" == "$3" && "$reason" == *"$4"* ]]; then
        pass "$1, GET /v2/apis '${2:-not asked}' -> $3"
    else
        fail "$1, GET /v2/apis '$2': expected $3 (\"$4\"), got: $out"
    fi
}
expect_choice localcloud.json "" template.yaml "local cloud"
expect_choice community-4.14.0.json 501 template-rest.yaml "community image (4.14.0)"
expect_choice community-4.14.0.json "" template-rest.yaml "community image"
expect_choice build-sh-2026.3.0.json 501 template-rest.yaml "edition unknown (2026.3.0"
expect_choice pro-4.14.0.json 200 template.yaml "serves API Gateway v2"
expect_choice unified-2026.7.5.json 200 template.yaml "edition pro (2026.7.5) serves"
expect_choice unified-2026.7.5.json 501 template-rest.yaml "Hobby plan"
expect_choice unified-2026.7.5.json 000 template-rest.yaml "could not tell"
expect_choice unified-2026.7.5.json "" template-rest.yaml "could not tell"
if out=$(localstack/choose-template.sh - 200 <"$fixtures/unified-2026.7.5.json") && [[ "${out%%$'\n'*}" == template.yaml ]]; then
    pass "health document on stdin"
else
    fail "health document on stdin: $out"
fi
if localstack/choose-template.sh "$fixtures/not-json.txt" 200 >/dev/null 2>"$work/err"; then
    fail "a page that is not JSON was taken for a health document"
else
    pass "a page that is not JSON is refused ($(cat "$work/err"))"
fi

# --- auth-token.sh check: which images need LOCALSTACK_AUTH_TOKEN
expect_check() { # image token expected_status
    local status=0
    LOCALSTACK_AUTH_TOKEN=$2 localstack/auth-token.sh check "$1" >/dev/null 2>"$work/err" || status=$?
    if [[ "$status" == "$3" ]]; then
        pass "check $1 (token '${2:-}'): exit $status"
    else
        fail "check $1 (token '$2'): exit $status, expected $3"
    fi
    if [[ "$3" == 1 ]] && ! grep -q "needs LOCALSTACK_AUTH_TOKEN.*localstack/localstack:4.14.0.*localstack/build.sh" "$work/err"; then
        fail "check $1: no instruction line: $(cat "$work/err")"
    fi
}
expect_check localstack/localstack "" 1
expect_check localstack/localstack:latest "" 1
expect_check docker.io/localstack/localstack:2026.03.0 "" 1
expect_check localstack/localstack-pro:latest "" 1
expect_check localstack/localstack:latest tok 0
expect_check localstack/localstack:4.14.0 "" 0
expect_check localstack/localstack:4.14 "" 0
expect_check localstack/localstack:3.8.1 "" 0
expect_check serverless-bench/localstack:latest "" 0

# --- a fake `docker`: one exited container, its state and log from the environment
mkdir -p "$work/bin"
cat >"$work/bin/docker" <<'EOF'
#!/usr/bin/env bash
case "$1" in
info) exit 0 ;;
ps) [[ -n "${FAKE_STATE:-}" ]] && echo c0ffee ;;
inspect) [[ -n "${FAKE_STATE:-}" ]] && echo "$FAKE_STATE" || exit 1 ;;
logs) printf '%s\n' "${FAKE_LOG:-}" ;;
*) echo "fake docker: $*" >&2; exit 1 ;;
esac
EOF
chmod +x "$work/bin/docker"
token_log="LocalStack version: 2026.3.1.dev3
Localstack returning with exit code 55. Reason:
The license activation failed for the following reason:
No credentials were found in the environment. Please make sure to either set the LOCALSTACK_AUTH_TOKEN variable to a valid auth token."

expect_explain() { # state log expected_status what
    local status=0
    PATH="$work/bin:$PATH" FAKE_STATE=$1 FAKE_LOG=$2 localstack/auth-token.sh explain c0ffee 2>"$work/err" || status=$?
    if [[ "$status" == "$3" ]]; then
        pass "explain: $4"
    else
        fail "explain: $4: exit $status, expected $3 ($(cat "$work/err"))"
    fi
}
expect_explain "exited 55 localstack/localstack:latest" "$token_log" 0 "the unified image exited 55"
expect_explain "exited 1 localstack/localstack" "$token_log" 0 "the unified image's log asks for the token"
expect_explain "exited 1 localstack/localstack:4.14.0" "a crash that names LOCALSTACK_AUTH_TOKEN" 1 "a community image's other exit"
expect_explain "exited 0 localstack/localstack:latest" "stopped" 1 "a stopped container"
expect_explain "running 0 localstack/localstack:latest" "" 1 "a running container"
expect_explain "" "" 1 "no such container"

# --- deploy.sh --which against a fake LocalStack (fixture + /v2/apis status)
cat >"$work/server.py" <<'EOF'
import http.server, os, sys
work = sys.argv[1]
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_GET(self):
        fixture, v2 = open(os.path.join(work, "config")).read().split()
        status, body = 404, b"{}"
        if self.path == "/_localcloud/health" and fixture == "localcloud.json":
            status = 200
        elif self.path == "/_localstack/health" and fixture != "localcloud.json":
            status, body = 200, open(os.path.join(sys.argv[2], fixture), "rb").read()
        elif self.path == "/v2/apis":
            # LocalStack routes it to apigatewayv2 by this signing name
            auth = self.headers.get("Authorization", "")
            status = int(v2) if "/apigateway/aws4_request" in auth else 400
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
s = http.server.HTTPServer(("127.0.0.1", 0), H)
open(os.path.join(work, "port"), "w").write(str(s.server_port))
s.serve_forever()
EOF
echo "localcloud.json 501" >"$work/config"
python3 "$work/server.py" "$work" "$fixtures" &
server_pid=$!
for _ in $(seq 100); do [[ -s "$work/port" ]] && break; sleep 0.1; done
[[ -s "$work/port" ]] || { echo "FAIL - the fake LocalStack did not start" >&2; exit 1; }
endpoint="http://127.0.0.1:$(cat "$work/port")"

expect_deploy() { # fixture v2_status flag expected_template
    local out
    echo "$1 $2" >"$work/config"
    if out=$(AWS_ENDPOINT_URL=$endpoint localstack/deploy.sh --which ${3:+"$3"} 2>&1) &&
        [[ "$out" == *"; deploying $4" ]]; then
        pass "deploy.sh --which $3 on $1 (GET /v2/apis $2): $4"
    else
        fail "deploy.sh --which $3 on $1 (GET /v2/apis $2): expected $4, got: $out"
    fi
}
expect_deploy localcloud.json 404 "" template.yaml
expect_deploy community-4.14.0.json 501 "" template-rest.yaml
expect_deploy build-sh-2026.3.0.json 501 "" template-rest.yaml
expect_deploy pro-4.14.0.json 200 "" template.yaml
expect_deploy unified-2026.7.5.json 200 "" template.yaml
expect_deploy unified-2026.7.5.json 501 "" template-rest.yaml
expect_deploy unified-2026.7.5.json 501 --http template.yaml
expect_deploy unified-2026.7.5.json 200 --rest template-rest.yaml

# --- nothing answers: an exited token-less LocalStack container gets one line
kill "$server_pid"
wait "$server_pid" 2>/dev/null || true
server_pid=""
status=0
PATH="$work/bin:$PATH" FAKE_STATE="exited 55 localstack/localstack:latest" FAKE_LOG="$token_log" \
    AWS_ENDPOINT_URL=$endpoint localstack/deploy.sh --which >"$work/out" 2>&1 || status=$?
if [[ "$status" == 1 && $(wc -l <"$work/out") == 1 ]] && grep -q "needs LOCALSTACK_AUTH_TOKEN" "$work/out"; then
    pass "deploy.sh with LocalStack exited for want of a token: one line"
else
    fail "deploy.sh with LocalStack exited for want of a token (exit $status): $(cat "$work/out")"
fi
status=0
PATH="$work/bin:$PATH" AWS_ENDPOINT_URL=$endpoint localstack/deploy.sh --which >"$work/out" 2>&1 || status=$?
if [[ "$status" == 1 ]] && grep -q "Neither LocalStack nor the local cloud is running" "$work/out"; then
    pass "deploy.sh with nothing running: how to start one"
else
    fail "deploy.sh with nothing running (exit $status): $(cat "$work/out")"
fi

# --- run.sh start with the unified image and no token: the line, before any docker run
status=0
PATH="$work/bin:$PATH" LOCALSTACK_AUTH_TOKEN="" LOCALSTACK_IMAGE=localstack/localstack:latest \
    localstack/run.sh start >"$work/out" 2>&1 || status=$?
if [[ "$status" == 1 && $(wc -l <"$work/out") == 1 ]] && grep -q "needs LOCALSTACK_AUTH_TOKEN" "$work/out"; then
    pass "run.sh start with the unified image and no token: one line"
else
    fail "run.sh start with the unified image and no token (exit $status): $(cat "$work/out")"
fi

if ((failed)); then
    echo "localstack/tests/deploy-logic.sh: FAILED" >&2
    exit 1
fi
echo "localstack/tests/deploy-logic.sh: all passed"
