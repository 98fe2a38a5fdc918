#!/usr/bin/env python3
"""Contention as the local cloud measures it, idle and with CPU hogs (issue 43).

Starts `localcloud serve --template template.yaml` (default `--cpu-share aws`),
seeds the Conduit tables with the bench's quick data set (`conduit-seed`),
warms the monolith up, then for each round sends REQUESTS sequential
`GET /api/articles` through the HTTP API at RATE per second and reads the
monolith's figures from `GET /_localcloud/metrics` before and after:
billed ms, contention (per invocation, and as a share of the billed time),
durations and billed ms as AWS would bill them (contention taken out), and
the older whole-run figure (run-queue waits of every thread minus the
throttled time) beside it. Rounds: `idle`, then `hog` with one busy
`sh -c 'while :; do :; done'` per core (ended after the round), then `idle`
again.

Acceptance (docs/cpu-share.md, "Contention is not quota"): idle, contention
under 1 % of the billed time; with the hogs, contention shows and the
durations as AWS would bill them stay within 10 % of the idle rounds' mean.

    scripts/contention-check.py                      # target/release, 200 requests at 10/s
    BINARIES_DIR=/tmp/bin REQUESTS=200 RATE=10 HOGS=2 scripts/contention-check.py
    ROUNDS=idle,hog,idle scripts/contention-check.py

Exits 1 if a criterion fails. Sends traffic to 127.0.0.1 only.
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.abspath(os.environ.get("BINARIES_DIR", os.path.join(ROOT, "target/release")))
REQUESTS = int(os.environ.get("REQUESTS", "200"))
RATE = float(os.environ.get("RATE", "10"))
HOGS = int(os.environ.get("HOGS", str(os.cpu_count() or 2)))
# Without ROUNDS: BLOCKS blocks, idle and busy in turn, the busy loops
# paused (SIGSTOP) between their blocks: the function's own CPU time per
# invocation drifts by up to 30 % between minutes on a shared VM (two idle
# rounds a minute apart: 1.50 and 1.97 ms), which whole rounds apart
# compare along with the contention.
INTERLEAVED = "ROUNDS" not in os.environ
BLOCKS = max(2, int(os.environ.get("BLOCKS", "10")) // 2 * 2)
ROUNDS = os.environ.get("ROUNDS", "idle,hog,idle").split(",")
WARMUP = int(os.environ.get("WARMUP", "200"))
CPU_SHARE = os.environ.get("CPU_SHARE", "aws")
FUNCTION = "ConduitMonolithFunction"


def get(url, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.status, response.read()


def metrics(endpoint, name):
    doc = json.loads(get(f"{endpoint}/_localcloud/metrics")[1])
    return doc["lambda"]["cpu_share"]["mode"], doc["lambda"]["functions"][name]


def pause(processes):
    for process in processes:
        process.send_signal(signal.SIGSTOP)


def resume(processes):
    for process in processes:
        process.send_signal(signal.SIGCONT)


def merge(rounds):
    """One condition's blocks as one round: the figures added up, the records joined."""
    merged = dict(rounds[0])
    for r in rounds[1:]:
        for key, value in r.items():
            if key == "records":
                merged[key] = merged[key] + value
            elif isinstance(value, (int, float)):
                merged[key] += value
    return merged


