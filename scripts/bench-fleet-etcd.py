#!/usr/bin/env python3
"""Fleet benchmark on etcd (BENCHMARKS.md "Fleet on etcd", issue 15):
scripts/bench-fleet.sh --store etcd runs it. Two replicas of forewarn serve
on a real etcd (Debian's etcd-server, or $FOREWARN_ETCD_BIN), started by the
script in a temporary directory on free 127.0.0.1 ports with etcd's
default limits (--max-txn-ops 128, --quota-backend-bytes 2 GB), stopped
at exit.

  scripts/bench-fleet.sh --store etcd                 # the issue's sizes
  scripts/bench-fleet.sh --store etcd --short         # CI: about a minute
  scripts/bench-fleet.sh --store etcd --campaigns 3 --campaign-timeout 300
  scripts/bench-fleet.sh --store etcd --profile cpu.pb.gz

It builds forewarn and internal/tools/mkfleet (no -race), which writes the
fleets through the control plane (scopes of 10 VMs in 5 update domains,
each VM its own address from 127.1.0.1 on; a batch halved until it fits
etcd's --max-txn-ops). Every replica runs

  forewarn serve --store etcd://127.0.0.1:PORT/PREFIX --admin-token-file T
    --replica-id rN --metadata-addr 127.0.0.1:PORT --admin-addr 127.0.0.1:PORT
    --rate-limit 0 --dev --time-scale S --pprof-addr 127.0.0.1:PORT

(--dev: every scope enabled, so events are Scheduled with their notice).

1. Start-up: mkfleet writes --startup-scopes scopes (10,000: 100,000 VMs);
   two replicas start together on it, and each is timed from exec until
   GET /v1/status answers 200 (serve answers only once the fleet is loaded
   and published); then its RSS after --idle-wait, and a metadata GET as the
   fleet's last VM from its own address: its answer and how long it took
   (the scope's first request enables it, a store write that may wait 10 s
   before it answers 500), then again until it answers 200: the time from
   exec until then. Baseline: one replica on an empty prefix of the same
   etcd. Target: each under 5 s.
2. Campaigns: on a fresh etcd, mkfleet writes --campaign-scopes scopes
   (2,000: 20,000 VMs), compacted and defragmented; two replicas; then
   --campaigns Reboot campaigns one after the other, each
   POST /v1/campaigns {"type":"Reboot","all":true,"parallelScopes":SCOPES}
   to the replica that does not lead, which is polled
   (GET /v1/campaigns/ID) until the campaign is done or
   --campaign-timeout passes (then it is cancelled and no more run).
   Figures, per campaign:
   - first update domain: from before the POST until every scope has had an
     event (target: under 10 s), and the most scopes seen with an event at
     once;
   - duration: endedAt - createdAt over nominal = the estimatedEnd the POST
     answered - createdAt (target: at most 1.2x);
   - event end lag: endedAt - endsAt of each of the campaign's events in
     GET /v1/history (target: p99 under 2 s). endsAt is set when the event
     starts (startedAt + the scaled impact), so a late start does not show
     in it; the start lag, startedAt - the NotBefore it was scheduled for,
     is shown too. NotBefore is cleared at the start, so it is recomputed
     as serve computes it, ceil-to-the-second(createdAt + notice/scale);
   - etcd: the KV requests it served (forewarn's reads and commits) and
     the keys put and deleted, from etcd's /metrics, per event;
     dbSize and dbSizeInUse (the maintenance Status call of etcdctl
     endpoint status, through etcd's JSON gateway: etcdctl, Debian's
     etcd-client, is not needed) before and after the
     campaign and after compacting at the current revision and
     defragmenting (etcdctl compact + defrag), which the script does after
     every campaign, as an operator's auto-compaction would; the revision
     delta of the campaign (one revision per committed transaction) per
     event. Target: dbSize after the last campaign at most 2x after the
     first.
   The leading replica's CPU profile covers the first campaign (15 s
   profiles back to back, merged); --profile FILE keeps it.

It prints Markdown tables: each figure with its target and PASS or MISS. A
MISS does not fail the script, nor a campaign that timed out; it exits 1
only if something did not run (and keeps its directory, with the logs).
Stopped (SIGTERM, ^C), it prints what it measured until then and exits
non-zero. --skip-startup runs the campaigns only.
"""

