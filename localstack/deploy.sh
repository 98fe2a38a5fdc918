#!/usr/bin/env bash
# Builds template.yaml with SAM and deploys it to whatever listens on
# LocalStack's port 4566: a running LocalStack
# (docker compose -f localstack/docker-compose.yml up -d), or the local cloud
# (`localcloud serve`, no Docker; plain `sam`/`aws` with AWS_ENDPOINT_URL, and
# functions built for this machine's architecture). Then writes the stack's
# outputs, with API URLs rewritten to LocalStack's when on LocalStack, for the bench.
# HTTP APIs need a paid LocalStack plan; on the free (community) edition the
# REST API version, template-rest.yaml, is deployed instead.
#
#   localstack/deploy.sh            # build + deploy, writes localstack/outputs.json
#   localstack/deploy.sh --rest     # deploy template-rest.yaml whatever the plan
#   localstack/deploy.sh --http     # deploy template.yaml whatever the plan
#   localstack/deploy.sh --delete   # delete the stack
#
# Needs: Docker (LocalStack runs the functions in containers), Python 3,
# cargo + the aarch64-unknown-linux-gnu std (`rustup target add ...`),
# since the template builds arm64 functions.
set -euo pipefail
cd "$(dirname "$0")/.."

stack="${STACK_NAME:-serverless-bench}"
region="${AWS_DEFAULT_REGION:-us-east-1}"
venv="${LOCALSTACK_VENV:-$HOME/.cache/template-checks/localstack-venv}"
export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_DEFAULT_REGION="$region"
export SAM_CLI_TELEMETRY=0

if [[ ! -x "$venv/bin/samlocal" ]]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check \
        'aws-sam-cli-local>=1.60' 'aws-sam-cli>=1.130' 'awscli-local>=0.22' 'awscli>=1.33' 'cargo-lambda>=1.6'
fi
export PATH="$venv/bin:$PATH"

if curl -sf http://127.0.0.1:4566/_localcloud/health >/dev/null; then
    # The local cloud answers the deploy APIs itself: no samlocal needed.
    export AWS_ENDPOINT_URL=http://127.0.0.1:4566
    samlocal() { sam "$@"; }
    awslocal() { aws "$@"; }
    arch=$([[ "$(uname -m)" == x86_64 ]] && echo x86_64 || echo arm64)
    DEPLOY_PARAMETERS="FunctionArchitecture=$arch ${DEPLOY_PARAMETERS:-}"
    build_overrides=(--parameter-overrides "FunctionArchitecture=$arch")
    rewrite_urls=0
    # The local cloud serves HTTP APIs and REST APIs alike.
    health='{"edition": "localcloud"}'
elif health=$(curl -sf http://localhost:4566/_localstack/health); then
    build_overrides=()
    rewrite_urls=1
else
    echo "Neither LocalStack nor the local cloud is running on :4566; start one with" >&2
    echo "  docker compose -f localstack/docker-compose.yml up -d --wait" >&2
    echo "  cargo run --release -p localcloud -- serve" >&2
    exit 1
fi

# Which template: asked for, or by the edition LocalStack reports.
edition=$(python3 -c 'import json, sys; print(json.load(sys.stdin).get("edition", "unknown"))' <<<"$health")
case "${1:-}" in
--delete)
    samlocal delete --stack-name "$stack" --region "$region" --no-prompts
    exit 0
    ;;
--rest) template="template-rest.yaml" ;;
--http) template="template.yaml" ;;
"")
    if [[ "$edition" == community ]]; then
        template="template-rest.yaml"
    else
        template="template.yaml"
    fi
    ;;
*)
    echo "usage: localstack/deploy.sh [--rest | --http | --delete]" >&2
    exit 2
    ;;
esac
echo "target on :4566: $edition; deploying $template"

# A development secret: LocalStack is throwaway, never reuse it on AWS.
jwt_secret="${JWT_SECRET:-$(python3 -c 'import secrets; print(secrets.token_hex(32))')}"

samlocal build --config-env localstack --template-file "$template" "${build_overrides[@]}"
samlocal deploy --config-env localstack --stack-name "$stack" --region "$region" \
    --parameter-overrides "JwtSecret=$jwt_secret ${DEPLOY_PARAMETERS:-}"

# The outputs spell AWS URLs; LocalStack serves each API at
# http://{api-id}.execute-api.localhost.localstack.cloud:4566.
awslocal cloudformation describe-stacks --stack-name "$stack" --output json |
    REWRITE_URLS="$rewrite_urls" python3 -c '
import json, os, re, sys
doc = json.load(sys.stdin)
if os.environ["REWRITE_URLS"] != "1":
    json.dump(doc, sys.stdout, indent=2)
    sys.exit(0)
for stack in doc["Stacks"]:
    for out in stack.get("Outputs", []):
        out["OutputValue"] = re.sub(
            r"^https://([a-z0-9]+)\.execute-api\.[^/]+",
            r"http://\1.execute-api.localhost.localstack.cloud:4566",
            out["OutputValue"])
json.dump(doc, sys.stdout, indent=2)
' >localstack/outputs.json
echo "outputs: localstack/outputs.json"
python3 -c '
import json
for o in json.load(open("localstack/outputs.json"))["Stacks"][0].get("Outputs", []):
    print("  %s: %s" % (o["OutputKey"], o["OutputValue"]))
'
