#!/usr/bin/env bash
# install.sh — install the release binaries, systemd units and default configuration.
#
#   Packaging/install.sh [--prefix PREFIX] [--destdir DESTDIR] [--bindir BINDIR] [--from BUILD_DIR]
#
# PREFIX (default /usr/local, or $PREFIX) decides where binaries go (BINDIR, default PREFIX/bin) and
# where units go: PREFIX/lib/systemd/{system,user}, PREFIX/lib/{sysusers,tmpfiles}.d for /usr and
# /usr/local (systemd searches both), /etc/... for any other prefix (systemd searches nothing else).
# DESTDIR (or $DESTDIR) stages everything below another root, for packagers. BUILD_DIR holds the
# release binaries (default: `swift build -c release --show-bin-path`, i.e. .build/release).
# Idempotent: files are rewritten only when they differ; an existing ubiquityd.toml is never replaced.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
prefix=${PREFIX:-/usr/local}
destdir=${DESTDIR:-}
bindir=
from=

usage() { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
    case $1 in
    --prefix) prefix=${2:?--prefix needs a directory}; shift 2 ;;
    --destdir) destdir=${2:?--destdir needs a directory}; shift 2 ;;
    --bindir) bindir=${2:?--bindir needs a directory}; shift 2 ;;
    --from) from=${2:?--from needs a directory}; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "install.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
    esac
done
prefix=${prefix%/}
[ -n "$prefix" ] || prefix=/usr
bindir=${bindir:-$prefix/bin}
from=${from:-$repo/.build/release}

case $prefix in
/usr | /usr/local)
    unitdir=$prefix/lib/systemd/system userunitdir=$prefix/lib/systemd/user
    sysusersdir=$prefix/lib/sysusers.d tmpfilesdir=$prefix/lib/tmpfiles.d ;;
*)
    unitdir=/etc/systemd/system userunitdir=/etc/systemd/user
    sysusersdir=/etc/sysusers.d tmpfilesdir=/etc/tmpfiles.d ;;
esac

# The daemon and the CLI are required; grocery is installed once it exists.
for required in ubiquityd ubiq; do
    if [ ! -x "$from/$required" ]; then
        echo "install.sh: $from/$required is missing: run 'swift build -c release' first (or pass --from DIR)" >&2
        exit 1
    fi
done

# put SOURCE DEST MODE: installs SOURCE as DEST below DESTDIR, saying whether anything changed.
put() {
    local source=$1 target=$destdir$2 mode=$3
    if [ -f "$target" ] && cmp -s "$source" "$target"; then
        echo "  unchanged  $2"
    else
        install -D -m "$mode" "$source" "$target"
        echo "  installed  $2"
    fi
}

# A unit with ExecStart/ExecReload pointing at BINDIR instead of /usr/local/bin.
staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
unit() {
    local source=$1 target=$2
    sed "s|/usr/local/bin/|$bindir/|g" "$source" > "$staging/$(basename "$source")"
    put "$staging/$(basename "$source")" "$target" 0644
}

echo "Installing Ubiquity (prefix $prefix${destdir:+, staged in $destdir}) from $from:"
for binary in ubiquityd ubiq grocery; do
    if [ -x "$from/$binary" ]; then put "$from/$binary" "$bindir/$binary" 0755; fi
done
unit "$repo/Packaging/ubiquityd.service" "$unitdir/ubiquityd.service"
unit "$repo/Packaging/ubiquityd.socket" "$unitdir/ubiquityd.socket"
unit "$repo/Packaging/user/ubiquityd.service" "$userunitdir/ubiquityd.service"
unit "$repo/Packaging/user/ubiquityd.socket" "$userunitdir/ubiquityd.socket"
put "$repo/Packaging/ubiquity.sysusers.conf" "$sysusersdir/ubiquity.conf" 0644
put "$repo/Packaging/ubiquity.tmpfiles.conf" "$tmpfilesdir/ubiquity.conf" 0644
config=/etc/ubiquity/ubiquityd.toml
if [ -e "$destdir$config" ]; then
    echo "  kept       $config (exists; compare with $repo/Config/ubiquityd.toml)"
elif [ -f "$repo/Config/ubiquityd.toml" ]; then
    put "$repo/Config/ubiquityd.toml" "$config" 0644
else
    echo "  skipped    $config (no Config/ubiquityd.toml in this tree)"
fi

if [ -n "$destdir" ]; then
    echo "Staged in $destdir; the package's install scripts run the commands below."
fi
cat <<NEXT

Next, system-wide (serves /var/lib/ubiquity/containers and what $config declares):
  sudo systemd-sysusers $sysusersdir/ubiquity.conf
  sudo systemd-tmpfiles --create $tmpfilesdir/ubiquity.conf
  sudo systemctl daemon-reload
  sudo systemctl enable --now ubiquityd.socket ubiquityd.service
  systemctl status ubiquityd        # "STATUS=" shows the crawl, then what is served
Or per user (serves ~/.local/share/ubiquity/containers; socket \$XDG_RUNTIME_DIR/ubiquity/ubiquityd.sock):
  systemctl --user daemon-reload
  systemctl --user enable --now ubiquityd.socket ubiquityd.service
NEXT
