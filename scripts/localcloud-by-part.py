"""Where the local cloud's own CPU goes, by part, from a `perf record` with call
graphs of the `localcloud` process under load (docs/benchmarks.md, "A quiet
emulator"):

    perf record -F 1999 --call-graph dwarf,16384 -p LOCALCLOUD_PID -o perf.data -- sleep 36
    perf script -i perf.data --comms tokio-rt-worker,dynamodb-ttl,localcloud \
        -F comm,tid,period,ip,sym,dso > script.txt
    python3 scripts/localcloud-by-part.py script.txt [US_PER_REQUEST]

`--comms` keeps the local cloud's own threads: `perf record -p` also follows the
function processes it spawns while recording. A sample in the kernel is put by
the system call it is in (socket send or receive, parking, waking, files, ...),
except under the per-invocation metering code, which is kept apart; a sample in
user space goes to the part of the innermost local cloud frame of its chain.
With US_PER_REQUEST (the local cloud's CPU per request over the same run), each
part is also given in microseconds per request.
"""
import re, sys, collections
METERING = r"procstat|cpu_share::|ProcessCpuClock|CpuAccount|sample_cpu|Function>::retire|read_peak_memory|PeakRssReader|localcloud_lambda::cpu::|contention|ThrottleReader"
USER = [
  ("metering reads (metering's files)", METERING),
  ("cold start (spawn, cgroup, listener)", r"Environment>::start|environment::command|std::process::Command|tokio::process::Command|RuntimeApi>::bind"),
  ("function logs", r"localcloud_lambda::logs::"),
  ("invocation records, REPORT lines", r"localcloud_lambda::metering::|report_line"),
  ("DynamoDB service", r"localcloud_dynamodb|dynamodb_lang"),
  ("SQS service", r"localcloud_sqs"),
  ("event source mappings", r"localcloud_esm"),
  ("API Gateway", r"localcloud_apigw"),
  ("Runtime API handler", r"localcloud_lambda::runtime_api"),
  ("Lambda invoke path", r"localcloud_lambda"),
  ("metrics document", r"localcloud_metrics|admin::"),
  ("front-door dispatch", r"localcloud_core::dispatch|localcloud_core::context"),
  ("HTTP (hyper, user space)", r"hyper|\bh2::|http_body|hyper_util|localcloud_core::server|\bhttp::"),
  ("async runtime (tokio, user space)", r"tokio::|mio::"),
]
SYSCALLS = [
  ("kernel: socket send (loopback TCP, wakes the reader)", r"sys_writev|sys_sendto|sys_sendmsg|tcp_sendmsg"),
  ("kernel: socket receive", r"sys_readv|sys_recvfrom|sys_recvmsg|tcp_recvmsg"),
  ("kernel: parking (epoll_wait, futex wait) and context switches", r"sys_epoll_wait|futex_wait|schedule\b|__schedule"),
  ("kernel: waking threads (futex wake, eventfd)", r"futex_wake|eventfd|sys_futex"),
  ("kernel: files (write, read, open, close)", r"sys_write\b|ksys_write|sys_read\b|ksys_read|sys_openat|sys_close|sys_pread|sys_newfstatat|sys_statx"),
  ("kernel: process spawn, exit, signals, memory", r"sys_clone|sys_execve|sys_wait4|sys_kill|do_exit|sys_exit|mmap|munmap|page_fault|sys_pipe"),
  ("kernel: epoll_ctl, accept, sockets", r"sys_epoll_ctl|sys_accept|sys_socket|sys_bind|sys_connect|sys_listen|sys_setsockopt|sys_getsockname"),
]
def classify(frames):
    kernel = [f for f in frames if "[kernel" in f]
    names = [f.split(" (")[0] for f in frames]
    if any(re.search(METERING, n) for n in names):
        return "metering reads (metering's files)" + (" [kernel]" if kernel else "")
    if kernel:
        ktext = " ".join(f.split(" (")[0] for f in kernel)
        for name, pat in SYSCALLS:
            if re.search(pat, ktext):
                # files written by logs stay with logs
                if name.startswith("kernel: files") and any("localcloud_lambda::logs" in n for n in names):
                    return "function logs [kernel]"
                return name
        return "kernel: other (interrupts, timers)"
    for name, pat in USER:
        if any(re.search(pat, n) for n in names):
            return name
    return "other user space (allocator, libc)"
tot = collections.Counter()
cur = None; frames = []
def flush():
    global cur, frames
    if cur is not None:
        tot[classify(frames)] += 1
    cur = None; frames = []
for line in open(sys.argv[1], errors="replace"):
    if not line.strip():
        flush(); continue
    if line[0] not in "\t ":
        flush(); cur = 1; frames = []
    else:
        s = line.strip().split(" ", 1)
        frames.append(s[1] if len(s) > 1 else s[0])
flush()
whole = sum(tot.values())
scale = float(sys.argv[2]) if len(sys.argv) > 2 else None
print(f"samples {whole}")
print("| part | share |" + (" us per request |" if scale else ""))
print("|---|--:|" + ("--:|" if scale else ""))
for p, n in tot.most_common():
    print(f"| {p} | {100*n/whole:.1f} % |" + (f" {scale*n/whole:.0f} |" if scale else ""))
