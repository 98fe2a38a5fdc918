"""CPU per request of one function process on the local cloud, from its own
/proc/<pid>/stat (user + system time), over N sequential keep-alive requests.

    python3 scripts/cpu-per-request.py URL N PATH[,PATH...] LOCALCLOUD_PID [FUNCTION_BINARY]

URL is an API's base URL (the endpoints file of `localcloud serve
--endpoints-file`); the function process is the child of LOCALCLOUD_PID
running FUNCTION_BINARY (default conduit-monolith; the first warm one found).
Paths are requested in turn, each must answer 200. docs/benchmarks.md
("CPU per request") runs it against two local clouds side by side.
"""
import http.client
import os
import sys
import time


def stat(pid):
    return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()


def function_pid(parent, binary):
    for p in filter(str.isdigit, os.listdir("/proc")):
        try:
            if open(f"/proc/{p}/comm").read().strip() == binary[:15] and int(stat(p)[1]) == parent:
                return int(p)
        except OSError:
            pass
    sys.exit(f"no {binary} process under pid {parent}: send a request first")


def cpu_seconds(pid):
    fields = stat(pid)
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main(url, n, paths, parent, binary="conduit-monolith"):
    host, port = url.removeprefix("http://").split("/")[0].split(":")
    prefix = url.removeprefix("http://").partition("/")[2]
    prefix = "/" + prefix.rstrip("/") if prefix else ""
    conn = http.client.HTTPConnection(host, int(port))
    paths = paths.split(",")

    def get(path):
        conn.request("GET", prefix + path)
        response = conn.getresponse()
        body = response.read()
        if response.status != 200:
            sys.exit(f"GET {path}: {response.status} {body[:200]!r}")

    for path in paths:  # warm: the environment exists and its pools are open
        get(path)
    pid = function_pid(int(parent), binary)
    cpu, wall = cpu_seconds(pid), time.monotonic()
    for i in range(int(n)):
        get(paths[i % len(paths)])
    cpu, wall = cpu_seconds(pid) - cpu, time.monotonic() - wall
    print(f"{binary} pid {pid}: {n} requests, {cpu / int(n) * 1000:.3f} ms CPU per request, "
          f"{wall / int(n) * 1000:.2f} ms wall per request")


if __name__ == "__main__":
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__)
    main(*sys.argv[1:])
