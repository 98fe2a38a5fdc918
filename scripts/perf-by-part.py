"""Where a function process's CPU goes, by part (event decoding, SDK signing,
JSON, ...), from a `perf record` of it: each sample's own symbol (self time,
no call-graph attribution) is put in the first part whose pattern it matches.

    perf record -F 4000 -p FUNCTION_PID -o perf.data -- sleep 20   # while the load runs
    perf report -i perf.data --stdio --no-children --sort dso,symbol -g none \
        --percent-limit 0 | python3 scripts/perf-by-part.py

Generic code is named by the crate that instantiates it as often as by the crate
that defines it, so the parts are approximate; docs/benchmarks.md ("Where a
request's CPU goes") shows a run and how to read it.
"""
import re
import sys

# Most specific first: a symbol goes to the first part that matches.
PARTS = [
    ("kernel (syscalls, network, scheduling)", r"^\[kernel|\[k\]"),
    ("Argon2id", r"argon2|blake2"),
    ("SigV4 signing (canonical request, SHA-256, HMAC)", r"aws_sigv4|sha2|hmac|aws_lc|ring::|sha256"),
    ("SDK (de)serialisation of DynamoDB/SQS/Lambda requests", r"protocol_serde|aws_smithy_json|aws_sdk_\w+::(types|operation)"),
    ("SDK orchestrator, interceptors, endpoints, retries", r"aws_smithy_runtime|aws_smithy_types|aws_runtime|aws_types|aws_config|aws_credential|aws_smithy_http|aws_sdk_"),
    ("HTTP client and Runtime API connection (hyper, http)", r"hyper|\bh2::|http::|http_body|httparse|tower"),
    ("Lambda runtime and event decoding (lambda_http, lambda_runtime)", r"lambda_http|lambda_runtime|aws_lambda_events|query_map"),
    ("JSON (serde_json: events, bodies, responses)", r"serde_json|serde::|serde_core"),
    ("our code (conduit, orders, transport)", r"conduit|orders|transport::"),
    ("logging (tracing)", r"tracing"),
    ("async runtime (tokio, mio)", r"tokio|mio::"),
    ("allocator (mimalloc)", r"\bmi_|mimalloc|_mi_"),
    ("memcpy, string and other libc", r"libc|memcpy|memmove|memset|strlen|__"),
    ("hash maps (DynamoDB items as maps: SipHash, insert, clone, drop), UTF-8 checks",
     r"hashbrown|indexmap|hash::sip|BuildHasher|Hasher|from_utf8|Utf8Chunks"),
    ("dates and formatting (chrono, core::fmt)", r"chrono|core::fmt|alloc::fmt|Display>::fmt"),
]


def part_of(dso, symbol):
    # The symbol alone: every symbol of a function binary has its name as dso.
    text = symbol if dso != "[kernel]" else f"{dso} {symbol}"
    for name, pattern in PARTS:
        if re.search(pattern, text):
            return name
    return "other"


def main():
    totals = {}
    line_re = re.compile(r"^\s*([\d.]+)%\s+(\S+)\s+\[(.)\]\s+(.*)$")
    for line in sys.stdin:
        m = line_re.match(line)
        if not m:
            continue
        percent, dso, kind, symbol = float(m.group(1)), m.group(2), m.group(3), m.group(4)
        if kind == "k":
            dso = "[kernel]"
        part = part_of(dso, symbol)
        totals[part] = totals.get(part, 0.0) + percent
    whole = sum(totals.values()) or 1.0
    print("| part | share of the function's CPU |")
    print("|---|--:|")
    for part, percent in sorted(totals.items(), key=lambda kv: -kv[1]):
        print(f"| {part} | {percent / whole * 100:.1f} % |")


if __name__ == "__main__":
    main()