def run_round(api, endpoint, name, requests):
    before = metrics(endpoint, name)[1]
    period = 1.0 / RATE
    next_at = time.monotonic()
    failed = 0
    for _ in range(requests):
        now = time.monotonic()
        if next_at > now:
            time.sleep(next_at - now)
        next_at += period
        try:
            status, _ = get(f"{api}/api/articles")
            failed += status != 200
        except Exception:
            failed += 1
    mode, after = metrics(endpoint, name)
    records = invocation_records(endpoint, name, after["invocations"] - before["invocations"])
    d = lambda key: after[key] - before[key]
    wa, wb = after.get("without_contention"), before.get("without_contention")
    if wa is None or wb is None:
        sys.exit("this local cloud does not measure contention per invocation")
    w = lambda key: wa[key] - wb[key]
    invocations = d("invocations")
    return {
        "mode": mode,
        "failed": failed,
        "invocations": invocations,
        "duration_ms": d("duration_ms"),
        "billed_ms": d("billed_ms"),
        "contention_ms": w("contention_ms"),
        "wake_up_ms": wa.get("wake_up_ms", 0.0) - wb.get("wake_up_ms", 0.0),
        "measured": w("measured_invocations"),
        "duration_as_aws_ms": w("duration_ms"),
        "billed_as_aws_ms": w("billed_ms"),
        "whole_run_ms": max(0.0, d("run_queue_wait_ms") - d("throttled_ms")),
        "throttled_ms": d("throttled_ms"),
        "cpu_ms": d("cpu_ms"),
        "records": records,
    }


def invocation_records(endpoint, name, count):
    """The round's own invocation records (the function's newest `count`)."""
    doc = json.loads(get(f"{endpoint}/_localcloud/invocations?function={name}&last={count}")[1])
    return doc["invocations"]


def as_aws_ms(record):
    return record["duration_ms"] - (record.get("contention_ms") or 0.0) - (record.get("wake_up_ms") or 0.0)


def median(values):
    values = sorted(values)
    if not values:
        return 0.0
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def describe(label, r):
    n = max(r["invocations"], 1)
    share = r["contention_ms"] / r["billed_ms"] if r["billed_ms"] else 0.0
    print(
        f"{label}: {r['invocations']} invocations ({r['failed']} failed requests), mode {r['mode']}\n"
        f"  measured:        duration {r['duration_ms']:.1f} ms ({r['duration_ms'] / n:.3f} each), billed {r['billed_ms']} ms\n"
        f"  contention:      {r['contention_ms']:.2f} ms ({r['contention_ms'] / n:.4f} ms per invocation, "
        f"{share * 100:.2f} % of the billed time; {r['measured']} measured)\n"
        f"  wake-ups:        {r['wake_up_ms']:.2f} ms ({r['wake_up_ms'] / n:.4f} ms per invocation: idle cores waking)\n"
        f"  as AWS bills:    duration {r['duration_as_aws_ms']:.1f} ms ({r['duration_as_aws_ms'] / n:.3f} each), "
        f"billed {r['billed_as_aws_ms']} ms\n"
        f"  older figure:    {r['whole_run_ms']:.1f} ms of run-queue wait beyond {r['throttled_ms']:.1f} ms throttled, "
        f"all threads, whole run ({r['whole_run_ms'] / r['billed_ms'] * 100 if r['billed_ms'] else 0:.1f} % of the billed time)\n"
        f"  function CPU:    {r['cpu_ms']:.0f} ms\n"
        f"  per invocation (median of {len(r['records'])} records): duration "
        f"{median(x['duration_ms'] for x in r['records']):.3f} ms, as AWS bills "
        f"{median(as_aws_ms(x) for x in r['records']):.3f}, contention "
        f"{median(x.get('contention_ms') or 0.0 for x in r['records']):.3f}, CPU "
        f"{median(x.get('cpu_ms') or 0.0 for x in r['records']):.3f}"
    )
    return share


