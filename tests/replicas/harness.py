#!/usr/bin/env python3
"""harness.py - several waggled replicas on one PostgreSQL behind HAProxy,
under a bounded mixed load with faults (issue 16, docs/replicas.md).

Starts three waggled replicas (separate data dirs: only the database, the
vault key file and the tokens are shared) on loopback ports, HAProxy
round-robin in front, a loopback replay server shaped like GitHub's REST API
(it checks the token and the request we send), then runs several clients
for a bounded time: gate checks, connector calls, approvals created on one
replica and answered on another (some twice at once, some after their TTL),
cost events and personas (acknowledged writes), pool status reads, pool
reports from separate processes, tier reads. Mid-load one replica is killed
with SIGKILL and restarted, and PostgreSQL is stopped for a few seconds and
started again: while it is down the replicas must answer 503 with a JSON
error, and afterwards recover without a restart. Then it checks: every
acknowledged write is in the store, no approval ran twice or after a denial
or expiry, `waggle audit verify` is intact with the row count of the table,
the pool's state is the same on every replica and rotation stayed exact, the
event stream of one replica carried another's event, and no replica but the
killed one died. Prints the figures; exit 0 only when every check held.

  harness.py --waggled B/waggled --waggle B/waggle            the test
  harness.py --waggled ... --waggle ... --bench SECONDS       throughput, 1 vs 3

Needs WAGGLE_TEST_PG, WG_PGDATA and PGBIN from scripts/services.sh.
"""
import argparse
import http.client
import json
import os
import random
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

API_TOKEN = secrets.token_hex(32)
ADMIN_TOKEN = secrets.token_hex(32)
GH_TOKEN = "ghp_replicaharness" + secrets.token_hex(8)
TTL_S = 6
OK_DURING_FAULTS = {503, 502, 504}   # 503 JSON from a replica; 502/504 from HAProxy


def log(*a):
    print("replicas:", *a, flush=True)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


# ---- PostgreSQL ---------------------------------------------------------------

class Pg:
    def __init__(self):
        self.base = os.environ["WAGGLE_TEST_PG"]
        self.data = os.environ["WG_PGDATA"]
        self.bin = os.environ["PGBIN"]
        self.port = re.search(r"port=(\d+)", self.base).group(1)
        self.db = "waggle_replicas_%d" % os.getpid()
        self.conninfo = re.sub(r"dbname=\S+", "dbname=" + self.db, self.base)
        self.tool("dropdb", "--if-exists", self.db)
        self.tool("createdb", self.db)

    def tool(self, name, *args):
        subprocess.run([os.path.join(self.bin, name), "-h", "127.0.0.1", "-p", self.port,
                        "-U", "postgres", *args], check=True, capture_output=True)

    def as_pg(self, cmd):
        if os.geteuid() == 0:
            return subprocess.run(["su", "postgres", "-s", "/bin/sh", "-c", cmd],
                                  capture_output=True, text=True)
        return subprocess.run(["sh", "-c", cmd], capture_output=True, text=True)

    def stop(self):
        r = self.as_pg("%s/pg_ctl -D %s -m fast -w stop" % (self.bin, self.data))
        assert r.returncode == 0, r.stderr

    def start(self):
        r = self.as_pg("%s/pg_ctl -D %s -l %s/server.log -w -o '-p %s -k %s -c "
                       "listen_addresses=127.0.0.1 -c fsync=off' start"
                       % (self.bin, self.data, self.data, self.port, self.data))
        assert r.returncode == 0, r.stderr

    def query(self, sql):
        r = subprocess.run([os.path.join(self.bin, "psql"), "-At", "-F", "\t", "-d",
                            self.conninfo, "-c", sql], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        return [line.split("\t") for line in r.stdout.splitlines() if line]

    def drop(self):
        try:
            self.tool("dropdb", "--if-exists", "--force", self.db)
        except subprocess.CalledProcessError:
            pass


# ---- the upstream: GitHub's REST shape on loopback -------------------------------

class Upstream:
    def __init__(self):
        self.lock = threading.Lock()
        self.issues = {}       # title -> times created
        self.reads = 0
        self.bad = []          # requests that were not what we send
        up = self

        class H(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def reply(self, status, obj):
                b = json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(b)))
                self.end_headers()
                self.wfile.write(b)

            def authorized(self):
                if self.headers.get("Authorization") != "Bearer " + GH_TOKEN:
                    with up.lock:
                        up.bad.append("auth %s %s" % (self.command, self.path))
                    self.reply(401, {"message": "Bad credentials"})
                    return False
                return True

            def do_GET(self):
                if not self.authorized():
                    return
                if re.fullmatch(r"/repos/octo/hive/pulls(\?.*)?", self.path):
                    with up.lock:
                        up.reads += 1
                    return self.reply(200, [])
                if self.path in ("/user", "/rate_limit", "/"):
                    return self.reply(200, {"login": "octo"})
                self.reply(404, {"message": "Not Found"})

            def do_POST(self):
                n = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(n)
                if not self.authorized():
                    return
                if self.path != "/repos/octo/hive/issues":
                    with up.lock:
                        up.bad.append("path " + self.path)
                    return self.reply(404, {"message": "Not Found"})
                try:
                    title = json.loads(body)["title"]
                except (ValueError, KeyError):
                    with up.lock:
                        up.bad.append("body " + body[:80].decode("utf-8", "replace"))
                    return self.reply(422, {"message": "Validation Failed"})
                with up.lock:
                    up.issues[title] = up.issues.get(title, 0) + 1
                    num = sum(up.issues.values())
                self.reply(201, {"number": num, "title": title,
                                 "html_url": "https://github.com/octo/hive/issues/%d" % num})

        self.srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.srv.daemon_threads = True
        self.base = "http://127.0.0.1:%d" % self.srv.server_address[1]
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()

    def stop(self):
        self.srv.shutdown()