import argparse
import calendar
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRST_VM = "127.1.0.1"


class Failed(Exception):
    """Something did not run: the script exits 1."""


def parse_args():
    p = argparse.ArgumentParser(
        prog="bench-fleet.sh --store etcd",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--short", action="store_true",
                   help="CI sizes: 200 scopes to start, 20 in 2 campaigns at --time-scale 300")
    p.add_argument("--startup-scopes", type=int, help="scopes of 10 VMs for the start-up (10000)")
    p.add_argument("--campaign-scopes", type=int, help="scopes of 10 VMs for the campaigns (2000)")
    p.add_argument("--campaigns", type=int, help="campaigns one after the other (10)")
    p.add_argument("--time-scale", type=float, help="serve's --time-scale (60: 15 min of notice in 15 s)")
    p.add_argument("--campaign-timeout", type=float, help="seconds a campaign may take before it is cancelled (900)")
    p.add_argument("--idle-wait", type=float, help="seconds before the idle RSS (2)")
    p.add_argument("--profile", metavar="FILE", help="keep the leader's CPU profile of the first campaign here")
    p.add_argument("--no-profile", action="store_true", help="profile nothing")
    p.add_argument("--skip-startup", action="store_true", help="run the campaigns only")
    p.add_argument("--max-txn-ops", type=int, default=0, metavar="N",
                   help="start etcd with --max-txn-ops N (default: etcd's, 128)")
    a = p.parse_args()
    short = {"startup_scopes": 200, "campaign_scopes": 20, "campaigns": 2, "time_scale": 300,
             "campaign_timeout": 120, "idle_wait": 0.5}
    full = {"startup_scopes": 10000, "campaign_scopes": 2000, "campaigns": 10, "time_scale": 60,
            "campaign_timeout": 900, "idle_wait": 2}
    for k, v in (short if a.short else full).items():
        if getattr(a, k) is None:
            setattr(a, k, v)
    if not (1 <= a.startup_scopes <= 100000 and 1 <= a.campaign_scopes <= 100000 and a.campaigns >= 1):
        p.error("scopes take 1 to 100000, --campaigns at least 1")
    return a


# --- small helpers -----------------------------------------------------------

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def parse_time(s):
    """Seconds since the epoch of an RFC 3339 time as Go writes it (ns)."""
    m = re.fullmatch(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)", s)
    if not m:
        raise ValueError("not an RFC 3339 time: %r" % s)
    y, mo, d, h, mi, sec = (int(g) for g in m.groups()[:6])
    t = calendar.timegm((y, mo, d, h, mi, sec)) + float("0." + (m.group(7) or "0"))
    if m.group(8) != "Z":
        sign = 1 if m.group(8)[0] == "+" else -1
        t -= sign * (int(m.group(8)[1:3]) * 3600 + int(m.group(8)[4:6]) * 60)
    return t


def parse_duration(s):
    """Seconds of a Go duration string ("15m0s", "1h2m", "500ms", "2d")."""
    units = {"d": 86400, "h": 3600, "m": 60, "s": 1, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}
    parts = re.findall(r"([\d.]+)(d|h|ms|us|µs|ns|m|s)", s)
    if not parts:
        raise ValueError("not a duration: %r" % s)
    return sum(float(n) * units[u] for n, u in parts)


