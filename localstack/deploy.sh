#!/usr/bin/env bash
# Builds template.yaml with SAM and deploys it to whatever listens on
# LocalStack's port 4566: a running LocalStack (localstack/run.sh start, or
# docker compose -f localstack/docker-compose.yml up -d), or the local cloud
# (`localcloud serve`, no Docker). Both are reached by the plain AWS SAM CLI
# and AWS CLI with AWS_ENDPOINT_URL=http://127.0.0.1:4566. Then writes the
# stack's outputs, with API URLs rewritten to LocalStack's when on LocalStack,
# for the bench.
# Which template: template.yaml (HTTP APIs, API Gateway v2) where the target
# serves HTTP APIs, else template-rest.yaml (REST APIs, API Gateway v1). The
# choice is localstack/choose-template.sh's, from the target's health document
# (its "edition") and, on LocalStack, its answer to GET /v2/apis:
#   - the local cloud: template.yaml;
#   - LocalStack's unified image (localstack/localstack:latest since 2026.03,
#     LOCALSTACK_AUTH_TOKEN required): its edition reads "pro" whatever the
#     plan, so /v2/apis decides: template.yaml on a paid plan (Base or above),
#     template-rest.yaml on the free Hobby plan (HTTP APIs answer 501);
#   - a pre-2026 community image (localstack/localstack:4.14.0, no token;
#     edition "community") and the image localstack/build.sh builds (no token,
#     edition "unknown"): template-rest.yaml.
# When nothing answers and a LocalStack container exited for want of a token,
# it says so in one line (localstack/auth-token.sh). See localstack/README.md.
#
#   localstack/deploy.sh            # build + deploy, writes localstack/outputs.json
#                                   # and localstack/resources.json
#   localstack/deploy.sh --which    # only say which template it would deploy, and why
#                                   # (with --rest or --http too)
#   localstack/deploy.sh --rest     # deploy template-rest.yaml whatever the plan
#   localstack/deploy.sh --http     # deploy template.yaml whatever the plan
#   localstack/deploy.sh --delete   # delete the stack
#   BINARIES_DIR=~/.cache/ci-target/release localstack/deploy.sh --rest
#       # no `sam build`: each function's bootstrap is the workspace's release
#       # binary, built for this machine (FunctionArchitecture follows it)
#
# Needs: Python 3; without BINARIES_DIR, cargo + the aarch64-unknown-linux-gnu
# std (`rustup target add ...`), since the template builds arm64 functions.
set -euo pipefail
cd "$(dirname "$0")/.."

stack="${STACK_NAME:-serverless-bench}"
region="${AWS_DEFAULT_REGION:-us-east-1}"
venv="${LOCALSTACK_VENV:-$HOME/.cache/template-checks/localstack-venv}"
binaries="${BINARIES_DIR:-}"
export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_DEFAULT_REGION="$region"
export SAM_CLI_TELEMETRY=0
# The IP, not `localhost`: S3 then takes path-style requests (a bucket name
# as a subdomain of localhost resolves nowhere here).
export AWS_ENDPOINT_URL="${AWS_ENDPOINT_URL:-http://127.0.0.1:4566}"

mode=""
which=0
for arg in "$@"; do
    case "$arg" in
    --which) which=1 ;;
    --rest | --http | --delete) mode=$arg ;;
    *)
        echo "usage: localstack/deploy.sh [--which] [--rest | --http | --delete]" >&2
        exit 2
        ;;
    esac
done

# What listens on the endpoint: the local cloud, LocalStack, or nothing.
if curl -sf "$AWS_ENDPOINT_URL/_localcloud/health" >/dev/null; then
    rewrite_urls=0
    # The local cloud serves HTTP APIs and REST APIs alike.
    health='{"edition": "localcloud"}'
elif health=$(curl -sf "$AWS_ENDPOINT_URL/_localstack/health"); then
    rewrite_urls=1
