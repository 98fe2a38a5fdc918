"""Function CPU, invocations and DynamoDB/SQS calls per request, for each Conduit
request type on each of the three Conduit APIs, from the local cloud's own
metering (/_localcloud/metrics: the same CPU figure the bench bills).

    python3 scripts/cpu-by-request-type.py ENDPOINTS_JSON [N] [LOGINS]

ENDPOINTS_JSON is the file `localcloud serve --endpoints-file` writes for
template.yaml. Each request type is sent N times (default 300) one after the
other on a keep-alive connection, after three warm-up requests; logins
(Argon2id) LOGINS times (default 40). A path with `{offset}` pages through
offsets 0, 20, ..., 380 as the bench's list does (load the bench's data set
with `conduit-seed` first, or those pages are empty). The last line weighs the
types as the bench's mixed workload does (loadtest/bench/src/scenarios/conduit.rs,
MIX, with its tokens: lists and comments anonymous, article and profile signed
in; the writes, 6 %, counted as comment posts). The counters are read before and after
each type, so a figure is a difference over N requests of one type on one API.
The scheduled reply sweepers are left out. docs/benchmarks.md ("Where a
request's CPU goes") shows a run.
"""
import http.client
import json
import sys
import time
import urllib.request

APIS = ["ConduitApi", "ConduitMicroInvokeApi", "ConduitMicroQueueApi"]
PASSWORD = "correct horse battery"


class Api:
    def __init__(self, url):
        rest = url.removeprefix("http://")
        hostport, _, prefix = rest.partition("/")
        host, port = hostport.split(":")
        self.prefix = "/" + prefix.rstrip("/") if prefix else ""
        self.conn = http.client.HTTPConnection(host, int(port))

    def call(self, method, path, body=None, token=None):
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Token {token}"
        data = json.dumps(body) if body is not None else None
        self.conn.request(method, self.prefix + path, body=data, headers=headers)
        response = self.conn.getresponse()
        text = response.read()
        return response.status, (json.loads(text) if text else None)

    def must(self, expected, method, path, body=None, token=None):
        status, reply = self.call(method, path, body, token)
        if status != expected:
            sys.exit(f"{method} {path}: {status}, expected {expected}: {reply}")
        return reply


def metrics(edge):
    with urllib.request.urlopen(f"{edge}/_localcloud/metrics") as r:
        return json.load(r)


def totals(doc):
    functions = {n: f for n, f in doc["lambda"]["functions"].items() if "Sweeper" not in n}
    dynamodb = sum(sum(t["requests"].values()) for t in doc["dynamodb"]["tables"].values())
    sqs = sum(sum(q["api_calls"].values()) for q in doc["sqs"]["queues"].values())
    return {
        "cpu_ms": sum(f["cpu_ms"] for f in functions.values()),
        "invocations": sum(f["invocations"] for f in functions.values()),
        "errors": sum(f["errors"] for f in functions.values()),
        "dynamodb": dynamodb,
        "sqs": sqs,
    }


def seed(api, tag):
    """Two users (B follows A), three articles by A with tags, a comment."""
    a, b = f"a{tag}", f"b{tag}"
    users = {}
    for name in (a, b):
        user = {"username": name, "email": f"{name}@example.org", "password": PASSWORD}
        users[name] = api.must(201, "POST", "/api/users", {"user": user})["user"]["token"]
    slug = None
    for i in range(3):
        article = {"title": f"Breakdown {tag} {i}", "description": "d", "body": "b" * 400,
                   "tagList": ["bench", f"t{i}"]}
        slug = api.must(201, "POST", "/api/articles", {"article": article}, users[a])["article"]["slug"]
    api.must(200, "POST", f"/api/profiles/{a}/follow", None, users[b])
    api.must(201, "POST", f"/api/articles/{slug}/comments", {"comment": {"body": "first"}}, users[b])
    return a, b, users, slug


