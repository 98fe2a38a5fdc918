"""Function CPU per request against the idle time before each request: the same
GET sent N times one after the other on a keep-alive connection, with a pause of
GAP seconds after each answer, for each GAP; the CPU and DynamoDB calls are the
local cloud's own metering (/_localcloud/metrics, the figure the bench bills),
read before and after each (path, gap) and divided by N.

    python3 scripts/cpu-after-idle.py [--anonymous] ENDPOINTS_JSON API N GAPS PATH...

e.g. `python3 scripts/cpu-after-idle.py ep.json ConduitApi 150 0,0.003,0.02,0.2
/api/tags /api/profiles/user3`. The requests are signed in as `user7` of the
data `conduit-seed` writes (run it on the API's tables first), or with
`--anonymous` not signed in at all (any API, e.g. the no-op functions of
infra/localcloud/tests/fixtures/noop-app.yaml). docs/benchmarks.md ("CPU per
request after idle time", "The floor of an invocation") shows runs.
"""
import http.client
import json
import sys
import time
import urllib.request

SEEDED_EMAIL = "user7@seed.conduit.local"
SEEDED_PASSWORD = "conduit-seed-password"
WARM_UP = 3


def main():
    args = sys.argv[1:]
    anonymous = bool(args) and args[0] == "--anonymous"
    if anonymous:
        args = args[1:]
    if len(args) < 5:
        sys.exit(__doc__)
    endpoints = json.load(open(args[0]))
    api, count = args[1], int(args[2])
    gaps = [float(g) for g in args[3].split(",")]
    paths = args[4:]
    edge = endpoints["endpoint"]
    hostport = endpoints["apis"][api].removeprefix("http://").split("/")[0]
    host, port = hostport.split(":")
    conn = http.client.HTTPConnection(host, int(port))

    def call(method, path, body=None, token=None):
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Token {token}"
        conn.request(method, path, body=json.dumps(body) if body else None, headers=headers)
        response = conn.getresponse()
        return response.status, response.read()

    def meter():
        with urllib.request.urlopen(f"{edge}/_localcloud/metrics") as r:
            doc = json.load(r)
        functions = [f for n, f in doc["lambda"]["functions"].items() if "Sweeper" not in n]
        calls = sum(sum(t["requests"].values()) for t in doc["dynamodb"]["tables"].values())
        return sum(f["cpu_ms"] for f in functions), calls

    token = None if anonymous else login(call)

    print(f"{'path':45} " + " ".join(f"{'gap ' + str(g) + ' s':>12}" for g in gaps))
    for path in paths:
        row = []
        for gap in gaps:
            for _ in range(WARM_UP):
                call("GET", path, token=token)
            cpu_before, calls_before = meter()
            for _ in range(count):
                status, body = call("GET", path, token=token)
                if status != 200:
                    sys.exit(f"GET {path}: {status} {body[:200]!r}")
                if gap:
                    time.sleep(gap)
            cpu_after, calls_after = meter()
            row.append(f"{(cpu_after - cpu_before) / count:.2f} ms/{(calls_after - calls_before) / count:.0f}")
        print(f"{path:45} " + " ".join(f"{cell:>12}" for cell in row))
    print("(each cell: function CPU per request / DynamoDB calls per request)")


def login(call):
    status, body = call("POST", "/api/users/login",
                        {"user": {"email": SEEDED_EMAIL, "password": SEEDED_PASSWORD}})
    if status != 200:
        sys.exit(f"login as {SEEDED_EMAIL}: {status} {body[:200]!r} (seed the tables with conduit-seed)")
    return json.loads(body)["user"]["token"]


if __name__ == "__main__":
    main()
