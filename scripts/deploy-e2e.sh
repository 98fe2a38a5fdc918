#!/usr/bin/env bash
# `sam deploy` to the local cloud with the real AWS SAM CLI and AWS CLI from
# PyPI, exactly as to AWS: a one-function application (a prebuilt binary,
# no `sam build`) is deployed, answers on the URL of its stack outputs, is
# updated (a new parameter value takes effect) and deleted (`sam delete`);
# then one with AutoPublishAlias: the stack lists version 1 and the alias,
# Lambda answers for both, the API invokes the alias, and new code
# publishes version 2.
# Takes seconds once the tools are installed (venv under $DEPLOY_CACHE).
# With --whole-template it then builds template.yaml with `sam build` (cargo
# lambda, x86_64, sharing scripts/check-templates.sh's target dir: seconds
# when that build is warm, ~25 minutes cold) and deploys it with `sam deploy
# --resolve-s3`: `bench seed-orders` fills the orders table the stack outputs
# name, both orders paths answer on the output URLs, every Conduit
# scenario passes on the three Conduit APIs (tests/it/deployed_stack.rs), the
# bench's smoke run works on the describe-stacks output, an update of
# OrdersDelayMs takes effect, and `sam delete` leaves no function, table,
# queue or bucket of the stack (a few minutes more). Last, template-lmi.yaml
# (the same application on Lambda Managed Instances) is built, deployed,
# answers on both orders paths and Conduit, and is deleted.
#
#   scripts/deploy-e2e.sh                    # uses target/release/{localcloud,echo}, built if missing
#   scripts/deploy-e2e.sh --whole-template   # the functions' binaries too
#   BINARIES_DIR=target/debug scripts/deploy-e2e.sh   # after a debug build
set -euo pipefail
cd "$(dirname "$0")/.."

cache="${DEPLOY_CACHE:-$HOME/.cache/localcloud-deploy}"
port="${E2E_PORT:-4599}"
# scripts/check-templates.sh (CI) installs the SAM CLI already; reuse it.
checks_sam="${CHECKS_CACHE:-$HOME/.cache/template-checks}/sam-venv/bin/sam"
sam="$cache/sam-venv/bin/sam"
if [[ -x "$checks_sam" ]]; then
    sam="$checks_sam"
elif [[ ! -x "$sam" ]]; then
    python3 -m venv "$cache/sam-venv"
    "$cache/sam-venv/bin/pip" install --quiet --disable-pip-version-check 'aws-sam-cli>=1.130,<2'
fi
if [[ ! -x "$cache/awscli-venv/bin/aws" ]]; then
    python3 -m venv "$cache/awscli-venv"
    "$cache/awscli-venv/bin/pip" install --quiet --disable-pip-version-check 'awscli>=1.36,<2'
fi
aws="$cache/awscli-venv/bin/aws"

# The same build as the tests' (scripts/test.sh: release, one feature set for the workspace).
bin="${BINARIES_DIR:-target/release}"
if [[ ! -x "$bin/localcloud" || ! -x "$bin/echo" || ! -x "$bin/bench" ]]; then
    profile=()
    [[ "$bin" == */release ]] && profile=(--release)
    cargo build --quiet "${profile[@]}" --workspace --all-targets
