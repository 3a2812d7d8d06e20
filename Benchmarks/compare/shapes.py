"""The tree shapes compare.py measures on, generated deterministically from a seed.

Every generator creates `root`/Documents/… (root is base/com.example.bench) and returns a manifest:
the entries it created below the container (files and directories, Documents included), its
directories, and `items`, the relative paths (from base) of every file named `Item_*`, which both
daemons' answers must equal exactly. Only the Python standard library is used.

Shapes (docs/benchmarks.md, "Goals on every shape", describes them for the reader):
  default  the layout of Benchmarks/Sources/WatchBenchmarks/Tree.swift (mixed: breadth-first, 100
           entries per directory, 2% directories, 0.1% packages, Item_<UUID> 10% of the files)
  wide     N/100 directories of 100 files each, 10% `Item_%08d`, the rest `file_%08d.txt`
  deep     chains of 20–40 nested directories, 9 files in each level
  flat     one directory holding every file
  long     like wide, but every name (directories too) 60–200 bytes of non-ASCII UTF-8
Files of the new shapes hold 0–49 bytes; the default shape's 0–64.
"""

import os

CONTAINER = "com.example.bench"
ENTRIES_PER_DIRECTORY = 100
PACKAGE_FILES = ["contents.json", "meta.plist", "thumb.png"]
EXTENSIONS = [".txt", ".png", ".md", ".json", ""]
PAYLOAD = b"Ubiquity watch benchmark: small file contents, 0 to 64 bytes...."
MASK64 = (1 << 64) - 1

# The shapes in the order a full run measures them; `default` is the layout of earlier reports.
SHAPES = ["default", "wide", "deep", "flat", "long"]
# Each shape's layout version, kept in the manifest: a tree kept from an older layout is not reused.
LAYOUTS = {"default": 1, "wide": 1, "deep": 2, "flat": 1, "long": 1}
SHAPE_TEXT = {
    "default": "mixed: directories filled breadth-first with 100 entries each, 2% sub-directories, "
               "0.1% packages, `Item_<UUID>` 10% of the files, 0–64 bytes",
    "wide": "N/100 directories of 100 files each, 10% `Item_%08d`, the rest `file_%08d.txt`, 0–49 bytes",
    "deep": "chains of 20–40 nested directories below Documents, 9 files in every level (a directory "
            "per 10 entries), 10% `Item_%08d`, 0–49 bytes",
    "flat": "one directory (Documents) holding every file, 10% `Item_%08d`, 0–49 bytes",
    "long": "as wide, but every name, directories' too, 60–200 bytes of UTF-8 (Latin, Greek, Cyrillic, "
            "CJK, emoji), 10% of the files prefixed `Item_`, 0–49 bytes",
}

# Chains of the deep shape: levels per chain and files per level. A directory per 10 entries: at 1M,
# 100,000 directories, each an inotify watch of either daemon. With 4 files per level (200,000
# directories) Watchman 4.9 failed the 1M tree outright here ("inotify-add-watch" over
# fs.inotify.max_user_watches = 192,536), so nothing could be compared.
DEEP_MIN_LEVELS, DEEP_MAX_LEVELS, DEEP_FILES_PER_LEVEL = 20, 40, 9
# Names of the long shape, in bytes of UTF-8 (NAME_MAX is 255).
LONG_MIN_BYTES, LONG_MAX_BYTES = 60, 200
# Characters of long names: precomposed (NFC-stable) letters of 1 to 4 bytes of UTF-8, nothing a
# glob, a LIKE pattern or a quoted predicate would treat specially.
LONG_ALPHABET = (list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")
                 + list("éüßñøåçăłαβγλжщы") + list("日本語文件名買物") + ["🍎", "🥕", "🧀"])
NEW_SHAPES_MAX_FILE_BYTES = 49


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & MASK64

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)


def make_uuid(rng):
    raw = bytearray(rng.next().to_bytes(8, "little") + rng.next().to_bytes(8, "little"))
    raw[6] = (raw[6] & 0x0F) | 0x40
    raw[8] = (raw[8] & 0x3F) | 0x80
    h = raw.hex().upper()
    return f"{h[0:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


FLAGS = os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_CLOEXEC


def write_file(dir_fd, name, size):
    fd = os.open(name, FLAGS, 0o644, dir_fd=dir_fd)
    if size:
        os.write(fd, PAYLOAD[:size])
    os.close(fd)


def open_dir(path, dir_fd=None):
    return os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=dir_fd)


