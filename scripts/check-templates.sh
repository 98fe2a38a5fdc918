#!/usr/bin/env bash
# Checks the deployable artefacts without an AWS account or a Docker engine
# (called by .ci/run; installs what it needs itself):
#   1. template.yaml, template-rest.yaml (its REST version), template-lmi.yaml
#      (its Lambda Managed Instances version) and
#      infra/sam-starter/template.yaml: cfn-lint and `sam validate --lint`;
#      samconfig.toml;
#   2. every function binary of the template built by cargo lambda for
#      provided.al2023 (x86_64; arm64 too when its std is already installed);
#   3. localstack/docker-compose.yml against the compose-spec JSON schema;
#   4. shellcheck on the shell scripts;
#   5. localstack/tests/deploy-logic.sh (localstack/deploy.sh's template choice
#      and auth-token messages, offline).
# Fails on the first error. Tools live in venvs under $CHECKS_CACHE.
#
#   scripts/check-templates.sh
#   SKIP_LAMBDA_BUILD=1 scripts/check-templates.sh   # steps 1, 3, 4, 5 only
set -euo pipefail
cd "$(dirname "$0")/.."

cache="${CHECKS_CACHE:-$HOME/.cache/template-checks}"
start=$(date +%s)
step_start=$start
step() {
    local now
    now=$(date +%s)
    echo
    echo "== [+$((now - start))s; previous step took $((now - step_start))s] $*"
    step_start=$now
}

# A venv per tool set: aws-sam-cli pins versions (click) that others reject.
venv() {
    local dir="$cache/$1"
    shift
    if [[ ! -x "$dir/bin/python" ]]; then
        python3 -m venv "$dir"
    fi
    "$dir/bin/pip" install --quiet --disable-pip-version-check "$@"
}

step "0. tools (pip: cfn-lint, aws-sam-cli, cargo-lambda + ziglang, check-jsonschema; apt: shellcheck)"
venv sam-venv 'cfn-lint>=1.20,<2' 'aws-sam-cli>=1.130,<2' 'cargo-lambda>=1.6,<2'
venv jsonschema-venv 'check-jsonschema>=0.29,<1'
if ! command -v shellcheck >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq shellcheck >/dev/null
fi
sam_bin="$cache/sam-venv/bin"
"$sam_bin/cfn-lint" --version
"$sam_bin/sam" --version
"$sam_bin/cargo-lambda" lambda --version 2>/dev/null || "$sam_bin/cargo-lambda" --version
shellcheck --version | sed -n 2p

# template.yaml, its generated REST version (LocalStack's free plan) and LMI
# version, and the sam init-shaped starter the local cloud runs in its tests.
templates=(template.yaml template-rest.yaml template-lmi.yaml infra/sam-starter/template.yaml)

step "1a. cfn-lint ${templates[*]} (errors and warnings fail)"
"$sam_bin/cfn-lint" "${templates[@]}"
echo "cfn-lint: no findings"

step "1b. sam validate --lint (offline: dummy credentials, fixed region)"
for t in "${templates[@]}"; do
    AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing AWS_SESSION_TOKEN=testing \
        AWS_DEFAULT_REGION=us-east-1 SAM_CLI_TELEMETRY=0 \
        "$sam_bin/sam" validate --lint --region us-east-1 --template-file "$t"
done

step "1c. samconfig.toml parses and has a deploy stack, region and capabilities"
"$sam_bin/python" - <<'PY'
import tomllib
with open("samconfig.toml", "rb") as f:
    config = tomllib.load(f)
for env in ("default", "localstack"):
    g = config[env]["global"]["parameters"]
    d = config[env]["deploy"]["parameters"]
    assert g["stack_name"] and g["region"], env
    assert "CAPABILITY_IAM" in d["capabilities"], env
    assert config[env]["build"]["parameters"].get("beta_features") is True, env
    print(f"{env}: stack {g['stack_name']} in {g['region']}, {d['capabilities']}")
PY

step "2. cargo lambda build --release of the template's binaries (provided.al2023)"
# The binaries the template builds (Metadata.BuildProperties.Binary).
mapfile -t binaries < <(sed -n 's/^ *Binary: *\([A-Za-z0-9_-]*\) *$/\1/p' template.yaml | sort -u)
if ((${#binaries[@]} == 0)); then
    echo "no BuildProperties.Binary in template.yaml" >&2
    exit 1
fi
echo "binaries: ${binaries[*]}"
if [[ "${SKIP_LAMBDA_BUILD:-0}" == 1 ]]; then
    echo "skipped (SKIP_LAMBDA_BUILD=1)"
else
    bin_args=()
    for b in "${binaries[@]}"; do bin_args+=(--bin "$b"); done
    targets=(x86_64-unknown-linux-gnu)
    if rustup target list --installed 2>/dev/null | grep -qx aarch64-unknown-linux-gnu; then
        targets+=(aarch64-unknown-linux-gnu)
    else
        echo "arm64: not built (the aarch64-unknown-linux-gnu std is not installed; CI never downloads one)"
    fi
    # Its own target dir, so the workspace's debug build stays valid, kept
    # beside the tools so that CI's fresh clones on this machine reuse the
    # compiled dependencies; zig (from the ziglang wheel) is the linker.
    export CARGO_TARGET_DIR="${LAMBDA_TARGET_DIR:-$cache/lambda-build}"
    for target in "${targets[@]}"; do
        t0=$(date +%s)
        PATH="$sam_bin:$PATH" "$sam_bin/cargo-lambda" lambda build --release \
            --target "$target" "${bin_args[@]}"
        echo "$target: built in $(($(date +%s) - t0))s"
        for b in "${binaries[@]}"; do
            f="$CARGO_TARGET_DIR/lambda/$b/bootstrap"
            [[ -f "$f" ]] || { echo "missing $f" >&2; exit 1; }
            echo "  $b/bootstrap: $(stat -c %s "$f") bytes ($(file -b "$f" 2>/dev/null | cut -d, -f1-2))"
        done
    done
fi

step "3. localstack/docker-compose.yml against the compose-spec schema (no Docker engine)"
"$cache/jsonschema-venv/bin/check-jsonschema" --builtin-schema vendor.compose-spec \
    localstack/docker-compose.yml

step "4. shellcheck scripts/ localstack/ .ci/"
mapfile -t scripts < <(
    find scripts localstack .ci -type f \( -name '*.sh' -o -path '.ci/*' \) 2>/dev/null |
        while read -r f; do head -c 64 "$f" | grep -q '^#!.*\(bash\|sh\)' && echo "$f"; done | sort
)
printf '  %s\n' "${scripts[@]}"
shellcheck "${scripts[@]}"

step "5. localstack/tests/deploy-logic.sh (deploy.sh's template choice from fixture health documents, auth-token messages)"
localstack/tests/deploy-logic.sh

step "done: all template checks passed"