else
    # A LocalStack container that exited at start for want of an auth token
    # (the unified image's exit status 55) gets one line saying what to do.
    if command -v docker >/dev/null && docker info >/dev/null 2>&1; then
        mapfile -t exited < <(docker ps -aq --filter status=exited --filter name=localstack 2>/dev/null)
        if ((${#exited[@]})) && localstack/auth-token.sh explain "${exited[@]}"; then
            exit 1
        fi
    fi
    echo "Neither LocalStack nor the local cloud is running on $AWS_ENDPOINT_URL; start one with" >&2
    echo "  localstack/build.sh && localstack/run.sh start" >&2
    echo "  docker compose -f localstack/docker-compose.yml up -d --wait   # LOCALSTACK_AUTH_TOKEN, or LOCALSTACK_IMAGE=localstack/localstack:4.14.0" >&2
    echo "  cargo run --release -p localcloud -- serve" >&2
    exit 1
fi

# Which template: asked for, or what the target serves.
if [[ "$mode" != --delete ]]; then
    v2_status=""
    if ((rewrite_urls)); then
        # API Gateway v2's GetApis. The Authorization header's signing name
        # (apigateway) and the /v2 path route it to apigatewayv2 (LocalStack's
        # service router); the signature is a dummy, which LocalStack does not
        # check by default (any answer but 2xx or 501 leaves template-rest.yaml).
        # 501: not in this license, or no such provider.
        v2_status=$(curl -s -o /dev/null -w '%{http_code}' --max-time 20 \
            -H "Authorization: AWS4-HMAC-SHA256 Credential=test/20260101/$region/apigateway/aws4_request, SignedHeaders=host, Signature=0" \
            "$AWS_ENDPOINT_URL/v2/apis") || true
    fi
    choice=$(localstack/choose-template.sh - "$v2_status" <<<"$health")
    template=${choice%%$'\n'*}
    reason=${choice#*$'\n'}
    case "$mode" in
    --rest) template="template-rest.yaml" reason="$reason; --rest" ;;
    --http) template="template.yaml" reason="$reason; --http" ;;
    esac
    echo "target on $AWS_ENDPOINT_URL: $reason; deploying $template"
fi
((which)) && exit 0

# The SAM CLI and AWS CLI: those CI already installed (scripts/check-templates.sh,
# scripts/deploy-e2e.sh) when there, else a venv of our own.
checks_sam="${CHECKS_CACHE:-$HOME/.cache/template-checks}/sam-venv/bin/sam"
deploy_aws="${DEPLOY_CACHE:-$HOME/.cache/localcloud-deploy}/awscli-venv/bin/aws"
if [[ -n "$binaries" && -x "$checks_sam" && -x "$deploy_aws" ]]; then
    sam="$checks_sam"
    aws="$deploy_aws"
else
    if [[ ! -x "$venv/bin/sam" || ! -x "$venv/bin/cargo-lambda" ]]; then
        python3 -m venv "$venv"
        "$venv/bin/pip" install --quiet --disable-pip-version-check \
            'aws-sam-cli>=1.130' 'awscli>=1.33' 'cargo-lambda>=1.6'
    fi
    sam="$venv/bin/sam"
    aws="$venv/bin/aws"
    export PATH="$venv/bin:$PATH" # sam build runs cargo-lambda
fi

arch=$([[ "$(uname -m)" == x86_64 ]] && echo x86_64 || echo arm64)
build_overrides=()
if [[ -n "$binaries" || "$rewrite_urls" == 0 ]]; then
    # Functions built for this machine (the local cloud runs them as they
    # are; LocalStack's containers would need QEMU for another architecture).
    DEPLOY_PARAMETERS="FunctionArchitecture=$arch ${DEPLOY_PARAMETERS:-}"
    build_overrides=(--parameter-overrides "FunctionArchitecture=$arch")
fi

if [[ "$mode" == --delete ]]; then
    "$sam" delete --stack-name "$stack" --region "$region" --no-prompts
    exit 0
fi

# A development secret: LocalStack is throwaway, never reuse it on AWS.
jwt_secret="${JWT_SECRET:-$(python3 -c 'import secrets; print(secrets.token_hex(32))')}"

started=$(date +%s)
if [[ -n "$binaries" ]]; then
    # What `sam build` would produce, from the release binaries: a directory
    # per function holding its `bootstrap`, and the template pointing at them
    # (BuildMethod metadata dropped). Outside the checkout, deleted after.
    build_dir=$(mktemp -d)
    trap 'rm -rf "$build_dir"' EXIT
    "$(dirname "$sam")/python" - "$template" "$binaries" "$build_dir" <<'EOF'
import os, shutil, subprocess, sys
from samcli.yamlhelper import yaml_dump, yaml_parse

template, binaries, out = sys.argv[1:]
doc = yaml_parse(open(template).read())
missing = []
# Each binary once, stripped (the release build keeps symbols: 100+ MB a
# binary, which every function's zip would carry); functions sharing a
# binary get hard links to it.
stripped = {}
for name, res in doc["Resources"].items():
    if res.get("Type") != "AWS::Serverless::Function":
        continue
    binary = res.get("Metadata", {}).get("BuildProperties", {}).get("Binary")
    if not binary:
        continue
    src = os.path.join(binaries, binary)
    if not os.path.isfile(src):
        missing.append(binary)
        continue
    os.makedirs(os.path.join(out, name))
    dest = os.path.join(out, name, "bootstrap")
    if binary in stripped:
        os.link(stripped[binary], dest)
    else:
        shutil.copy2(src, dest)
        if shutil.which("strip"):
            subprocess.run(["strip", dest], check=True)
        stripped[binary] = dest
    res["Properties"]["CodeUri"] = name
    del res["Metadata"]
if missing:
    sys.exit(f"missing in {binaries}: {', '.join(sorted(set(missing)))}; build them with "
             "`cargo build --release --workspace --all-targets`")
open(os.path.join(out, "template.yaml"), "w").write(yaml_dump(doc))
EOF
    deploy_template=("--template-file" "$build_dir/template.yaml")
    echo "packaged the release binaries of $binaries in $(($(date +%s) - started)) s"
else
    "$sam" build --config-env localstack --template-file "$template" "${build_overrides[@]}"
    deploy_template=()
fi
started=$(date +%s)
"$sam" deploy "${deploy_template[@]}" --config-env localstack --config-file "$PWD/samconfig.toml" \
    --stack-name "$stack" --region "$region" \
    --parameter-overrides "JwtSecret=$jwt_secret ${DEPLOY_PARAMETERS:-}"
echo "sam deploy took $(($(date +%s) - started)) s"

# The outputs spell AWS URLs; LocalStack serves each API at
# http://{api-id}.execute-api.localhost.localstack.cloud:4566 when that name
# resolves (public DNS: to 127.0.0.1), and always at
# http://127.0.0.1:4566/_aws/execute-api/{api-id}: the latter when the name
# does not resolve (no public DNS) or LOCALSTACK_API_URLS=path.
style="${LOCALSTACK_API_URLS:-}"
if [[ -z "$style" ]]; then
    style=path
    getent hosts localhost.localstack.cloud >/dev/null 2>&1 && style=host
fi
"$aws" cloudformation describe-stacks --stack-name "$stack" --output json |
    REWRITE_URLS="$rewrite_urls" STYLE="$style" python3 -c '
import json, os, re, sys
doc = json.load(sys.stdin)
if os.environ["REWRITE_URLS"] != "1":
    json.dump(doc, sys.stdout, indent=2)
    sys.exit(0)
to = (r"http://\1.execute-api.localhost.localstack.cloud:4566" if os.environ["STYLE"] == "host"
      else r"http://127.0.0.1:4566/_aws/execute-api/\1")
for stack in doc["Stacks"]:
    for out in stack.get("Outputs", []):
        out["OutputValue"] = re.sub(
            r"^https://([a-z0-9]+)\.execute-api\.[^/]+", to, out["OutputValue"])
json.dump(doc, sys.stdout, indent=2)
' >localstack/outputs.json
echo "outputs: localstack/outputs.json"
# The stack's resources (physical names of its tables, queues, functions),
# e.g. for the Conduit scenarios, which empty the tables between scenarios.
"$aws" cloudformation describe-stack-resources --stack-name "$stack" --output json >localstack/resources.json
python3 -c '
import json
for o in json.load(open("localstack/outputs.json"))["Stacks"][0].get("Outputs", []):
    print("  %s: %s" % (o["OutputKey"], o["OutputValue"]))
'
