#!/usr/bin/env python3
"""Hostile input against a real ubiquityd, measured: what each attack costs the daemon and the
other clients (peak memory, time, exit status, what leaked).

    python3 Benchmarks/attacks/attacks.py --ubiquityd .build/release/ubiquityd [--before OLD_BINARY]

With --before, every attack runs against both binaries and the table has a column for each (the
"before" binary is an older build, for the hardening's before/after table). Needs root (uid
switching for the flood, chown) and tmpfs at /dev/shm (sparse 5 EiB files). Loopback Unix
sockets only; every process it starts is stopped by PID.
"""
import argparse, base64, ctypes, json, os, shutil, signal, socket, subprocess, sys, tempfile, time

def log(text):
    print("…", text, file=sys.stderr, flush=True)

class Client:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.buffer = b""
        self.next_id = 100

    def send(self, obj):
        self.sock.sendall((json.dumps(obj) + "\n").encode())

    def read(self, timeout=30):
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("no line")
            self.sock.settimeout(remaining)
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise ConnectionError("closed")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def request(self, obj, timeout=30):
        """The response to `obj`, and the events read before it."""
        self.next_id += 1
        obj = dict(obj, id=self.next_id)
        self.send(obj)
        events = []
        while True:
            message = self.read(timeout)
            if "event" not in message and message.get("id") == obj["id"]:
                return message, events
            events.append(message)

    def hello(self):
        return self.request({"op": "hello", "version": 1})[0]

    def until(self, name, timeout=30, query=None):
        seen = []
        while True:
            message = self.read(timeout)
            seen.append(message)
            if message.get("event") == name and (query is None or message.get("query") == query):
                return message, seen

    def close(self):
        self.sock.close()