def main():
    work = tempfile.mkdtemp(prefix="contention-")
    endpoints = os.path.join(work, "endpoints.json")
    server = subprocess.Popen(
        [
            f"{BIN}/localcloud", "serve", "--bind", "127.0.0.1:0",
            "--template", os.path.join(ROOT, "template.yaml"),
            "--binaries-dir", BIN, "--cpu-share", CPU_SHARE,
            "--log-dir", os.path.join(work, "logs"), "--endpoints-file", endpoints,
            "--parameter-overrides", "JwtSecret=" + "x" * 40,
        ],
        stdout=open(os.path.join(work, "localcloud.log"), "w"),
        stderr=subprocess.STDOUT,
    )
    hogs = []
    try:
        for _ in range(300):
            if os.path.exists(endpoints) and os.path.getsize(endpoints) > 0:
                break
            time.sleep(0.1)
        ep = json.load(open(endpoints))
        endpoint = ep["endpoint"]
        api = ep["apis"]["ConduitApi"].rstrip("/")
        name = ep["functions"][FUNCTION]
        env = dict(os.environ, AWS_ENDPOINT_URL=endpoint, AWS_ACCESS_KEY_ID="test",
                   AWS_SECRET_ACCESS_KEY="test", AWS_REGION="us-east-1")
        subprocess.run(
            [f"{BIN}/conduit-seed", "--users", "200", "--articles", "2000", "--comments", "10000",
             "--users-table", "local-conduit-users", "--follows-table", "local-conduit-follows",
             "--articles-table", "local-conduit-articles", "--comments-table", "local-conduit-comments"],
            env=env, check=True, stdout=subprocess.DEVNULL,
        )
        for _ in range(WARMUP):
            get(f"{api}/api/articles")
        results = {}
        if INTERLEAVED:
            hogs = [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(HOGS)]
            pause(hogs)
            per_block = max(1, REQUESTS * 2 // BLOCKS)
            for block in range(BLOCKS):
                label = "idle" if block % 2 == 0 else "hog"
                if label == "hog":
                    resume(hogs)
                    time.sleep(0.2)
                results.setdefault(label, []).append(run_round(api, endpoint, name, per_block))
                if label == "hog":
                    pause(hogs)
                    time.sleep(0.2)
            results = {label: [merge(blocks)] for label, blocks in results.items()}
            for label in ("idle", "hog"):
                describe(f"{label} ({BLOCKS // 2} blocks of {per_block} requests"
                         + (f", {HOGS} busy loops)" if label == "hog" else ")"), results[label][0])
        else:
            for label in ROUNDS:
                if label == "hog":
                    hogs = [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(HOGS)]
                    time.sleep(1)
                results.setdefault(label, []).append(run_round(api, endpoint, name, REQUESTS))
                for hog in hogs:
                    hog.kill()
                    hog.wait()
                hogs = []
                describe(f"{label} ({HOGS} hogs)" if label == "hog" else label, results[label][-1])
    finally:
        for hog in hogs:
            resume([hog])
            hog.kill()
        server.terminate()
        server.wait()
    with open(os.path.join(work, "rounds.json"), "w") as out:
        json.dump(results, out)
    print(f"each round's figures and invocation records: {work}/rounds.json")
    ok = True
    for idle in results.get("idle", []):
        share = idle["contention_ms"] / idle["billed_ms"]
        verdict = share < 0.01
        ok &= verdict
        print(f"idle contention {share * 100:.2f} % of the billed time: {'ok' if verdict else 'FAILED'} (< 1 %)")
    if results.get("idle") and results.get("hog"):
        # Against the mean of the idle rounds: on a shared VM two idle rounds
        # a minute apart have differed by 40 % (1.84 and 2.61 ms each), so
        # ROUNDS=idle,hog,idle brackets the hog round.
        each = lambda r: r["duration_as_aws_ms"] / max(r["invocations"], 1)
        idle_each = sum(each(r) for r in results["idle"]) / len(results["idle"])
        for hog in results["hog"]:
            moved = each(hog) / idle_each - 1
            verdict = abs(moved) <= 0.10 and hog["contention_ms"] > 0
            ok &= verdict
            print(
                f"hog: contention {hog['contention_ms'] / max(hog['invocations'], 1):.3f} ms per invocation; "
                f"durations as AWS bills {each(hog):.3f} ms against {idle_each:.3f} idle "
                f"(mean of {len(results['idle'])} idle rounds; {moved * 100:+.1f} %): "
                f"{'ok' if verdict else 'FAILED'} (within 10 %)"
            )
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