class Progress:
    """Calls `report(created)` every 100,000 entries."""

    def __init__(self, report):
        self.report, self.last = report, 0

    def __call__(self, created):
        if self.report and created - self.last >= 100_000:
            self.last = created
            self.report(created)


def generate(shape, base, entries, seed, report=None):
    """Creates base/com.example.bench in `shape` with about `entries` entries; returns the manifest."""
    generators = {"default": generate_default, "wide": generate_wide, "deep": generate_deep,
                  "flat": generate_flat, "long": generate_long}
    if shape not in generators:
        raise ValueError(f"unknown tree shape {shape!r} (known: {', '.join(SHAPES)})")
    root = os.path.join(base, CONTAINER)
    os.makedirs(os.path.join(root, "Documents"))
    manifest = generators[shape](root, entries, SplitMix64(seed), Progress(report))
    manifest.update(seed=seed, shape=shape, layout=LAYOUTS[shape])
    return manifest


def generate_default(root, entries, rng, progress):
    """Breadth-first, 100 entries per directory; per entry 2% is a sub-directory dir_<k>, 0.1% a
    package List_<k>.gro with 3 files, otherwise a file of 0-64 bytes named Item_<UPPERCASE-UUID>
    (10% of files) or file_<k>.<ext>. Exactly `entries` entries."""
    created, directories, packages = 1, 1, 0
    items = []
    queue = ["Documents"]
    nxt = 0
    while created < entries:
        if nxt >= len(queue):
            raise RuntimeError("tree generation ran out of directories")
        relative = queue[nxt]
        nxt += 1
        dfd = open_dir(os.path.join(root, relative))
        try:
            in_dir = 0
            while in_dir < ENTRIES_PER_DIRECTORY and created < entries:
                in_dir += 1
                r = rng.next()
                if r % 100 < 2:
                    name = f"dir_{created}"
                    os.mkdir(name, 0o755, dir_fd=dfd)
                    queue.append(relative + "/" + name)
                    created += 1
                    directories += 1
                    continue
                if r % 1000 == 2 and created + 1 + len(PACKAGE_FILES) <= entries:
                    name = f"List_{created}.gro"
                    os.mkdir(name, 0o755, dir_fd=dfd)
                    pfd = open_dir(name, dfd)
                    for f in PACKAGE_FILES:
                        write_file(pfd, f, rng.next() % 65)
                    os.close(pfd)
                    created += 1 + len(PACKAGE_FILES)
                    packages += 1
                    continue
                draw = rng.next()
                if draw % 10 == 0:
                    name = "Item_" + make_uuid(rng)
                    items.append(f"{CONTAINER}/{relative}/{name}")
                else:
                    name = f"file_{created}" + EXTENSIONS[(draw // 10) % len(EXTENSIONS)]
                write_file(dfd, name, rng.next() % 65)
                created += 1
        finally:
            os.close(dfd)
        progress(created)
    return {"entries": created, "directories": directories, "packages": packages, "items": items}


class Files:
    """Numbered files of the new shapes: 10% `Item_*` (drawn), 0–49 bytes; counts what it made."""

    def __init__(self, rng, name=None):
        self.rng, self.count, self.items = rng, 0, []
        self.name = name or (lambda k, item: f"Item_{k:08d}" if item else f"file_{k:08d}.txt")

    def make(self, dir_fd, relative):
        k = self.count
        self.count += 1
        item = self.rng.next() % 10 == 0
        name = self.name(k, item)
        write_file(dir_fd, name, self.rng.next() % (NEW_SHAPES_MAX_FILE_BYTES + 1))
        if item:
            self.items.append(f"{CONTAINER}/{relative}/{name}")


def generate_columns(root, entries, rng, progress, files, dir_name):
    """entries/100 directories (at least one) below Documents, 100 files in each: entries + entries/100."""
    directories = max(1, entries // ENTRIES_PER_DIRECTORY)
    docs = open_dir(os.path.join(root, "Documents"))
    try:
        for d in range(directories):
            name = dir_name(d)
            os.mkdir(name, 0o755, dir_fd=docs)
            dfd = open_dir(name, docs)
            try:
                for _ in range(ENTRIES_PER_DIRECTORY):
                    files.make(dfd, f"Documents/{name}")
            finally:
                os.close(dfd)
            progress(files.count + d + 2)
    finally:
        os.close(docs)
    return {"entries": 1 + directories + files.count, "directories": 1 + directories, "packages": 0,
            "items": files.items}


def generate_wide(root, entries, rng, progress):
    return generate_columns(root, entries, rng, progress, Files(rng), lambda d: f"dir_{d:05d}")


def generate_long(root, entries, rng, progress):
    def file_name(k, item):
        return long_name(rng, ("Item_" if item else "") + f"{k:08d}-")
    return generate_columns(root, entries, rng, progress, Files(rng, file_name),
                            lambda d: long_name(rng, f"dir{d:05d}-"))


def long_name(rng, prefix):
    """`prefix` and characters of LONG_ALPHABET up to a drawn length of 60–200 bytes of UTF-8."""
    target = LONG_MIN_BYTES + rng.next() % (LONG_MAX_BYTES - LONG_MIN_BYTES + 1)
    parts, size = [prefix], len(prefix.encode())
    while size < target:
        c = LONG_ALPHABET[rng.next() % len(LONG_ALPHABET)]
        n = len(c.encode())
        if size + n > target:
            c, n = "x", 1
        parts.append(c)
        size += n
    return "".join(parts)


def generate_deep(root, entries, rng, progress):
    """Chains Documents/chain_<c>/level_02/…/level_<L>, L drawn in 20–40, 9 files in every level,
    until `entries` entries (the last chain may stop short)."""
    files = Files(rng)
    created, directories = 1, 1
    chain = 0
    docs = open_dir(os.path.join(root, "Documents"))
    try:
        while created < entries:
            levels = DEEP_MIN_LEVELS + rng.next() % (DEEP_MAX_LEVELS - DEEP_MIN_LEVELS + 1)
            parent, relative = os.dup(docs), "Documents"
            try:
                for level in range(1, levels + 1):
                    if created >= entries:
                        break
                    name = f"chain_{chain:05d}" if level == 1 else f"level_{level:02d}"
                    os.mkdir(name, 0o755, dir_fd=parent)
                    fd = open_dir(name, parent)
                    os.close(parent)
                    parent, relative = fd, f"{relative}/{name}"
                    created += 1
                    directories += 1
                    for _ in range(DEEP_FILES_PER_LEVEL):
                        if created >= entries:
                            break
                        files.make(parent, relative)
                        created += 1
            finally:
                os.close(parent)
            chain += 1
            progress(created)
    finally:
        os.close(docs)
    return {"entries": created, "directories": directories, "packages": 0, "items": files.items,
            "chains": chain}


def generate_flat(root, entries, rng, progress):
    """Documents holding entries - 1 files."""
    files = Files(rng)
    docs = open_dir(os.path.join(root, "Documents"))
    try:
        while 1 + files.count < entries:
            files.make(docs, "Documents")
            progress(1 + files.count)
    finally:
        os.close(docs)
    return {"entries": 1 + files.count, "directories": 1, "packages": 0, "items": files.items}


def check(base, entries, seed):
    """Generates every shape of `entries` under base and checks what the manifests promise against
    the tree itself: its entries, its exact set of Item_* files, names of the long shape within
    60–200 bytes, chains of the deep shape 20–40 levels deep. Returns a list of problems (empty
    when all is well)."""
    problems = []
    for shape in SHAPES:
        tree = os.path.join(base, shape)
        manifest = generate(shape, tree, entries, seed)
        container = os.path.join(tree, CONTAINER)
        found, items, deepest = 0, set(), 0
        name_bytes = []
        for directory, dirs, files in os.walk(container):
            found += len(dirs) + len(files)
            relative = os.path.relpath(directory, tree)
            deepest = max(deepest, relative.count("/") - 1)  # levels below Documents
            items.update(f"{relative}/{f}" for f in files if f.startswith("Item_"))
            name_bytes.extend(len(n.encode()) for n in dirs + files if n != "Documents")
        if found != manifest["entries"]:
            problems.append(f"{shape}: {found} entries in the tree, {manifest['entries']} in the manifest")
        if items != set(manifest["items"]) or len(items) != len(manifest["items"]):
            problems.append(f"{shape}: the tree's Item_* files differ from the manifest's")
        if not items:
            problems.append(f"{shape}: no Item_* file at {entries} entries")
        if shape == "long" and not all(LONG_MIN_BYTES <= n <= LONG_MAX_BYTES for n in name_bytes):
            problems.append(f"{shape}: a name outside {LONG_MIN_BYTES}–{LONG_MAX_BYTES} bytes")
        if shape == "deep" and entries >= 10 * DEEP_MAX_LEVELS and not DEEP_MIN_LEVELS <= deepest <= DEEP_MAX_LEVELS:
            problems.append(f"{shape}: the deepest chain is {deepest} levels, not {DEEP_MIN_LEVELS}–{DEEP_MAX_LEVELS}")
        if shape == "flat" and manifest["directories"] != 1:
            problems.append(f"{shape}: {manifest['directories']} directories")
    return problems
