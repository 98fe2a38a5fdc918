#!/usr/bin/env bash
# Memory per execution environment, from the REPORT lines of the function logs
# under a directory (a bench run's report folder, or `localcloud serve --log-dir`).
# For each function: its MemorySize, the invocations seen, and the lowest and
# highest "Max Memory Used". Max Memory Used is an environment's peak so far,
# so the lowest is a fresh environment after its first invocation (about its
# idle size) and the highest is the largest environment at its busiest.
#
#   scripts/memory-report.sh reports/20261201-170000
set -euo pipefail
dir="${1:?usage: scripts/memory-report.sh DIR (holding <function>.log files, at any depth)}"
mapfile -t logs < <(find "$dir" -name '*.log' -type f | sort)
if ((${#logs[@]} == 0)); then
    echo "no .log files under $dir" >&2
    exit 1
fi
echo "| function | MemorySize (MB) | invocations | idle: lowest Max Memory Used (MB) | peak: highest (MB) | out of memory |"
echo "|---|---:|---:|---:|---:|---:|"
# One row per function name, over every log of it (a bench run has one per run).
awk '
    FNR == 1 { name = FILENAME; sub(/.*\//, "", name); sub(/\.log$/, "", name) }
    /^REPORT RequestId:/ {
        n[name]++
        for (i = 1; i <= NF; i++) {
            if ($i == "Size:") size[name] = $(i + 1)
            if ($i == "Used:") {
                used = $(i + 1) + 0
                if (!(name in low) || used < low[name]) low[name] = used
                if (used > high[name]) high[name] = used
            }
        }
    }
    /Runtime.OutOfMemory/ { oom[name]++ }
    END {
        for (f in n) printf "| %s | %s | %d | %d | %d | %d |\n", f, size[f], n[f], low[f], high[f], oom[f]
    }
' "${logs[@]}" | sort