def percentile(values, p):
    """The p-th percentile (nearest rank) of values, or None."""
    if not values:
        return None
    v = sorted(values)
    return v[min(len(v) - 1, max(0, -(-len(v) * p // 100) - 1))]


def addr_plus(addr, n):
    a = [int(x) for x in addr.split(".")]
    v = (a[0] << 24 | a[1] << 16 | a[2] << 8 | a[3]) + n
    return ".".join(str(v >> s & 255) for s in (24, 16, 8, 0))


def rss_mb(pid, key):
    """A memory figure of /proc/PID/status in MB."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024
    raise Failed("no %s in /proc/%d/status" % (key, pid))


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# --- etcd --------------------------------------------------------------------

class Etcd:
    """A one-member etcd with its default limits (or max_txn_ops), in dir."""

    def __init__(self, binary, dir, max_txn_ops=0):
        self.client = free_port()
        peer = free_port()
        self.dir = dir
        self.log = open(dir + ".log", "w")
        self.proc = subprocess.Popen([
            binary, "--name", "bench", "--data-dir", dir,
            "--listen-client-urls", "http://127.0.0.1:%d" % self.client,
            "--advertise-client-urls", "http://127.0.0.1:%d" % self.client,
            "--listen-peer-urls", "http://127.0.0.1:%d" % peer,
            "--initial-advertise-peer-urls", "http://127.0.0.1:%d" % peer,
            "--initial-cluster", "bench=http://127.0.0.1:%d" % peer,
            "--logger", "zap", "--log-level", "error"]
            + (["--max-txn-ops", str(max_txn_ops)] if max_txn_ops else []),
            stdout=self.log, stderr=self.log)
        deadline = time.monotonic() + 30
        while True:
            try:
                self.status()
                return
            except (OSError, http.client.HTTPException):
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise Failed("etcd did not start; see %s.log" % dir)
                time.sleep(0.1)

    def url(self, prefix):
        return "etcd://127.0.0.1:%d/%s" % (self.client, prefix)

    def call(self, path, body):
        req = urllib.request.Request("http://127.0.0.1:%d%s" % (self.client, path),
                                     data=json.dumps(body).encode())
        with urllib.request.urlopen(req, timeout=120) as resp:
            return json.load(resp)

    def status(self, counters=False):
        """dbSize, dbSizeInUse (MB) and the revision: etcdctl endpoint
        status; with counters, those of etcd's /metrics too."""
        s = self.call("/v3/maintenance/status", {})
        out = {"size": int(s["dbSize"]) / 1e6, "in_use": int(s["dbSizeInUse"]) / 1e6,
               "rev": int(s["header"]["revision"])}
        if counters:
            out.update(self.counters())
        return out

    def counters(self):
        """etcd's own counts from its /metrics: the KV requests served
        (reads and commits alike are Txn requests in forewarn's store) and
        the keys put and deleted."""
        with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % self.client, timeout=30) as resp:
            text = resp.read().decode()
        out = {"requests": 0.0, "puts": 0.0, "deletes": 0.0}
        for line in text.splitlines():
            name, _, value = line.rpartition(" ")
            if name.startswith("grpc_server_handled_total{") and 'grpc_service="etcdserverpb.KV"' in name:
                out["requests"] += float(value)
            elif name == "etcd_debugging_mvcc_put_total":
                out["puts"] = float(value)
            elif name == "etcd_debugging_mvcc_delete_total":
                out["deletes"] = float(value)
        return out

    def compact_defrag(self):
        """etcdctl compact --physical REV, then etcdctl defrag."""
        rev = self.status()["rev"]
        self.call("/v3/kv/compaction", {"revision": rev, "physical": True})
        self.call("/v3/maintenance/defragment", {})
        return self.status()

    def stop(self):
        stop_process(self.proc)
        self.log.close()


def stop_process(proc):
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


# --- replicas ----------------------------------------------------------------

class Replica:
    """One forewarn serve on an etcd store."""

    def __init__(self, bench, store_url, rid, extra=()):
        self.id = rid
        self.admin = free_port()
        self.meta = free_port()
        self.pprof = free_port()
        self.token = bench.token
        data = os.path.join(bench.tmp, "data-" + rid)
        os.makedirs(data, exist_ok=True)
        self.logpath = data + ".log"
        self.argv = [bench.forewarn, "serve", "--store", store_url, "--admin-token-file", bench.token_file,
                     "--data-dir", data, "--replica-id", rid,
                     "--metadata-addr", "127.0.0.1:%d" % self.meta, "--admin-addr", "127.0.0.1:%d" % self.admin,
                     "--pprof-addr", "127.0.0.1:%d" % self.pprof, "--rate-limit", "0", *extra]
        self.proc = None
        self.startup = None

    def start(self):
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen(self.argv, stdout=open(self.logpath, "w"), stderr=subprocess.STDOUT)

    def wait_up(self, timeout=600):
        """Polls GET /v1/status until it answers 200; sets startup (s)."""
        while True:
            try:
                self.call("GET", "/v1/status")
                self.startup = time.monotonic() - self.t0
                return
            except (OSError, http.client.HTTPException, urllib.error.HTTPError):
                pass
            if self.proc.poll() is not None:
                raise Failed("replica %s exited with %s:\n%s" % (self.id, self.proc.returncode, self.log_tail()))
            if time.monotonic() - self.t0 > timeout:
                raise Failed("replica %s not up after %d s:\n%s" % (self.id, timeout, self.log_tail()))
            time.sleep(0.01)

    def call(self, method, path, body=None, timeout=60, headers=None):
        req = urllib.request.Request("http://127.0.0.1:%d%s" % (self.admin, path), method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": "Bearer " + self.token,
                                              "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            data = json.load(resp)
            if headers is not None:
                headers.update(resp.headers)
            return data

    def get_as(self, vm_addr):
        """The status of a metadata GET from the VM's own address, and
        how long it took."""
        t0 = time.monotonic()
        conn = http.client.HTTPConnection("127.0.0.1", self.meta, timeout=60, source_address=(vm_addr, 0))
        try:
            conn.request("GET", "/metadata/scheduledevents?api-version=2020-07-01", headers={"Metadata": "true"})
            return conn.getresponse().status, time.monotonic() - t0
        finally:
            conn.close()

    def get_as_until_ok(self, vm_addr, timeout=300):
        """GETs as the VM until it answers 200; the seconds from exec."""
        while time.monotonic() - self.t0 < timeout:
            if self.get_as(vm_addr)[0] == 200:
                return time.monotonic() - self.t0
        raise Failed("GET as %s on %s did not answer 200 within %d s of its start" % (vm_addr, self.id, timeout))

    def rss(self, key="VmRSS"):
        return rss_mb(self.proc.pid, key)

    def log_tail(self, n=20):
        with open(self.logpath, errors="replace") as f:
            return "".join(f.readlines()[-n:])

    def log_count(self, needle):
        with open(self.logpath, errors="replace") as f:
            return sum(needle in line for line in f)

    def stop(self):
        if self.proc:
            stop_process(self.proc)


def start_together(replicas):
    """Starts the replicas at once and waits until each answers."""
    for r in replicas:
        r.start()
    errors = []

    def wait(r):
        try:
            r.wait_up()
        except Failed as e:
            errors.append(e)
    threads = [threading.Thread(target=wait, args=(r,)) for r in replicas]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def leader_of(replicas, timeout=30):
    """The replica that leads, once one does."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lead = replicas[0].call("GET", "/v1/status").get("leader", "")
        for r in replicas:
            if r.id == lead:
                return r
        time.sleep(0.2)
    raise Failed("no replica leads after %d s" % timeout)


# --- the profile -------------------------------------------------------------

class Profiler:
    """Takes the replica's CPU profile in 15 s pieces until stopped."""

    def __init__(self, replica, dir):
        self.replica, self.dir = replica, dir
        self.files = []
        self.wall = 0.0  # seconds the pieces took, profiled or not
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.done.is_set():
            path = os.path.join(self.dir, "cpu-%d.pb.gz" % len(self.files))
            url = "http://127.0.0.1:%d/debug/pprof/profile?seconds=15" % self.replica.pprof
            t0 = time.monotonic()
            try:
                with urllib.request.urlopen(url, timeout=120) as resp, open(path, "wb") as f:
                    shutil.copyfileobj(resp, f)
                self.files.append(path)
                self.wall += time.monotonic() - t0
            except OSError as e:
                log("profile: %s" % e)
                return

    def stop(self):
        self.done.set()
        self.thread.join()
        return self.files


def profile_top(binary, files, keep):
    """go tool pprof's top by flat and by cumulative time, and keep's merge."""
    if not files:
        return "(no profile)"
    out = []
    for flags in (["-top", "-nodecount=20"], ["-top", "-cum", "-nodecount=30"]):
        r = subprocess.run(["go", "tool", "pprof", *flags, binary, *files],
                           capture_output=True, text=True, cwd=ROOT)
        out.append(r.stdout or r.stderr)
    if keep:
        with open(keep, "wb") as f:
            subprocess.run(["go", "tool", "pprof", "-proto", binary, *files], stdout=f,
                           stderr=subprocess.DEVNULL, cwd=ROOT, check=True)
    return "\n".join(out)


# --- the measurements --------------------------------------------------------

class Bench:
    def __init__(self, args):
        self.args = args
        self.tmp = tempfile.mkdtemp(prefix="forewarn-fleet-etcd.")
        self.etcd_bin = os.environ.get("FOREWARN_ETCD_BIN") or shutil.which("etcd")
        if not self.etcd_bin:
            raise Failed("no etcd: install etcd-server (scripts/deps.sh) or set FOREWARN_ETCD_BIN")
        self.forewarn = os.path.join(self.tmp, "forewarn")
        self.mkfleet = os.path.join(self.tmp, "mkfleet")
        for out, pkg in ((self.forewarn, "./cmd/forewarn"), (self.mkfleet, "./internal/tools/mkfleet")):
            subprocess.run(["go", "build", "-o", out, pkg], cwd=ROOT, check=True)
        self.token_file = os.path.join(self.tmp, "admin.token")
        self.token = "bench-" + os.urandom(16).hex()
        with open(self.token_file, "w") as f:
            f.write(self.token + "\n")
        self.running = []  # etcds and replicas to stop at exit
        self.up = self.camp = None  # what was measured, for a report if interrupted

    def serve_flags(self):
        return ["--dev", "--time-scale", "%g" % self.args.time_scale]

    def etcd(self, name):
        e = Etcd(self.etcd_bin, os.path.join(self.tmp, name), self.args.max_txn_ops)
        self.running.append(e)
        return e

    def replicas(self, store_url, n=2):
        rs = [Replica(self, store_url, "r%d" % (i + 1), self.serve_flags()) for i in range(n)]
        self.running.extend(rs)
        return rs

    def build_fleet(self, etcd, prefix, scopes):
        t0 = time.monotonic()
        out = subprocess.run([self.mkfleet, "-store", etcd.url(prefix), "-scopes", str(scopes), "-vms", "10"],
                             capture_output=True, text=True)
        if out.returncode != 0:
            raise Failed("mkfleet: %s" % out.stderr)
        log(out.stdout.strip())
        batch = re.search(r"\((\d+) scopes a transaction\)", out.stdout)
        return time.monotonic() - t0, int(batch.group(1)) if batch else None

    def stop_all(self):
        for x in reversed(self.running):
            x.stop()
        self.running = []

    # 1. Start-up.
    def startup(self):
        a = self.args
        etcd = self.etcd("etcd-startup")
        base = self.replicas(etcd.url("empty"), 1)[0]
        start_together([base])
        time.sleep(a.idle_wait)
        baseline = {"up": base.startup, "rss": base.rss()}
        base.stop()
        took, batch = self.build_fleet(etcd, "startup", a.startup_scopes)
        log("start-up fleet: %s" % etcd.status())
        rs = self.replicas(etcd.url("startup"))
        before = etcd.counters()
        start_together(rs)
        requests = etcd.counters()["requests"] - before["requests"]
        time.sleep(a.idle_wait)
        last_vm = addr_plus(FIRST_VM, a.startup_scopes * 10 - 1)
        rows = [{"id": r.id, "up": r.startup, "rss": r.rss()} for r in rs]
        for r, row in zip(rs, rows):
            row["get"], row["get_took"] = r.get_as(last_vm)
            row["get_ok"] = r.get_as_until_ok(last_vm)
            row["peak"] = r.rss("VmHWM")
        self.stop_all()
        self.up = {"baseline": baseline, "rows": rows, "mkfleet": took, "batch": batch, "idle": a.idle_wait,
                   "requests": requests, "vms": a.startup_scopes * 10, "scopes": a.startup_scopes}
        log("start-up: %s" % self.up)
        return self.up

    # 2 and 3. Campaigns and etcd's size.
    def campaigns(self):
        a = self.args
        etcd = self.etcd("etcd-campaigns")
        took, batch = self.build_fleet(etcd, "campaigns", a.campaign_scopes)
        fleet = etcd.compact_defrag()
        rs = self.replicas(etcd.url("campaigns"))
        start_together(rs)
        last_vm = addr_plus(FIRST_VM, a.campaign_scopes * 10 - 1)
        ready = [r.get_as_until_ok(last_vm) for r in rs]  # each can write
        lead = leader_of(rs)
        poll = next(r for r in rs if r is not lead)
        runs = []
        self.camp = out = {
            "fleet": fleet, "mkfleet": took, "batch": batch, "runs": runs, "leader": lead.id, "poll": poll.id,
            "ups": [r.startup for r in rs], "ready": ready, "vms": a.campaign_scopes * 10, "scopes": a.campaign_scopes}
        for i in range(a.campaigns):
            prof = Profiler(lead, self.tmp) if i == 0 and not a.no_profile else None
            before = etcd.status(counters=True)
            try:
                run = self.campaign(poll)
            finally:
                files = prof.stop() if prof else []
            run["before"], run["after"] = before, etcd.status(counters=True)
            run["compacted"] = etcd.compact_defrag()
            runs.append(run)
            lags = {k: [percentile(v, p) for p in (50, 99, 100)] for k, v in run["lags"].items() if k != "events"}
            log("campaign %d: %s, events %d, lags p50/p99/max %s" % (
                i + 1, {k: v for k, v in run.items() if k != "lags"}, run["lags"]["events"], lags))
            if prof:
                log("profile: %d pieces of 15 s, %.0f s of wall time" % (len(files), prof.wall))
                out["top"] = profile_top(self.forewarn, files, a.profile)
            if run["timed_out"]:
                break
        out["peaks"] = {r.id: r.rss("VmHWM") for r in rs}
        out["too_large"] = {r.id: r.log_count("too large") for r in rs}
        self.stop_all()
        return out

    def campaign(self, r):
        """Runs one campaign through r and measures it."""
        a = self.args
        n = a.campaign_scopes
        t0 = time.monotonic()
        c = r.call("POST", "/v1/campaigns", {"type": "Reboot", "all": True, "parallelScopes": n})
        created = parse_time(c["createdAt"])
        while not c.get("estimatedEnd"):
            c = r.call("GET", "/v1/campaigns/" + c["id"])
        nominal = parse_time(c["estimatedEnd"]) - created
        first_ud, most, timed_out = None, 0, False
        while True:
            placed = sum(1 for s in c["scopes"] if s.get("event") or s.get("done", 0) > 0)
            most = max(most, sum(1 for s in c["scopes"] if s.get("event")))
            if first_ud is None and placed == n:
                first_ud = time.monotonic() - t0
            if c["state"] in ("done", "cancelled"):
                break
            if time.monotonic() - t0 > a.campaign_timeout:
                timed_out = True
                break
            time.sleep(0.05 if first_ud is None else 0.5)
            c = r.call("GET", "/v1/campaigns/" + c["id"])
        seen = time.monotonic() - t0
        finished = sum(1 for s in c["scopes"] if s.get("done", 0) >= s.get("updateDomains", 0))
        if timed_out:
            c = self.cancel(r, c)
        duration = parse_time(c["endedAt"]) - created if c.get("endedAt") else None
        notice = parse_duration(c["spec"].get("notice") or "15m") / a.time_scale
        lags = self.lags(r, c["id"], notice)
        return {"id": c["id"], "nominal": nominal, "duration": duration, "seen": seen,
                "first_ud": first_ud, "most": most, "finished": finished, "timed_out": timed_out,
                "lags": lags}

    def cancel(self, r, c):
        """Cancels a campaign that ran out of time and waits for its events."""
        c = r.call("POST", "/v1/campaigns/%s/cancel" % c["id"], {})
        deadline = time.monotonic() + 120
        while any(s.get("event") for s in c["scopes"]) and time.monotonic() < deadline:
            time.sleep(1)
            c = r.call("GET", "/v1/campaigns/" + c["id"])
        return c

    def lags(self, r, campaign, notice):
        """The end and start lags (s) of the campaign's completed events."""
        end, start, events, path = [], [], 0, "/v1/history?limit=10000"
        while path:
            headers = {}
            page = r.call("GET", path, headers=headers)
            for e in page:
                if e.get("campaign") != campaign or e.get("outcome") != "Completed":
                    continue
                events += 1
                end.append(parse_time(e["endedAt"]) - parse_time(e["endsAt"]))
                intended = -(-(parse_time(e["createdAt"]) + notice) // 1)  # ceil to the second
                start.append(parse_time(e["startedAt"]) - intended)
            link = re.match(r'<([^>]*)>; rel="next"', headers.get("Link", ""))
            path = link.group(1) if link and page and page[-1].get("campaign") == campaign else None
        return {"events": events, "end": end, "start": start}


# --- the report --------------------------------------------------------------

def verdict(ok):
    return "PASS" if ok else "MISS"


def fmt(v, spec="%.2f"):
    return "-" if v is None else spec % v


def report(args, up, camp):
    print()
    if up:
        b = up["baseline"]
        print("Start-up: %d VMs in %d scopes on etcd (mkfleet %.0f s, %s scopes a transaction), "
              "two replicas started together, %d cores; baseline: one replica on an empty prefix "
              "(start-up %.2f s, RSS %.0f MB); etcd served %.0f KV requests until both answered "
              "(%.1f per scope per replica)" % (
                  up["vms"], up["scopes"], up["mkfleet"], up["batch"], os.cpu_count(), b["up"], b["rss"],
                  up["requests"], up["requests"] / 2 / up["scopes"]))
        print()
        print("| replica | start-up s (x empty) | RSS idle MB (x empty) | RSS peak MB "
              "| GET as last VM: answer (s) | GET answers 200, s from exec |")
        print("|---|---|---|---|---|---|")
        for row in up["rows"]:
            print("| %s | %.2f (%.1fx) %s | %.0f (%.1fx) | %.0f | %d (%.2f) | %.2f |" % (
                row["id"], row["up"], row["up"] / b["up"], verdict(row["up"] < 5),
                row["rss"], row["rss"] / b["rss"], row["peak"], row["get"], row["get_took"], row["get_ok"]))
        print()
    if camp:
        print("Campaigns: %d VMs in %d scopes (5 update domains of 2 VMs), two replicas, --time-scale %g; "
              "leader %s, campaigns posted to and polled on %s; fleet on etcd: %.1f MB after compact+defrag "
              "(mkfleet %.0f s, %s scopes a transaction); the replicas started in %s s and could write "
              "(a GET as the last VM answered 200) %s s after exec" % (
                  camp["vms"], camp["scopes"], args.time_scale, camp["leader"], camp["poll"],
                  camp["fleet"]["size"], camp["mkfleet"], camp["batch"],
                  " and ".join("%.2f" % x for x in camp["ups"]), " and ".join("%.2f" % x for x in camp["ready"])))
        print()
        print("| # | first UD in every scope s (most scopes at once) | duration s / nominal s (x) "
              "| end lag p50 / p99 / max s | start lag p50 / p99 / max s | events | revisions (per event) "
              "| keys written per event | etcd requests per event "
              "| dbSize MB before / after / compacted (in use after) |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for i, run in enumerate(camp["runs"]):
            lg = run["lags"]
            end = [percentile(lg["end"], p) for p in (50, 99, 100)]
            start = [percentile(lg["start"], p) for p in (50, 99, 100)]
            revs = run["after"]["rev"] - run["before"]["rev"]
            per = max(lg["events"], 1)
            writes = sum(run["after"][k] - run["before"][k] for k in ("puts", "deletes")) / per
            requests = (run["after"]["requests"] - run["before"]["requests"]) / per
            if run["timed_out"]:
                duration = "timed out at %.0f s (%d of %d scopes done) / %.1f" % (
                    run["seen"], run["finished"], camp["scopes"], run["nominal"])
            else:
                duration = "%.1f / %.1f (%.2fx) %s" % (run["duration"], run["nominal"],
                                                       run["duration"] / run["nominal"],
                                                       verdict(run["duration"] <= 1.2 * run["nominal"]))
            print("| %d | %s (%d) %s | %s | %s / %s / %s %s | %s / %s / %s | %d | %d (%.1f) | %.1f | %.0f "
                  "| %.1f / %.1f / %.1f (%.1f) |" % (
                i + 1, fmt(run["first_ud"]), run["most"], verdict(run["first_ud"] is not None and run["first_ud"] < 10),
                duration, *(fmt(x) for x in end), verdict(end[1] is not None and end[1] < 2),
                *(fmt(x) for x in start), lg["events"], revs, revs / per, writes, requests,
                run["before"]["size"], run["after"]["size"], run["compacted"]["size"], run["after"]["in_use"]))
        print()
        if "peaks" in camp:
            print("Replicas' peak RSS (MB): %s; \"too large\" warnings in their logs: %s" % (
                ", ".join("%s %.0f" % kv for kv in camp["peaks"].items()),
                ", ".join("%s %d" % kv for kv in camp["too_large"].items())))
            print()
    summary(up, camp)
    if camp and camp.get("top"):
        print()
        print("CPU profile of the leading replica (%s) during the first campaign:" % camp["leader"])
        print()
        print("```")
        print(camp["top"].rstrip())
        print("```")


def summary(up, camp):
    print("| figure | measured | target | |")
    print("|---|---|---|---|")
    if up:
        for row in up["rows"]:
            print("| start-up, replica %s (%d VMs) | %.2f s | under 5 s | %s |" % (
                row["id"], up["vms"], row["up"], verdict(row["up"] < 5)))
            print("| its first GET as the fleet's last VM, after %g s idle | %d in %.2f s | 200 | %s |" % (
                up["idle"], row["get"], row["get_took"], verdict(row["get"] == 200)))
    if not camp:
        return
    runs = camp["runs"]
    if not runs:
        return
    firsts = [r["first_ud"] for r in runs]
    worst_first = None if None in firsts else max(firsts)
    print("| first update domain in every scope (worst of %d) | %s | under 10 s | %s |" % (
        len(runs), fmt(worst_first, "%.2f s") if worst_first is not None else "not all placed",
        verdict(worst_first is not None and worst_first < 10)))
    ratios = [r["duration"] / r["nominal"] for r in runs if not r["timed_out"]]
    if len(ratios) == len(runs):
        print("| campaign duration / nominal (worst) | %.2fx | at most 1.2x | %s |" % (
            max(ratios), verdict(max(ratios) <= 1.2)))
    else:
        print("| campaign duration / nominal | timed out | at most 1.2x | MISS |")
    p99 = [percentile(r["lags"]["end"], 99) for r in runs]
    p99 = [x for x in p99 if x is not None]
    print("| event end lag p99 (worst) | %s | under 2 s | %s |" % (
        fmt(max(p99) if p99 else None, "%.2f s"), verdict(bool(p99) and max(p99) < 2)))
    events = sum(r["lags"]["events"] for r in runs)
    revs = sum(r["after"]["rev"] - r["before"]["rev"] for r in runs)
    print("| etcd revisions per event (all campaigns) | %.2f | | |" % (revs / max(events, 1)))
    if len(runs) > 1:
        first, last = runs[0], runs[-1]
        ratio = last["after"]["size"] / first["after"]["size"]
        print("| etcd dbSize after the last campaign / after the first (%d campaigns) | %.1f / %.1f MB = %.2fx | at most 2x | %s |" % (
            len(runs), last["after"]["size"], first["after"]["size"], ratio, verdict(ratio <= 2)))
        c = last["compacted"]["size"] / first["compacted"]["size"]
        print("| the same, each compacted and defragmented | %.1f / %.1f MB = %.2fx | at most 2x | %s |" % (
            last["compacted"]["size"], first["compacted"]["size"], c, verdict(c <= 2)))
    else:
        print("| etcd dbSize after the campaign / fleet alone | %.1f / %.1f MB | (one campaign: no ratio) | |" % (
            runs[0]["after"]["size"], camp["fleet"]["size"]))


def main():
    args = parse_args()
    bench = None

    def on_signal(signum, _frame):
        raise SystemExit(128 + signum)
    signal.signal(signal.SIGTERM, on_signal)
    try:
        bench = Bench(args)
        up = None if args.skip_startup else bench.startup()
        camp = bench.campaigns()
        report(args, up, camp)
    except (SystemExit, KeyboardInterrupt):
        if bench and (bench.up or bench.camp):
            print("\nInterrupted: what was measured until then.")
            report(args, bench.up, bench.camp)
        raise
    except Failed as e:
        log("bench-fleet.sh --store etcd: %s" % e)
        if bench:
            bench.stop_all()
            log("its files and logs are kept in %s" % bench.tmp)
            bench = None
        return 1
    finally:
        if bench:
            bench.stop_all()
            shutil.rmtree(bench.tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