fi
work=$(mktemp -d)
server_pid=
cleanup() {
    if [[ -n "$server_pid" ]]; then kill "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

cp -r infra/localcloud/tests/fixtures/sam-app "$work/app"
mkdir -p "$work/app/function"
cp "$bin/echo" "$work/app/function/bootstrap"

"$bin/localcloud" serve --bind "127.0.0.1:$port" --state-dir "$work/state" >"$work/localcloud.log" 2>&1 &
server_pid=$!
for _ in $(seq 50); do
    curl -sf "http://127.0.0.1:$port/_localcloud/health" >/dev/null && break
    sleep 0.1
done

export AWS_ENDPOINT_URL="http://127.0.0.1:$port" AWS_ACCESS_KEY_ID=x AWS_SECRET_ACCESS_KEY=x
export AWS_DEFAULT_REGION=us-east-1 SAM_CLI_TELEMETRY=0
stack=e2e-demo
output() {
    "$aws" cloudformation describe-stacks --stack-name "$stack" \
        --query "Stacks[0].Outputs[?OutputKey=='$1'].OutputValue" --output text
}
# Every object of SAM's artifacts buckets, one bucket/key per line.
sam_bucket_objects() {
    local b
    for b in $("$aws" s3api list-buckets --query 'Buckets[].Name' --output text); do
        [[ "$b" == aws-sam-cli-managed-default-* ]] || continue
        # The CLI pages through the listing and prints None when it is empty.
        "$aws" s3api list-objects-v2 --bucket "$b" --query 'Contents[].Key' --output text |
            tr '\t' '\n' | { grep -vx -e None -e '' || true; } | sed "s|^|$b/|"
    done
}
fail() {
    echo "FAIL: $*" >&2
    tail -30 "$work/localcloud.log" >&2
    exit 1
}

deploy() {
    (cd "$work/app" && "$sam" deploy --stack-name "$stack" --resolve-s3 --capabilities CAPABILITY_IAM \
        --no-confirm-changeset --no-fail-on-empty-changeset --parameter-overrides "Greeting=$1")
}

echo "== sam deploy (create)"
started=$(date +%s%N)
deploy hello
echo "sam deploy took $((($(date +%s%N) - started) / 1000000)) ms"
url=$(output ApiUrl)
body=$(curl -sf "${url%/}/echo/world") || fail "GET ${url%/}/echo/world"
grep -q '"GREETING":"hello"' <<<"$body" || fail "unexpected body: $body"
echo "ApiUrl $url answers with GREETING=hello"

echo "== sam deploy (update)"
deploy bonjour
[[ "$(output ApiUrl)" == "$url" ]] || fail "the API URL changed on update"
body=$(curl -sf "${url%/}/echo/world") || fail "GET after update"
grep -q '"GREETING":"bonjour"' <<<"$body" || fail "the update did not take effect: $body"
echo "update took effect: GREETING=bonjour"

"$aws" lambda get-function --function-name "$(output FunctionName)" >/dev/null || fail "lambda get-function"
"$aws" sts get-caller-identity >/dev/null || fail "sts get-caller-identity"

echo "== sam delete"
"$sam" delete --stack-name "$stack" --no-prompts --region us-east-1
if "$aws" cloudformation describe-stacks --stack-name "$stack" >/dev/null 2>&1; then
    fail "the stack still exists after sam delete"
fi
functions=$("$aws" lambda list-functions --query 'length(Functions)' --output text)
[[ "$functions" == "0" ]] || fail "$functions functions left after sam delete"
curl -sf "${url%/}/echo/world" >/dev/null 2>&1 && fail "the API still answers after sam delete"

echo "== sam deploy of an AutoPublishAlias function: version 1 and the alias live"
stack=e2e-alias
cp -r infra/localcloud/tests/fixtures/sam-alias-app "$work/alias-app"
mkdir -p "$work/alias-app/function"
cp "$bin/echo" "$work/alias-app/function/bootstrap"
deploy_alias() {
    (cd "$work/alias-app" && "$sam" deploy --stack-name "$stack" --resolve-s3 --capabilities CAPABILITY_IAM \
        --no-confirm-changeset --no-fail-on-empty-changeset)
}
alias_version() {
    "$aws" lambda get-alias --function-name "$function_name" --name live --query FunctionVersion --output text
}
deploy_alias
function_name=$(output FunctionName)
alias_arn=$(output AliasArn)
[[ "$alias_arn" == *":function:$function_name:live" ]] || fail "AliasArn output: $alias_arn"
url=$(output ApiUrl)
body=$(curl -sf "${url%/}/echo/alias") || fail "GET ${url%/}/echo/alias"
grep -qF "\"invoked_function_arn\":\"$alias_arn\"" <<<"$body" || fail "the API did not invoke the alias: $body"
[[ "$(alias_version)" == 1 ]] || fail "the alias live does not point at version 1"
"$aws" lambda invoke --function-name "$function_name" --qualifier live "$work/invoked.json" \
    --query ExecutedVersion --output text | grep -qx 1 || fail "invoke --qualifier live did not run version 1"
for type in AWS::Lambda::Version AWS::Lambda::Alias; do
    "$aws" cloudformation describe-stack-resources --stack-name "$stack" \
        --query "StackResources[?ResourceType=='$type'].PhysicalResourceId" --output text |
        grep -q ":function:$function_name:" || fail "the stack lists no $type"
done
echo "version 1 and the alias live exist; the API invokes the alias"
# New code: SAM's version resource changes with CodeUri, so version 2 is
# published and live points at it; version 1 stays.
printf 'v2' >>"$work/alias-app/function/bootstrap"
deploy_alias
[[ "$(alias_version)" == 2 ]] || fail "after new code the alias live does not point at version 2"
versions=$("$aws" lambda list-versions-by-function --function-name "$function_name" --query 'Versions[].Version' --output text)
[[ "$versions" == $'$LATEST\t1\t2' ]] || fail "versions after new code: $versions"
echo "new code published version 2: live points at it"
"$sam" delete --stack-name "$stack" --no-prompts --region us-east-1 >/dev/null
# sam delete removes the template of the stack's last deploy and the packages
# it names, nothing older (as on AWS): the first deploy's template and its
# code package stay. Exactly those two, then removed here so that the check
# at the end covers the whole-template stacks alone.
left=$(sam_bucket_objects)
[[ $(wc -l <<<"$left") == 2 && $(grep -c '\.template$' <<<"$left") == 1 ]] ||
    fail "after sam delete of $stack, expected the first deploy's template and package, found: $left"
while read -r object; do "$aws" s3 rm --quiet "s3://$object"; done <<<"$left"
echo "deploy e2e (small application): ok"
[[ "${1:-}" == "--whole-template" ]] || exit 0

echo "== template.yaml: sam build (cargo lambda, x86_64)"
stack=bench
# sam build runs `cargo lambda build --release --bin B` per binary; with the
# target dir scripts/check-templates.sh builds the same binaries into (CI runs
# it first), a warm build takes seconds instead of ~25 minutes.
sam_bin=$(dirname "$sam")
[[ -x "$sam_bin/cargo-lambda" ]] ||
    "$sam_bin/pip" install --quiet --disable-pip-version-check 'cargo-lambda>=1.6,<2'
# sam build of template $1 into $work/$2 (x86_64).
sam_build() {
    (
        export CARGO_TARGET_DIR="${LAMBDA_TARGET_DIR:-${CHECKS_CACHE:-$HOME/.cache/template-checks}/lambda-build}"
        export PATH="$sam_bin:$PATH"
        "$sam" build --beta-features --template-file "$1" --build-dir "$work/$2" \
            --parameter-overrides FunctionArchitecture=x86_64 >"$work/build.log" 2>&1
    ) || { tail -40 "$work/build.log" >&2; fail "sam build of $1"; }
}
started=$(date +%s)
sam_build template.yaml sam-build
echo "sam build took $(($(date +%s) - started)) s"
for f in "$work"/sam-build/*/bootstrap; do
    file -b "$f" | grep -q 'x86-64' || fail "$f is not an x86_64 binary"
done

# The scenarios' JWT secret (shared/conduit/tests/it/common/client.rs): some
# Conduit scenarios forge tokens. A test value, never a real secret.
jwt_secret=unit-test-secret-unit-test-secret-0123
# sam deploy of the packaged template $1 (in $work) as $stack, with parameters $2.
deploy_packaged() {
    "$sam" deploy -t "$work/$1" --stack-name "$stack" --resolve-s3 \
        --capabilities CAPABILITY_IAM --no-confirm-changeset --no-fail-on-empty-changeset \
        --parameter-overrides "JwtSecret=$jwt_secret FunctionArchitecture=x86_64 $2" >"$work/whole.log" 2>&1 ||
        { tail -40 "$work/whole.log" >&2; fail "sam deploy of $1 as $stack"; }
}
whole() {
    deploy_packaged packaged.yaml "$1"
}
# sam package of the build in $work/$1 into $work/$2.
package() {
    "$sam" package -t "$work/$1/template.yaml" --resolve-s3 --output-template-file "$work/$2" \
        >"$work/package.log" 2>&1 || { tail -20 "$work/package.log" >&2; fail "sam package of $1"; }
}
# Both orders paths of $stack answer, no faster than OrdersDelayMs=500.
orders_answer_after_500_ms() {
    local api ms
    for api in OrdersDirectUrl OrdersQueueUrl; do
        ms=$(elapsed_ms "$(output "$api")/orders/3")
        ((ms >= 500)) || fail "$stack $api answered in $ms ms, faster than OrdersDelayMs=500"
        echo "$stack $api: /orders/3 in $ms ms"
    done
}
elapsed_ms() {
    local s
    s=$(date +%s%N)
    curl -sf -o /dev/null "$1" || fail "GET $1"
    echo $((($(date +%s%N) - s) / 1000000))
}
# Physical ids of the stack's resources of one type, comma-separated.
resources() {
    "$aws" cloudformation describe-stack-resources --stack-name "$stack" \
        --query "StackResources[?ResourceType=='$1' && starts_with(LogicalResourceId, '${2:-}')].PhysicalResourceId" \
        --output text | tr '\t' ','
}
# Zipping and uploading first, timed apart (`sam deploy` of the build dir
# would zip every function again to hash it): the deploy of the packaged
# template is the local cloud's share plus SAM's own start-up and polling.
started=$(date +%s%N)
package sam-build packaged.yaml
echo "sam package (zip and upload) took $((($(date +%s%N) - started) / 1000000)) ms"
started=$(date +%s%N)
whole OrdersDelayMs=500
echo "sam deploy of template.yaml (packages already uploaded) took $((($(date +%s%N) - started) / 1000000)) ms"
direct=$(output OrdersDirectUrl)
# The bench reads the URLs and the orders table from describe-stacks output,
# as on AWS; the functions only read the orders table, so it is seeded first.
"$aws" cloudformation describe-stacks --stack-name "$stack" --output json >"$work/outputs.json"
"$bin/bench" seed-orders --stack-outputs "$work/outputs.json" || fail "bench seed-orders"
orders_answer_after_500_ms
curl -sf "$(output ConduitUrl)/api/articles" | grep -q '"articlesCount":0' || fail "Conduit /api/articles"
# The two microservice APIs share the tables: one user each.
for api in ConduitMicroInvokeUrl ConduitMicroQueueUrl; do
    curl -sf -X POST -H 'content-type: application/json' \
        -d "{\"user\":{\"username\":\"$api\",\"email\":\"$api@example.com\",\"password\":\"secret123\"}}" \
        "$(output "$api")/api/users" | grep -q '"token"' || fail "$api: register"
done
# Every Conduit scenario of the test suites against the deployed APIs, over
# empty tables each time (shared/conduit-micro/tests/it/deployed_stack.rs).
# Every package's `it` test binary runs, and only conduit-micro's has tests
# under `deployed_stack::`: the passed counts are summed.
conduit_tables=$(resources AWS::DynamoDB::Table Conduit)
for api in ConduitUrl ConduitMicroInvokeUrl ConduitMicroQueueUrl; do
    started=$(date +%s)
    CONDUIT_URL=$(output "$api") CONDUIT_TABLES="$conduit_tables" \
        cargo test --quiet --release --workspace --test it deployed_stack:: -- --ignored \
        >"$work/scenarios.log" 2>&1 || { tail -40 "$work/scenarios.log" >&2; fail "Conduit scenarios on $api"; }
    passed=$(grep -o '[0-9]* passed' "$work/scenarios.log" | awk '{n += $1} END {print n + 0}')
    ((passed > 0)) || fail "Conduit scenarios on $api: no test ran (filter deployed_stack::)"
    echo "$api: $passed passed Conduit scenarios in $(($(date +%s) - started)) s"
done
"$bin/bench" run --smoke --target aws --stack-outputs "$work/outputs.json" --out "$work/bench" \
    >"$work/bench.log" 2>&1 || { tail -30 "$work/bench.log" >&2; fail "bench --smoke on the stack outputs"; }
echo "bench run --smoke --target aws --stack-outputs: ok"
whole OrdersDelayMs=50
[[ "$(output OrdersDirectUrl)" == "$direct" ]] || fail "OrdersDirectUrl changed on update"
ms=$(elapsed_ms "$direct/orders/3")
ms=$(elapsed_ms "$direct/orders/3")
((ms < 400)) || fail "OrdersDelayMs=50 did not take effect: $ms ms"
echo "update took effect: /orders/3 in $ms ms"
queues=$(resources AWS::SQS::Queue)
[[ -n "$queues" ]] || fail "the stack lists no queues"
"$sam" delete --stack-name "$stack" --no-prompts --region us-east-1 >/dev/null
functions=$("$aws" lambda list-functions --query 'length(Functions)' --output text)
tables=$("$aws" dynamodb list-tables --query 'length(TableNames)' --output text)
[[ "$functions" == "0" && "$tables" == "0" ]] || fail "left after sam delete: $functions functions, $tables tables"
# AWS CLI v1's sqs commands ignore AWS_ENDPOINT_URL (a customisation pins
# queue.amazonaws.com in us-east-1): the endpoint is passed explicitly.
left=$("$aws" --endpoint-url "$AWS_ENDPOINT_URL" sqs list-queues --output text --query 'QueueUrls') ||
    fail "sqs list-queues"
for queue in ${queues//,/ }; do
    tr '\t' '\n' <<<"$left" | grep -qxF "$queue" && fail "queue $queue left after sam delete"
done
echo "== template-lmi.yaml (Lambda Managed Instances): sam build, sam deploy, both orders paths, Conduit, sam delete"
# The same application on a capacity provider (docs/managed-instances.md);
# the binaries are those built above, so sam build takes seconds.
stack=bench-lmi
started=$(date +%s)
sam_build template-lmi.yaml lmi-build
package lmi-build lmi-packaged.yaml
deploy_packaged lmi-packaged.yaml OrdersDelayMs=500
echo "sam build, package and deploy of template-lmi.yaml took $(($(date +%s) - started)) s"
[[ -n "$(resources AWS::Lambda::CapacityProvider)" ]] || fail "template-lmi.yaml's stack lists no capacity provider"
"$aws" cloudformation describe-stacks --stack-name "$stack" --output json >"$work/lmi-outputs.json"
"$bin/bench" seed-orders --stack-outputs "$work/lmi-outputs.json" || fail "bench seed-orders (LMI stack)"
orders_answer_after_500_ms
curl -sf -X POST -H 'content-type: application/json' \
    -d '{"user":{"username":"lmi","email":"lmi@example.com","password":"secret123"}}' \
    "$(output ConduitUrl)/api/users" | grep -q '"token"' || fail "LMI ConduitUrl: register"
"$sam" delete --stack-name "$stack" --no-prompts --region us-east-1 >/dev/null
functions=$("$aws" lambda list-functions --query 'length(Functions)' --output text)
[[ "$functions" == "0" ]] || fail "$functions functions left after sam delete of the LMI stack"
echo "deploy e2e (template-lmi.yaml): ok"

# Only SAM's own artifacts bucket remains (sam delete keeps it, as on AWS),
# and every stack's packages and templates are gone from it.
for b in $("$aws" s3api list-buckets --query 'Buckets[].Name' --output text); do
    [[ "$b" == aws-sam-cli-managed-default-* ]] || fail "bucket $b left after sam delete"
done
left=$(sam_bucket_objects)
[[ -z "$left" ]] || fail "left in SAM's bucket after both stacks were deleted: $left"
echo "deploy e2e (template.yaml, template-lmi.yaml): ok"
