#!/usr/bin/env bash
# Installs moto server (PyPI `moto[server]`) if missing, starts it in the
# background on a port and prints its endpoint once it answers. moto is the
# oracle of the SQS differential tests.
#
#   scripts/oracles/moto.sh [port]        # default port 8766
#   export MOTO_ENDPOINT=$(scripts/oracles/moto.sh)
#   scripts/oracles/moto.sh --stop [port]
#
# Idempotent: a second call reuses the install and an instance already
# listening on the port. Needs Python 3 with pip and curl. moto routes
# requests by their SigV4 header, so clients must sign (the AWS SDKs do).
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
state_dir="${MOTO_STATE_DIR:-$repo_root/target/oracles/moto}"
python="${PYTHON:-python3}"

stop=0
if [[ "${1:-}" == "--stop" ]]; then stop=1; shift; fi
port="${1:-8766}"
endpoint="http://127.0.0.1:$port"
pid_file="$state_dir/moto-$port.pid"
log_file="$state_dir/moto-$port.log"

answers() {
    curl -s -o /dev/null -m 2 "$endpoint/moto-api/"
}

if [[ $stop == 1 ]]; then
    if [[ -f "$pid_file" ]]; then
        kill "$(cat "$pid_file")" 2>/dev/null || true
        rm -f "$pid_file"
    fi
    exit 0
fi

mkdir -p "$state_dir"
spec='moto[server]>=5,<6'
venv="$state_dir/venv"
have_moto() { "$1" -c 'import moto.server, flask, flask_cors' >/dev/null 2>&1; }
if ! have_moto "$python"; then
    if have_moto "$venv/bin/python"; then
        python="$venv/bin/python"
    else
        echo "installing $spec with pip" >&2
        if ! "$python" -m pip install --quiet --disable-pip-version-check "$spec" >&2; then
            # An "externally managed" system Python (PEP 668) refuses; a
            # virtualenv under target/ does not.
            echo "system pip refused; installing into $venv" >&2
            "$python" -m venv "$venv" >&2
            "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$spec" >&2
            python="$venv/bin/python"
        fi
    fi
fi

if ! answers; then
    # Run the module, not the `moto_server` shim, so the same interpreter
    # that has moto installed runs it.
    nohup "$python" -m moto.server -H 127.0.0.1 -p "$port" >"$log_file" 2>&1 &
    echo $! >"$pid_file"
    for _ in $(seq 1 120); do
        answers && break
        sleep 0.5
    done
    answers || { echo "moto did not answer on $endpoint; see $log_file" >&2; exit 1; }
fi
echo "$endpoint"