class Daemon:
    def __init__(self, binary, arguments, directory):
        self.socket = os.path.join(directory, "s.sock")
        self.log = open(os.path.join(directory, "daemon.log"), "w")
        env = {k: v for k, v in os.environ.items() if k not in ("NOTIFY_SOCKET", "LISTEN_FDS", "LISTEN_PID")}
        self.process = subprocess.Popen([binary] + arguments + ["--socket", self.socket], stdout=self.log,
                                        stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
        self.started = time.monotonic()

    def wait_listening(self, timeout=60):
        """Seconds until the socket accepts, or the exit status if the daemon died first."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return None
            try:
                c = Client(self.socket)
                c.close()
                return time.monotonic() - self.started
            except OSError:
                time.sleep(0.01)
        raise TimeoutError("daemon did not listen")

    def client(self):
        c = Client(self.socket)
        c.hello()
        return c

    def kib(self, field):
        with open(f"/proc/{self.process.pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
        return 0

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()

def make_container(root, name="com.example.grocery", files=0, prefix="Item_"):
    documents = os.path.join(root, name, "Documents")
    os.makedirs(documents, exist_ok=True)
    for i in range(files):
        with open(os.path.join(documents, f"{prefix}{i}"), "w") as f:
            f.write("x")
    return os.path.join(root, name)

def mib(kib):
    return f"{kib / 1024:.0f} MiB"

# --- the attacks -------------------------------------------------------------------------------

def sparse_files(binary, work):
    """Two sparse 5 EiB files in one package (tmpfs)."""
    base = tempfile.mkdtemp(dir="/dev/shm")
    try:
        container = make_container(base)
        package = os.path.join(container, "Documents", "big.gro")
        os.makedirs(package)
        for name in ("a", "b"):
            with open(os.path.join(package, name), "w") as f:
                f.truncate(5 << 60)
        d = Daemon(binary, ["--root", base], work)
        try:
            try:
                if d.wait_listening(20) is not None:
                    c = d.client()
                    response, _ = c.request({"op": "query.start", "predicate": "name == 'big.gro'", "attributes": ["size"], "live": False})
                    finished, _ = c.until("query.gatheringFinished")
                    size = finished["results"][0]["attributes"].get("kMDItemFSSize") if finished["results"] else None
                    return f"runs; the package's size is {size}"
            except (ConnectionError, TimeoutError, socket.timeout, KeyError):
                pass
            try:
                status = d.process.wait(10)
            except subprocess.TimeoutExpired:
                return "neither answers nor exits"
            return f"killed by signal {-status} at start (exit {128 - status})" if status < 0 else f"exit {status} at start"
        finally:
            d.stop()
    finally:
        shutil.rmtree(base, ignore_errors=True)

def sort_keys(binary, work, items=2000, keys=10000):
    """One query.start with thousands of sort keys."""
    root = os.path.join(work, "root"); make_container(root, files=items)
    d = Daemon(binary, ["--root", root], work)
    try:
        d.wait_listening()
        c = d.client()
        c.request({"op": "status"})
        before = d.kib("VmHWM")
        start = time.monotonic()
        response, _ = c.request({"op": "query.start", "predicate": "TRUEPREDICATE", "sort": ["name"] * keys, "live": False}, timeout=300)
        if "error" in response:
            outcome = f"refused at once ({response['error']['code']})"
        else:
            c.until("query.gatheringFinished", timeout=300)
            outcome = "accepted"
        seconds = time.monotonic() - start
        return f"{outcome}; {seconds:.2f} s; peak RSS +{mib(d.kib('VmHWM') - before)}"
    finally:
        d.stop()
        shutil.rmtree(root, ignore_errors=True)

def queries_per_user(binary, work, items=2000, connections=40):
    """One uid opening many connections, 64 live queries each."""
    root = os.path.join(work, "root"); make_container(root, files=items)
    d = Daemon(binary, ["--root", root], work)
    clients = []
    try:
        d.wait_listening()
        first = d.client()
        first.request({"op": "status"})
        before = d.kib("VmHWM")
        accepted = refused = 0
        start = time.monotonic()
        for _ in range(connections):
            c = d.client(); clients.append(c)
            for _ in range(64):
                response, _ = c.request({"op": "query.start", "predicate": "TRUEPREDICATE"}, timeout=120)
                if "result" in response:
                    accepted += 1
                else:
                    refused += 1
        seconds = time.monotonic() - start
        return f"{accepted} queries held ({accepted * items:,} results), {refused} refused; {seconds:.1f} s; peak RSS +{mib(d.kib('VmHWM') - before)}"
    finally:
        for c in clients:
            c.close()
        d.stop()
        shutil.rmtree(root, ignore_errors=True)

def matches_stall(binary, work, items=20000):
    """The most expensive MATCHES predicate the daemon accepts, and another client's status meanwhile."""
    alternatives = "|".join(f"w{i}x" for i in range(60))
    pattern = f"name MATCHES '.*({alternatives}).*z'"
    # Which size is accepted, asked of a daemon with nothing to gather.
    empty = os.path.join(work, "empty"); make_container(empty)
    probe = Daemon(binary, ["--root", empty], work)
    accepted = None
    try:
        probe.wait_listening()
        c = probe.client()
        for count in (400, 200, 100, 50, 25, 12, 6, 3, 1):
            response, _ = c.request({"op": "query.start", "predicate": " OR ".join([pattern] * count), "live": False})
            if "result" in response:
                accepted = count
                break
    finally:
        probe.stop()
    if accepted is None:
        return "every size refused"
    root = os.path.join(work, "root"); make_container(root, files=items, prefix="name-with-some-length-")
    d = Daemon(binary, ["--root", root], work)
    try:
        d.wait_listening()
        attacker, other = d.client(), d.client()
        other.request({"op": "status"})
        start = time.monotonic()
        attacker.send({"id": 1, "op": "query.start", "predicate": " OR ".join([pattern] * accepted), "live": False})
        latencies, gathered = [], None
        while gathered is None:
            t = time.monotonic()
            other.request({"op": "status"}, timeout=600)
            latencies.append(time.monotonic() - t)
            try:
                while True:
                    message = attacker.read(timeout=0.001)
                    if message.get("event") == "query.gatheringFinished" or "error" in message:
                        gathered = time.monotonic() - start
                        break
            except (TimeoutError, socket.timeout):
                pass
        return (f"{accepted} patterns accepted; gathering {gathered:.2f} s; another client's status waited "
                f"up to {max(latencies) * 1000:.0f} ms ({len(latencies)} asked meanwhile)")
    finally:
        d.stop()
        shutil.rmtree(root, ignore_errors=True)

def flood(binary, work):
    """A writer floods its own container past the kernel queue; another container's live query."""
    root = os.path.join(work, "root")
    make_container(root, "com.example.flooded"); calm = make_container(root, "com.example.calm", files=3)
    d = Daemon(binary, ["--root", root], work)
    try:
        d.wait_listening()
        watcher = d.client()
        response, _ = watcher.request({"op": "query.start", "container": "com.example.calm", "predicate": "name LIKE 'Item_*'", "batchingInterval": 0})
        live = response["result"]["query"]
        watcher.until("query.gatheringFinished")
        limit = int(open("/proc/sys/fs/inotify/max_queued_events").read())
        os.kill(d.process.pid, signal.SIGSTOP)
        documents = os.path.join(root, "com.example.flooded", "Documents")
        for i in range(limit // 2 + 1000):
            with open(os.path.join(documents, f"f{i}"), "w"):
                pass
        open(os.path.join(calm, "Documents", "Item_new"), "w").close()
        os.kill(d.process.pid, signal.SIGCONT)
        start = time.monotonic()
        other = d.client()
        response, _ = other.request({"op": "query.start", "container": "com.example.calm", "predicate": "name LIKE 'Item_*'", "live": False})
        finished, _ = other.until("query.gatheringFinished")
        answered = time.monotonic() - start
        _, seen = watcher.until("query.update", query=live, timeout=30)
        status, more = watcher.request({"op": "status"})
        resyncs = sum(1 for m in seen + more if m.get("event") == "query.resync")
        return (f"calm container: {len(finished['results'])} results after {answered * 1000:.0f} ms; "
                f"{resyncs} resync event(s) on its live query; overflows {status['result']['overflows']}")
    finally:
        d.stop()
        shutil.rmtree(root, ignore_errors=True)

def deep_change(binary, work, levels=40):
    """A file created deeper than PATH_MAX."""
    root = os.path.join(work, "root"); container = make_container(root)
    names = [chr(97 + i % 26) * 120 for i in range(levels)]
    fd = os.open(os.path.join(container, "Documents"), os.O_RDONLY)
    for name in names:
        os.mkdir(name, dir_fd=fd)
        child = os.open(name, os.O_RDONLY, dir_fd=fd); os.close(fd); fd = child
    d = Daemon(binary, ["--root", root], work)
    try:
        d.wait_listening()
        c = d.client()
        response, _ = c.request({"op": "query.start", "predicate": "name == 'deep-note.txt'", "batchingInterval": 0})
        query = response["result"]["query"]
        c.until("query.gatheringFinished")
        start = time.monotonic()
        os.close(os.open("deep-note.txt", os.O_WRONLY | os.O_CREAT, dir_fd=fd))
        try:
            c.until("query.update", query=query, timeout=10)
            return f"seen after {(time.monotonic() - start) * 1000:.1f} ms"
        except (TimeoutError, socket.timeout):
            return "not seen within 10 s"
    finally:
        os.close(fd)
        d.stop()
        shutil.rmtree(root, ignore_errors=True)

def root_symlink(binary, work):
    """The container root swapped for a symlink to a private directory, while a query is live."""
    root = os.path.join(work, "root"); container = make_container(root, files=1)
    private = os.path.join(work, "private"); os.makedirs(os.path.join(private, "Documents"), mode=0o700)
    open(os.path.join(private, "Documents", "Item_secret"), "w").close()
    d = Daemon(binary, ["--root", root], work)
    try:
        d.wait_listening()
        c = d.client()
        response, _ = c.request({"op": "query.start", "predicate": "name LIKE 'Item_*'", "batchingInterval": 0})
        c.until("query.gatheringFinished")
        # Swapped in one step (renameat2 RENAME_EXCHANGE), so the link is there when the loss is seen.
        os.symlink(private, os.path.join(work, "link"))
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.renameat2(-100, os.path.join(work, "link").encode(), -100, container.encode(), 2) != 0:
            raise OSError(ctypes.get_errno(), "renameat2")
        seen = []
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                seen.append(c.read(timeout=max(0.01, deadline - time.monotonic())))
            except (TimeoutError, socket.timeout):
                break
        leaked = sum(json.dumps(m).count("Item_secret") for m in seen)
        return f"{leaked} message(s) named the link target's item" if leaked else "nothing from the link's target; container unavailable"
    finally:
        d.stop()
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(private, ignore_errors=True)
        shutil.rmtree(os.path.join(work, "link"), ignore_errors=True)

# --- the trust boundary's second round: file contents and writes (as another uid) ----------------

MALLORY = 54321
MALLORY_GROUP = 54400

def as_uid(uid, groups, function, *args):
    """Runs function(*args) in a child process as uid (gid uid, the given groups); its JSON result."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        try:
            os.setgroups(groups)
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            result = function(*args)
        except BaseException as error:          # the child must never return into the caller's code
            result = {"failed": f"{type(error).__name__}: {error}"}
        os.write(write_end, json.dumps(result).encode())
        os._exit(0)
    os.close(write_end)
    chunks = []
    while True:
        chunk = os.read(read_end, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(read_end)
    os.waitpid(pid, 0)
    return json.loads(b"".join(chunks) or b"{}")

def mallory_container(root):
    """com.example.mallory, owned by uid 54321; the root and work directories reachable by it."""
    container = make_container(root, "com.example.mallory")
    for path in (container, os.path.join(container, "Documents")):
        os.chown(path, MALLORY, MALLORY)
    return container

def write_private(path, text, owner=0, group=0):
    """A file only its owner may read (0600)."""
    with open(path, "w") as f:
        f.write(text)
    os.chown(path, owner, group)
    os.chmod(path, 0o600)

def reachable(*paths):
    for path in paths:
        os.chmod(path, 0o755)

def prepend_escape(binary, work):
    """'L\u0600' -> / in one's own container; version.read of 'L\u0600/<root-only file>'."""
    root = os.path.join(work, "root"); make_container(root); container = mallory_container(root)
    secret = os.path.join(work, "secret"); marker = "TOP-SECRET-%d" % os.getpid()
    write_private(secret, marker)
    reachable(work, root)
    d = Daemon(binary, ["--root", root], work)
    try:
        d.wait_listening()
        def attack():
            os.symlink("/", os.path.join(container, "L\u0600"))
            c = Client(d.socket); c.hello()
            path = os.path.join(container, "L\u0600") + secret
            codes, leaked = [], 0
            for request in ({"op": "version.read", "path": path, "version": "current"},
                            {"op": "versions.list", "path": path}, {"op": "document.lock", "path": path}):
                response, _ = c.request(request)
                text = json.dumps(response)
                leaked += marker in text or base64.b64encode(marker.encode()).decode()[:12] in text
                codes.append(response.get("error", {}).get("code", "answered"))
            return {"codes": codes, "leaked": leaked}
        result = as_uid(MALLORY, [], attack)
        if "failed" in result:
            return "measurement failed: " + result["failed"]
        what = "read the root-only file's bytes" if result["leaked"] else "nothing read"
        return f"{what}; version.read/versions.list/document.lock: {', '.join(result['codes'])}"
    finally:
        d.stop()
        shutil.rmtree(root, ignore_errors=True)

def group_reader(binary, work):
    """a group member reads a 0600 file of root through the daemon and removes a conflict copy."""
    root = os.path.join(work, "root"); container = make_container(root)
    documents = os.path.join(container, "Documents")
    config = os.path.join(work, "ubiquityd.toml")
    with open(config, "w") as f:
        f.write(f'[[containers]]\nid = "com.example.grocery"\npath = "{container}"\nowner = 0\ngroup = {MALLORY_GROUP}\n')
    for path in (container, documents):
        os.chown(path, 0, MALLORY_GROUP); os.chmod(path, 0o750)
    marker = "ROOT-ONLY-%d" % os.getpid()
    item, copy = os.path.join(documents, "Secret"), os.path.join(documents, "Secret.sync-conflict-20261122-100001-NOFER4Z")
    for path in (item, copy):
        write_private(path, marker)
    reachable(work, root)
    d = Daemon(binary, ["--config", config], work)
    try:
        d.wait_listening()
        def attack():
            c = Client(d.socket); c.hello()
            read, _ = c.request({"op": "version.read", "path": item, "version": "current"})
            resolved, _ = c.request({"op": "version.resolve", "path": item, "keep": "current"})
            locked, _ = c.request({"op": "document.lock", "path": item})
            return {"read": marker in base64.b64decode(read.get("result", {}).get("data", "")).decode(errors="replace"),
                    "codes": [m.get("error", {}).get("code", "answered") for m in (read, resolved, locked)]}
        result = as_uid(MALLORY, [MALLORY_GROUP], attack)
        if "failed" in result:
            return "measurement failed: " + result["failed"]
        removed = not os.path.exists(copy)
        return (f"{'read' if result['read'] else 'did not read'} the 0600 file, {'removed' if removed else 'kept'} the copy; "
                f"read/resolve/lock: {', '.join(result['codes'])}")
    finally:
        d.stop()
        shutil.rmtree(root, ignore_errors=True)

def silent_watches(binary, work, watches=5000, seconds=3):
    """5,000 document.watch on a connection that stops reading, another locks and unlocks."""
    root = os.path.join(work, "root"); make_container(root); container = mallory_container(root)
    document = os.path.join(container, "Documents", "doc.txt")
    with open(document, "w") as f:
        f.write("hi")
    os.chown(document, MALLORY, MALLORY)
    reachable(work, root)
    d = Daemon(binary, ["--root", root], work)
    try:
        d.wait_listening()
        before = d.kib("VmRSS")
        def attack():
            watcher = Client(d.socket); watcher.hello()
            accepted = 0
            for _ in range(watches):
                response, _ = watcher.request({"op": "document.watch", "path": document})
                accepted += "result" in response
            locker = Client(d.socket); locker.hello()
            cycles, deadline = 0, time.monotonic() + seconds
            while time.monotonic() < deadline:
                lock, _ = locker.request({"op": "document.lock", "path": document})
                locker.request({"op": "document.unlock", "lock": lock["result"]["lock"]})
                cycles += 1
            return {"accepted": accepted, "cycles": cycles, "rss": d.kib("VmRSS")}
        result = as_uid(MALLORY, [], attack)
        if "failed" in result:
            return "measurement failed: " + result["failed"]
        return (f"{result['accepted']:,} watches accepted; {result['cycles']:,} lock/unlock in {seconds} s; "
                f"RSS {mib(before)} -> {mib(result['rss'])}")
    finally:
        d.stop()
        shutil.rmtree(root, ignore_errors=True)

def kv_fifo(binary, work):
    """a FIFO at the key-value store's temporary name, then kv.set."""
    root = os.path.join(work, "root"); make_container(root); container = mallory_container(root)
    reachable(work, root)
    state = os.path.join(work, "state"); os.makedirs(state, mode=0o700)
    env_state = {"STATE_DIRECTORY": state}
    os.environ.update(env_state)
    d = Daemon(binary, ["--root", root], work)
    try:
        d.wait_listening()
        def attack():
            c = Client(d.socket); c.hello()
            c.request({"op": "kv.set", "container": "com.example.mallory", "key": "k", "value": 1})
            folder = os.path.join(container, ".ubiquity-kv")
            device = [n for n in os.listdir(folder) if n.endswith(".json") and not n.startswith(".")][0]
            os.mkfifo(os.path.join(folder, "." + device + ".writing"))
            start = time.monotonic()
            try:
                response, _ = c.request({"op": "kv.set", "container": "com.example.mallory", "key": "k", "value": 2}, timeout=5)
                answered = f"kv.set answered in {(time.monotonic() - start) * 1000:.0f} ms ({'stored' if 'result' in response else response.get('error', {}).get('code')})"
            except (TimeoutError, socket.timeout):
                answered = "kv.set did not answer in 5 s"
            return {"answered": answered}
        result = as_uid(MALLORY, [], attack)
        if "failed" in result:
            return "measurement failed: " + result["failed"]
        other = d.client()
        try:
            response, _ = other.request({"op": "kv.all", "container": "com.example.grocery"}, timeout=5)
            others = "another container's kv.all answered"
        except (TimeoutError, socket.timeout):
            others = "another container's kv.all did not answer in 5 s"
        start = time.monotonic()
        d.process.send_signal(signal.SIGTERM)
        try:
            d.process.wait(10)
            stopped = f"SIGTERM stopped it in {time.monotonic() - start:.1f} s"
        except subprocess.TimeoutExpired:
            stopped = "SIGTERM did not stop it in 10 s"
        return f"{result['answered']}; {others}; {stopped}"
    finally:
        for key in ("STATE_DIRECTORY",):
            os.environ.pop(key, None)
        d.stop()
        shutil.rmtree(root, ignore_errors=True)

ATTACKS = [
    ("two sparse 5 EiB files in one package", sparse_files),
    ("10,000 sort keys over 2,000 items", sort_keys),
    ("one uid: 40 connections × 64 queries over 2,000 items", queries_per_user),
    ("the largest MATCHES predicate accepted, 20,000 items", matches_stall),
    ("flooding one container past the kernel queue", flood),
    ("a file created 4,840 bytes deep (past PATH_MAX)", deep_change),
    ("container root swapped for a symlink to a private directory", root_symlink),
    ("grapheme-prepend '/' and a link to / in one's own container", prepend_escape),
    ("a group member: version.read and version.resolve of root's 0600 file", group_reader),
    ("5,000 document watches never read while another connection locks and unlocks for 3 s", silent_watches),
    ("a FIFO at the key-value store's temporary name, then kv.set", kv_fifo),
]

def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ubiquityd", required=True, help="the build to measure")
    parser.add_argument("--before", help="an older build, measured in the same run for comparison")
    parser.add_argument("--only", help="comma-separated attack function names")
    args = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit("attacks.py: run as root (uid switching, chown)")
    binaries = [("before", args.before)] if args.before else []
    binaries.append(("after" if args.before else "result", args.ubiquityd))
    rows = []
    for title, attack in ATTACKS:
        if args.only and attack.__name__ not in args.only.split(","):
            continue
        row = [title]
        for label, binary in binaries:
            work = tempfile.mkdtemp(prefix="ubq-attack-")
            log(f"{attack.__name__} on {label}")
            try:
                row.append(attack(os.path.abspath(binary), work))
            except Exception as error:          # a failed measurement is a result too
                row.append(f"measurement failed: {type(error).__name__}: {error}")
            finally:
                shutil.rmtree(work, ignore_errors=True)
        rows.append(row)
    print("| attack | " + " | ".join(label for label, _ in binaries) + " |")
    print("|---|" + "---|" * len(binaries))
    for row in rows:
        print("| " + " | ".join(row) + " |")

if __name__ == "__main__":
    main()