# ---- HTTP ----------------------------------------------------------------------------

def call(port, method, path, body=None, token=API_TOKEN, timeout=10):
    """(status, json or None); status 0 when the connection failed."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        data = json.dumps(body).encode() if body is not None else None
        h = {"Authorization": "Bearer " + token, "Host": "127.0.0.1"}
        if data is not None:
            h["Content-Type"] = "application/json"
        c.request(method, path, body=data, headers=h)
        r = c.getresponse()
        raw = r.read()
        try:
            j = json.loads(raw) if raw else None
        except ValueError:
            j = None
        return r.status, j
    except (OSError, http.client.HTTPException):
        return 0, None
    finally:
        c.close()


def ran_ok(j):
    """The approval's answer says the tool ran and succeeded upstream."""
    return isinstance(j, dict) and isinstance(j.get("result"), dict) and \
        j["result"].get("success") is True


# ---- replicas and HAProxy -------------------------------------------------------------

class Cluster:
    def __init__(self, args, pg, n, work):
        self.args, self.pg, self.work = args, pg, work
        self.key_file = os.path.join(work, "vault.key")
        with open(self.key_file, "w") as f:
            f.write(secrets.token_hex(32) + "\n")
        os.chmod(self.key_file, 0o600)
        self.env = dict(os.environ, WAGGLE_DATABASE_URL=pg.conninfo, WAGGLE_API_TOKEN=API_TOKEN,
                        WAGGLE_VAULT_KEY_FILE=self.key_file)
        self.env.pop("WAGGLE_VAULT_PASSPHRASE", None)
        self.ports = [free_port() for _ in range(n)]
        self.procs = [None] * n
        self.dirs = []
        for i in range(n):
            d = os.path.join(work, "replica%d" % (i + 1))
            os.makedirs(d, mode=0o700)
            with open(os.path.join(d, "admin-token"), "w") as f:
                f.write(ADMIN_TOKEN + "\n")
            os.chmod(os.path.join(d, "admin-token"), 0o600)
            self.dirs.append(d)
        self.hport = free_port()
        self.haproxy = None
        self.starts = 0

    def start(self, i):
        logf = open(os.path.join(self.work, "replica%d.log" % (i + 1)), "ab")
        self.procs[i] = subprocess.Popen(
            [self.args.waggled, "--data-dir", self.dirs[i], "--listen",
             "127.0.0.1:%d" % self.ports[i], "--allow-private-upstreams",
             "--allow-http-upstreams", "--approval-ttl", str(TTL_S), "--threads", "4"],
            env=self.env, stdout=logf, stderr=subprocess.STDOUT)
        self.starts += 1
        deadline = time.time() + 20
        while time.time() < deadline:
            if self.procs[i].poll() is not None:
                raise RuntimeError("replica %d exited at start (see %s)" % (i + 1, logf.name))
            if call(self.ports[i], "GET", "/healthz", timeout=2)[0] == 200:
                return
            time.sleep(0.1)
        raise RuntimeError("replica %d did not come up" % (i + 1))

    def start_haproxy(self):
        cfg = os.path.join(self.work, "haproxy.cfg")
        servers = "\n".join("    server r%d 127.0.0.1:%d check inter 300ms fall 2 rise 2"
                            % (i + 1, p) for i, p in enumerate(self.ports))
        with open(cfg, "w") as f:
            f.write("""global
    maxconn 1024
defaults
    mode http
    timeout connect 2s
    timeout client 30s
    timeout server 30s
    retries 3
    option redispatch 1
frontend fe
    bind 127.0.0.1:%d
    default_backend be
backend be
    balance roundrobin
    option httpchk
    http-check send meth GET uri /healthz ver HTTP/1.1 hdr Host 127.0.0.1
%s
""" % (self.hport, servers))
        self.haproxy = subprocess.Popen(["haproxy", "-db", "-f", cfg],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 10
        while time.time() < deadline:
            if call(self.hport, "GET", "/healthz", timeout=2)[0] == 200:
                time.sleep(1.0)     # every server's first health check
                return
            time.sleep(0.1)
        raise RuntimeError("haproxy did not come up")

    def cli(self, *argv, stdin=None):
        d = os.path.join(self.work, "cli")
        os.makedirs(d, mode=0o700, exist_ok=True)
        return subprocess.run([self.args.waggle, *argv, "--data-dir", d], env=self.env,
                              input=stdin, capture_output=True, text=True, timeout=60)

    def stop(self):
        if self.haproxy:
            self.haproxy.terminate()
            self.haproxy.wait()
        for p in self.procs:
            if p and p.poll() is None:
                p.terminate()
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()


# ---- the load -------------------------------------------------------------------------------

class Load:
    def __init__(self, cl, up):
        self.cl, self.up = cl, up
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.requests = 0
        self.status = {}
        self.unexpected = []
        self.faulty = threading.Event()      # set while a fault is being injected
        self.costs, self.personas, self.approvals = set(), set(), {}
        self.late = []                       # (approval id, title): answered after the TTL
        self.double_wins = 0
        self.calm_503 = 0                    # 503s outside a fault window (reported)

    def note(self, what, st, want):
        with self.lock:
            self.requests += 1
            self.status[st] = self.status.get(st, 0) + 1
            if st == 503 and not self.faulty.is_set():
                self.calm_503 += 1
            if st not in want and not (st in OK_DURING_FAULTS or st == 0):
                self.unexpected.append("%s -> %d" % (what, st))
        return st in want

    def alive_ports(self):
        return [p for i, p in enumerate(self.cl.ports)
                if self.cl.procs[i] and self.cl.procs[i].poll() is None]

    def via(self):
        return self.cl.hport

    def one(self, rnd):
        k = rnd.random()
        h = self.via()
        if k < 0.2:
            st, _ = call(h, "POST", "/api/gate/check", {"tool": "bash", "args": {"command": "ls -la"}})
            self.note("gate", st, {200})
        elif k < 0.3:
            st, _ = call(h, "POST", "/api/tools/execute", {"tool": "connector_github_list_prs",
                                                          "args": {"owner": "octo", "repo": "hive"}})
            self.note("list_prs", st, {200})
        elif k < 0.45:
            ws = "ws-" + secrets.token_hex(6)
            st, _ = call(h, "POST", "/api/cost/events", {"workspaceId": ws, "costUsd": 0.25,
                                                          "inputTokens": 10})
            if self.note("cost", st, {201}):
                with self.lock:
                    self.costs.add(ws)
        elif k < 0.52:
            name = "p-" + secrets.token_hex(5)
            st, j = call(h, "POST", "/api/personas", {"name": name, "tools": ["read_file"]})
            if self.note("persona", st, {200, 201}):
                with self.lock:
                    self.personas.add(j["id"] if j and "id" in j else name)
        elif k < 0.62:
            st, _ = call(h, "GET", "/api/tier")
            self.note("tier", st, {200})
        elif k < 0.7:
            st, _ = call(h, "GET", "/api/pool/openai/status")
            self.note("pool", st, {200})
        else:
            self.approval(rnd)

    def approval(self, rnd):
        ports = self.alive_ports()
        if len(ports) < 2:
            return
        a, b = rnd.sample(ports, 2)
        title = "t-" + secrets.token_hex(6)
        st, j = call(a, "POST", "/api/tools/execute", {
            "tool": "connector_github_create_issue",
            "args": {"owner": "octo", "repo": "hive", "title": title}})
        if not self.note("approval create", st, {202}):
            return
        aid = j["approvalId"]
        k = rnd.random()
        if k < 0.1:
            with self.lock:
                self.approvals[aid] = {"title": title, "want": "late"}
                self.late.append(aid)
            return
        approve = k < 0.7
        with self.lock:
            self.approvals[aid] = {"title": title, "want": "approve" if approve else "deny",
                                   "acked": None}
        if k < 0.25:
            # the same answer at once on two replicas: exactly one wins
            res = [None, None]

            def go(i, port):
                res[i] = call(port, "POST", "/api/approval/" + aid, {"approved": True})
            ts = [threading.Thread(target=go, args=(i, p)) for i, p in enumerate((b, a))]
            [t.start() for t in ts]
            [t.join() for t in ts]
            wins = [r for r in res if r[0] == 200]
            ran = [r for r in wins if ran_ok(r[1])]
            for r in res:
                self.note("approve twice", r[0], {200, 404, 409})
            with self.lock:
                if len(wins) > 1:
                    self.unexpected.append("approval %s answered twice" % aid)
                if wins:
                    self.double_wins += 1
                if ran:
                    self.approvals[aid]["acked"] = "approved"
            return
        st, j = call(b, "POST", "/api/approval/" + aid, {"approved": approve})
        if self.note("approval answer", st, {200}) and (not approve or ran_ok(j)):
            with self.lock:
                self.approvals[aid]["acked"] = "approved" if approve else "denied"

    def worker(self, seed):
        rnd = random.Random(seed)
        while not self.stop.is_set():
            self.one(rnd)

    def answer_late(self):
        """Answers the approvals left to expire; each must be 410 or already gone."""
        n = 0
        for aid in self.late:
            port = random.choice(self.alive_ports())
            st, j = call(port, "POST", "/api/approval/" + aid, {"approved": True})
            self.note("late answer", st, {410, 404})
            n += 1
        return n


# ---- checks -----------------------------------------------------------------------------------

def sse_cross_replica(cl):
    """An approval made on the last replica reaches GET /api/events on the first."""
    box = {"buf": b"", "done": False}
    lock = threading.Lock()

    def listen():
        c = http.client.HTTPConnection("127.0.0.1", cl.ports[0], timeout=15)
        c.request("GET", "/api/events", headers={"Authorization": "Bearer " + API_TOKEN,
                                                 "Accept": "text/event-stream",
                                                 "Host": "127.0.0.1"})
        r = c.getresponse()
        end = time.time() + 14
        while time.time() < end and not box["done"]:
            try:
                line = r.fp.readline()
            except OSError:
                break
            if not line:
                break
            with lock:
                box["buf"] += line
        c.close()
    t = threading.Thread(target=listen, daemon=True)
    t.start()
    deadline = time.time() + 5
    while time.time() < deadline and b"waggle event stream" not in box["buf"]:
        time.sleep(0.05)
    st, j = call(cl.ports[-1], "POST", "/api/tools/execute", {
        "tool": "connector_github_create_issue",
        "args": {"owner": "octo", "repo": "hive", "title": "sse-probe"}})
    assert st == 202, (st, j)
    aid = j["approvalId"].encode()
    deadline = time.time() + 10
    seen = False
    while time.time() < deadline and not seen:
        with lock:
            seen = aid in box["buf"]
        time.sleep(0.05)
    box["done"] = True
    call(cl.ports[-1], "POST", "/api/approval/" + aid.decode(), {"approved": False})
    return seen


def seed_pack(d):
    """A marketplace pack in one replica's data dir, as a single machine left it."""
    pdir = os.path.join(d, "marketplace", "harness-pack")
    os.makedirs(pdir, mode=0o700)
    with open(os.path.join(pdir, "pack.json"), "w") as f:
        json.dump({"name": "harness-pack", "description": "seeded on replica 1",
                   "skills": ["harness-note"]}, f)
    with open(os.path.join(pdir, "harness-note.md"), "w") as f:
        f.write("# Harness note\nWrite a short note.\n")


def shared_files_cross_replica(cl):
    """The pack seeded in replica 1's data dir (imported on its open) is listed
    on replica 3, installed through replica 2, active on replica 3, and a
    second install through replica 1 is refused. Returns failures."""
    bad = []
    st, j = call(cl.ports[2], "GET", "/api/marketplace")
    if st != 200 or "harness-pack" not in [p.get("name") for p in j.get("packs", [])]:
        bad.append("replica 3 does not list the pack imported by replica 1: %s %s" % (st, j))
    st, j = call(cl.ports[1], "POST", "/api/marketplace/install", {"name": "harness-pack"})
    if st != 200:
        bad.append("installing the shared pack through replica 2: %s %s" % (st, j))
    time.sleep(1.1)   # the capability status is memoised for at most one second
    st, j = call(cl.ports[2], "GET", "/api/capabilities/status")
    if st != 200 or "harness-note" not in [s.get("name") for s in j.get("skills", [])]:
        bad.append("replica 3 does not see the skill installed through replica 2: %s %s" % (st, j))
    st, j = call(cl.ports[0], "POST", "/api/marketplace/install", {"name": "harness-pack"})
    if st != 409:
        bad.append("a second install through replica 1 was not refused: %s %s" % (st, j))
    return bad


def run_test(args):
    pg = Pg()
    work = tempfile.mkdtemp(prefix="waggle-replicas-")
    up = Upstream()
    cl = Cluster(args, pg, 3, work)
    failures = []
    figures = {}
    t0 = time.time()
    try:
        seed_pack(cl.dirs[0])
        for i in range(3):
            cl.start(i)
        cl.start_haproxy()
        log("3 replicas on ports %s, HAProxy on %d, PostgreSQL db %s"
            % (cl.ports, cl.hport, pg.db))
        # setup through HAProxy: the plan, the connector, the pool's keys
        st, j = call(cl.hport, "PATCH", "/api/tier", {"tier": "TEAMS"}, token=ADMIN_TOKEN)
        assert st == 200, (st, j)
        for p in cl.ports:
            st, j = call(p, "GET", "/api/tier")
            if not (st == 200 and j["tier"] == "TEAMS"):
                failures.append("replica on %d does not see the shared tier: %s %s" % (p, st, j))
        st, j = call(cl.hport, "POST", "/api/connectors/github/connect",
                     {"token": GH_TOKEN, "baseUrl": up.base})
        assert st == 200, (st, j)
        for name in ("openai", "openai-2", "openai-3"):
            r = cl.cli("vault", "set", name, stdin="sk-" + secrets.token_hex(16))
            assert r.returncode == 0, r.stderr
        # a second replica with the wrong vault key refuses to start
        bad = os.path.join(work, "bad.key")
        with open(bad, "w") as f:
            f.write(secrets.token_hex(32))
        os.chmod(bad, 0o600)
        env = dict(cl.env, WAGGLE_VAULT_KEY_FILE=bad)
        bd = os.path.join(work, "badreplica")
        os.makedirs(bd, mode=0o700)
        shutil.copy(os.path.join(cl.dirs[0], "admin-token"), bd)
        r = subprocess.run([args.waggled, "--data-dir", bd, "--listen", "127.0.0.1:%d" % free_port()],
                           env=env, capture_output=True, text=True, timeout=30)
        if r.returncode == 0 or "wrong vault key" not in r.stderr:
            failures.append("a replica with another vault key started: rc=%d %s"
                            % (r.returncode, r.stderr[-300:]))
        figures["wrong_key_refused"] = r.returncode != 0

        shared = shared_files_cross_replica(cl)
        failures.extend(shared)
        figures["shared_pack_cross_replica"] = not shared

        figures["sse_cross_replica"] = sse_cross_replica(cl)
        if not figures["sse_cross_replica"]:
            failures.append("an approval made on replica 3 never reached GET /api/events on replica 1")

        load = Load(cl, up)
        workers = [threading.Thread(target=load.worker, args=(s,), daemon=True) for s in range(6)]
        start = time.time()
        [w.start() for w in workers]
        faults = 0
        # pool reports from separate processes while the load runs
        r = cl.cli("pool", "report", "openai", "openai-2", "429", "--retry-after", "600")
        if r.returncode != 0:
            failures.append("pool report failed: " + r.stderr)
        time.sleep(6)

        # fault 1: SIGKILL one replica mid-load, start it again
        victim = 1
        old = cl.procs[victim]
        load.faulty.set()
        old.send_signal(signal.SIGKILL)
        old.wait()
        faults += 1
        log("SIGKILL replica 2 (pid %d)" % old.pid)
        time.sleep(2)
        cl.start(victim)
        log("replica 2 restarted")
        time.sleep(1)     # HAProxy's checks see it again
        load.faulty.clear()
        time.sleep(6)

        # fault 2: PostgreSQL away for a few seconds
        load.faulty.set()
        pg.stop()
        faults += 1
        log("PostgreSQL stopped")
        time.sleep(1)
        down_ok, down_bad = 0, []
        end = time.time() + 3
        while time.time() < end:
            for p in cl.ports:
                st, j = call(p, "GET", "/api/tier", timeout=5)
                if st == 503 and isinstance(j, dict) and j.get("error") == "UNAVAILABLE":
                    down_ok += 1
                else:
                    down_bad.append((p, st, j))
            time.sleep(0.3)
        pg.start()
        log("PostgreSQL started again")
        figures["probes_503_while_down"] = down_ok
        if down_bad or not down_ok:
            failures.append("while PostgreSQL was down: %d probes 503 JSON, others %s"
                            % (down_ok, down_bad[:3]))
        recovered = []
        end = time.time() + 20
        for p in cl.ports:
            while time.time() < end:
                if call(p, "GET", "/api/tier", timeout=5)[0] == 200:
                    recovered.append(p)
                    break
                time.sleep(0.2)
        if len(recovered) != 3:
            failures.append("replicas that did not recover without a restart: %s"
                            % sorted(set(cl.ports) - set(recovered)))
        time.sleep(1)     # requests in flight when the last probe passed
        load.faulty.clear()
        time.sleep(max(0, 32 - (time.time() - start)))
        load.stop.set()
        [w.join(30) for w in workers]
        elapsed = time.time() - start
        time.sleep(TTL_S + 1)
        late = load.answer_late()

        # ---- checks ---------------------------------------------------------------
        for i, p in enumerate(cl.procs):
            if p.poll() is not None:
                failures.append("replica %d exited (rc %s)" % (i + 1, p.returncode))
        rows_checked = 0
        costs = {r[0] for r in pg.query("SELECT workspace_id FROM cost_events")}
        lost_costs = load.costs - costs
        rows_checked += len(load.costs)
        docs = {r[0] for r in pg.query("SELECT name FROM shared_docs WHERE name LIKE 'personas/%'")}
        lost_personas = {p for p in load.personas if "personas/%s.json" % p not in docs}
        rows_checked += len(load.personas)
        audit = pg.query("SELECT event, input FROM audit_log WHERE event IN "
                         "('approval_requested', 'approval_granted', 'approval_denied')")
        by = {}
        for ev, inp in audit:
            try:
                aid = json.loads(inp).get("approvalId")
            except ValueError:
                continue
            by.setdefault(aid, []).append(ev)
        # an answered approval's row is forgotten later; its audit rows stay
        states = dict(pg.query("SELECT id, state FROM approvals"))
        lost_approvals = {a for a in load.approvals
                          if a not in states and "approval_requested" not in by.get(a, [])}
        rows_checked += len(load.approvals)
        lost = len(lost_costs) + len(lost_personas) + len(lost_approvals)
        if lost:
            failures.append("acknowledged writes lost: costs %s personas %s approvals %s"
                            % (sorted(lost_costs)[:3], sorted(lost_personas)[:3],
                               sorted(lost_approvals)[:3]))
        doubles, after_denial, after_expiry = 0, 0, 0
        for aid, a in load.approvals.items():
            ran = up.issues.get(a["title"], 0)
            evs = by.get(aid, [])
            rows_checked += 1
            if ran > 1 or evs.count("approval_granted") > 1:
                doubles += 1
            if a["want"] == "deny" and (ran or "approval_granted" in evs):
                after_denial += 1
            if a["want"] == "late" and (ran or "approval_granted" in evs):
                after_expiry += 1
            if a.get("acked") == "approved" and ran != 1:
                failures.append("approval %s acknowledged as run but ran %d times" % (aid, ran))
            if evs.count("approval_requested") != 1:
                failures.append("approval %s has %d approval_requested rows"
                                % (aid, evs.count("approval_requested")))
        if doubles or after_denial or after_expiry:
            failures.append("approvals executed twice %d, after denial %d, after expiry %d"
                            % (doubles, after_denial, after_expiry))
        if up.bad:
            failures.append("the upstream got requests we never send: %s" % up.bad[:3])
        r = cl.cli("audit", "verify", "--json")
        table_rows = int(pg.query("SELECT COUNT(*) FROM audit_log")[0][0])
        try:
            v = json.loads(r.stdout)
        except ValueError:
            v = {}
        verified = v.get("rows", v.get("rowCount", v.get("checked")))
        if r.returncode != 0 or not v.get("intact", v.get("ok")) or verified != table_rows:
            failures.append("audit verify: rc=%d %s (table rows %d)"
                            % (r.returncode, r.stdout[-400:] or r.stderr[-400:], table_rows))
        # the pool: one state on every replica; rotation exact across processes
        seen = set()
        for p in cl.ports:
            st, j = call(p, "GET", "/api/pool/openai/status")
            if st != 200:
                failures.append("pool status on %d: %d" % (p, st))
                continue
            seen.add(json.dumps([(e["name"], e["status"], e.get("cooldownUntil"))
                                 for e in j["entries"]], sort_keys=True))
            if j.get("cooldownKeys") != 1:
                failures.append("replica %d sees %s keys cooling, not 1" % (p, j.get("cooldownKeys")))
        if len(seen) != 1:
            failures.append("replicas disagree on the pool: %s" % seen)
        names = []
        procs = [subprocess.Popen([args.waggle, "pool", "next", "openai", "--data-dir",
                                   os.path.join(work, "cli")], env=cl.env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for _ in range(8)]
        for pr in procs:
            out, err = pr.communicate(60)
            names.append(out.strip())
        if "openai-2" in names or abs(names.count("openai") - names.count("openai-3")) > 0 \
                or len([n for n in names if n]) != 8:
            failures.append("pool rotation across 8 processes: %s" % names)

        figures.update({
            "requests": load.requests + late, "seconds": round(elapsed, 1),
            "faults_injected": faults, "rows_checked": rows_checked, "lost": lost,
            "double_executions": doubles, "executed_after_denial": after_denial,
            "executed_after_expiry": after_expiry, "approvals": len(load.approvals),
            "approvals_answered_twice_at_once": load.double_wins, "late_answers": late,
            "audit_rows": table_rows, "replica_starts": cl.starts,
            "statuses": {str(k): v for k, v in sorted(load.status.items())},
            "upstream_issues": sum(up.issues.values()), "upstream_reads": up.reads,
            "503_outside_faults": load.calm_503,
        })
        if load.unexpected:
            failures.append("unexpected answers (%d): %s" % (len(load.unexpected),
                                                              load.unexpected[:5]))
    except Exception as e:   # a harness error is a failure, with the logs
        failures.append("harness: %r" % (e,))
    finally:
        cl.stop()
        up.stop()
    log("figures " + json.dumps(figures, sort_keys=True))
    log("took %.0f s" % (time.time() - t0))
    if failures:
        for f in failures:
            log("FAIL " + f)
        for i in range(3):
            path = os.path.join(work, "replica%d.log" % (i + 1))
            if os.path.exists(path):
                with open(path, errors="replace") as f:
                    log("---- replica %d log (tail) ----\n" % (i + 1) + "".join(f.readlines()[-15:]))
        pg.drop()
        return 1
    pg.drop()
    shutil.rmtree(work, ignore_errors=True)
    log("PASS")
    return 0


# ---- throughput -----------------------------------------------------------------------------

def bench(args):
    results = {}
    for n in (1, 3):
        pg = Pg()
        work = tempfile.mkdtemp(prefix="waggle-bench-")
        cl = Cluster(args, pg, n, work)
        try:
            for i in range(n):
                cl.start(i)
            cl.start_haproxy()
            for path, body, name in (("/api/gate/check",
                                      '{"tool":"bash","args":{"command":"ls -la"}}', "gate_check"),
                                     ("/api/tier", None, "tier_read")):
                script = os.path.join(work, name + ".lua")
                with open(script, "w") as f:
                    if body:
                        f.write('wrk.method = "POST"\nwrk.body = %s\n' % json.dumps(body))
                    f.write('wrk.headers["Authorization"] = "Bearer %s"\n' % API_TOKEN)
                    f.write('wrk.headers["Content-Type"] = "application/json"\n')
                r = subprocess.run(["wrk", "-t2", "-c16", "-d%ds" % args.bench, "-s", script,
                                    "http://127.0.0.1:%d%s" % (cl.hport, path)],
                                   capture_output=True, text=True)
                rps = re.search(r"Requests/sec:\s*([\d.]+)", r.stdout)
                non2xx = re.search(r"Non-2xx or 3xx responses:\s*(\d+)", r.stdout)
                results[(name, n)] = (float(rps.group(1)) if rps else 0.0,
                                      int(non2xx.group(1)) if non2xx else 0)
        finally:
            cl.stop()
            pg.drop()
            shutil.rmtree(work, ignore_errors=True)
    for name in ("gate_check", "tier_read"):
        one, three = results[(name, 1)], results[(name, 3)]
        print("%-10s  replicas=1 %8.0f req/s  replicas=3 %8.0f req/s  ratio=%.2fx  "
              "non2xx=%d/%d  (wrk -t2 -c16 -d%ds through HAProxy, %d cores)"
              % (name, one[0], three[0], three[0] / one[0] if one[0] else 0, one[1], three[1],
                 args.bench, os.cpu_count()))
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--waggled", required=True)
    ap.add_argument("--waggle", required=True)
    ap.add_argument("--bench", type=int, default=0, help="seconds per wrk run")
    args = ap.parse_args()
    for need in ("WAGGLE_TEST_PG", "WG_PGDATA", "PGBIN"):
        if not os.environ.get(need):
            print("replicas: %s is not set (scripts/test.sh starts PostgreSQL)" % need)
            return 1
    if not shutil.which("haproxy"):
        print("replicas: haproxy is not installed (scripts/deps.sh test)")
        return 1
    return bench(args) if args.bench else run_test(args)


if __name__ == "__main__":
    sys.exit(main())