def request_types(a, b, users, slug):
    login = {"user": {"email": f"{b}@example.org", "password": PASSWORD}}
    comment = {"comment": {"body": "a comment of some length " * 4}}
    return [
        ("unknown route (404)", 404, "GET", "/api/nothing", None, None),
        ("GET /api/tags", 200, "GET", "/api/tags", None, None),
        ("GET /api/articles", 200, "GET", "/api/articles", None, None),
        ("GET /api/articles (signed in)", 200, "GET", "/api/articles", None, users[b]),
        ("GET /api/articles?offset=0..380", 200, "GET", "/api/articles?limit=20&offset={offset}", None, None),
        ("GET /api/articles?tag=", 200, "GET", "/api/articles?tag=bench&limit=20", None, None),
        ("GET /api/articles?author=", 200, "GET", f"/api/articles?author={a}&limit=20", None, None),
        ("GET /api/articles/feed", 200, "GET", "/api/articles/feed", None, users[b]),
        ("GET /api/articles/{slug}", 200, "GET", f"/api/articles/{slug}", None, None),
        ("GET /api/articles/{slug} (signed in)", 200, "GET", f"/api/articles/{slug}", None, users[b]),
        ("GET /api/articles/{slug}/comments", 200, "GET", f"/api/articles/{slug}/comments", None, None),
        ("GET /api/profiles/{username}", 200, "GET", f"/api/profiles/{a}", None, users[b]),
        ("GET /api/user", 200, "GET", "/api/user", None, users[b]),
        ("POST /api/articles/{slug}/comments", 201, "POST", f"/api/articles/{slug}/comments", comment, users[b]),
        ("POST /api/users/login (Argon2id)", 200, "POST", "/api/users/login", login, None),
    ]


# The bench's weights (MIX) over the types above that stand for them.
BENCH_MIX = {
    "GET /api/articles?offset=0..380": 40 * 6 / 8,
    "GET /api/articles?tag=": 40 / 8,
    "GET /api/articles?author=": 40 / 8,
    "GET /api/articles/{slug} (signed in)": 20,
    "GET /api/profiles/{username}": 15,
    "GET /api/articles/{slug}/comments": 15,
    "GET /api/tags": 3,
    "POST /api/articles/{slug}/comments": 6,
}


def measure(api, edge, kind, n):
    name, status, method, path, body, token = kind
    paths = [path.replace("{offset}", str(o)) for o in range(0, 400, 20)] if "{offset}" in path else [path]
    for i in range(3):
        api.must(status, method, paths[i % len(paths)], body, token)
    time.sleep(0.25)  # the local cloud samples a process's CPU at most every 100 ms
    before = totals(metrics(edge))
    for i in range(n):
        api.must(status, method, paths[i % len(paths)], body, token)
    time.sleep(0.25)
    after = totals(metrics(edge))
    delta = {k: (after[k] - before[k]) / n for k in before}
    if delta["errors"]:
        sys.exit(f"{name}: function errors during the measurement")
    return delta


def main(endpoints_file, n="300", logins="40"):
    endpoints = json.load(open(endpoints_file))
    edge = endpoints["endpoint"].rstrip("/")
    rows = {}
    for which, api_name in enumerate(APIS):
        api = Api(endpoints["apis"][api_name])
        kinds = request_types(*seed(api, f"{int(time.time())}{which}"))
        for kind in kinds:
            count = int(logins) if "login" in kind[3] else int(n)
            rows.setdefault(kind[0], {})[api_name] = measure(api, edge, kind, count)
            d = rows[kind[0]][api_name]
            print(f"{api_name:24} {kind[0]:36} {d['cpu_ms']:7.3f} ms CPU  "
                  f"{d['invocations']:4.1f} inv  {d['dynamodb']:4.1f} DynamoDB  {d['sqs']:4.1f} SQS",
                  file=sys.stderr)
    print("| request | monolith CPU ms | DynamoDB calls | micro-invoke CPU ms (x) | invocations "
          "| micro-queue CPU ms (x) | invocations | SQS calls |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|")
    for name, per_api in rows.items():
        mono, inv, que = (per_api[a] for a in APIS)
        print(f"| {name} | {mono['cpu_ms']:.2f} | {mono['dynamodb']:.0f} "
              f"| {inv['cpu_ms']:.2f} ({inv['cpu_ms'] / mono['cpu_ms']:.2f}x) | {inv['invocations']:.0f} "
              f"| {que['cpu_ms']:.2f} ({que['cpu_ms'] / mono['cpu_ms']:.2f}x) | {que['invocations']:.0f} "
              f"| {que['sqs']:.0f} |")
    weight = sum(BENCH_MIX.values())
    mix = {a: sum(w * rows[k][a]["cpu_ms"] for k, w in BENCH_MIX.items()) / weight for a in APIS}
    mono, inv, que = (mix[a] for a in APIS)
    print(f"| bench mix (weighted) | {mono:.2f} | | {inv:.2f} ({inv / mono:.2f}x) | "
          f"| {que:.2f} ({que / mono:.2f}x) | | |")


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3, 4):
        sys.exit(__doc__)
    main(*sys.argv[1:])
