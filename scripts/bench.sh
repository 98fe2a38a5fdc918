#!/usr/bin/env bash
# The bench, from a fresh checkout: builds the release binaries (the functions,
# the local cloud, the bench driver), then runs `bench run --quick` against the
# local cloud and says where the report is. Extra arguments go to `bench run`:
#
#   scripts/bench.sh                        # quick: about 11 minutes after the build
#   scripts/bench.sh --full                 # the original ramps and durations
#   scripts/bench.sh --smoke                # seconds
#   scripts/bench.sh --scenario orders-highload --variant orders-queue
#   scripts/bench.sh --api both             # each variant behind an HTTP API and a REST API
#   scripts/bench.sh --target aws --stack-outputs outputs.json
set -euo pipefail
cd "$(dirname "$0")/.."

out="reports/$(date +%Y%m%d-%H%M%S)"
for arg in "$@"; do
    [[ "$arg" == --out ]] && out=""
done

# --all-targets, as scripts/test.sh builds: the tests' dev-dependencies
# change some dependencies' features, so building only --bins here would make
# the tests rebuild the AWS SDK; this way one build serves both commands.
echo "== building release binaries (cargo build --release --workspace --all-targets)"
build_start=$SECONDS
cargo build --release --workspace --all-targets
echo "== built in $((SECONDS - build_start)) s"

echo "== bench run (report in ${out:-the folder given with --out})"
bin_dir="${CARGO_TARGET_DIR:-target}/release"
args=(run --binaries-dir "$bin_dir")
[[ -n "$out" ]] && args+=(--out "$out")
"$bin_dir/bench" "${args[@]}" "$@"

if [[ -n "$out" ]]; then
    echo
    echo "report:  $out/report.html"
    echo "results: $out/results.json"
    echo "summary: $out/summary.md"
fi
