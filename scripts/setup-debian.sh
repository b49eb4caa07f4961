#!/usr/bin/env bash
# Debian packages loglab uses: Chromium for the real-browser report test, DejaVu fonts for the
# PNG charts (resvg draws their sans-serif text with DejaVu Sans), and fio, the reference the
# queue-depth experiment runs beside its own rounds (without it the lab runs, with a note and no
# fio figures; the tests fake it). And what `npm ci` needs to build better-sqlite3 (the results
# history, `loglab history`) from source: its install script first tries to download a prebuilt
# binary, which fails where only the npm registry and Debian's packages can be reached, then
# runs node-gyp, which needs g++, make, python3 and the headers of the Node.js that runs it.
# node-gyp finds those headers only through npm's `nodedir` (otherwise it downloads them, which
# fails too), so nodedir is set to this Node's prefix in the user's npmrc when unset.
# Idempotent and quiet: installs only what is missing, and does nothing on a machine without
# apt-get but check the headers and nodedir.
set -euo pipefail

missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing+=(fonts-dejavu-core)
command -v fio >/dev/null 2>&1 || missing+=(fio)
command -v g++ >/dev/null 2>&1 || missing+=(g++)
command -v make >/dev/null 2>&1 || missing+=(make)
command -v python3 >/dev/null 2>&1 || missing+=(python3)

if [ "${#missing[@]}" -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1; then
    sudo_cmd=()
    if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
    export DEBIAN_FRONTEND=noninteractive
    "${sudo_cmd[@]}" apt-get update -qq
    "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    echo "setup-debian: installed ${missing[*]}"
  else
    echo "setup-debian: apt-get not found; install ${missing[*]} by hand" >&2
  fi
fi

# The headers node-gyp compiles better-sqlite3 against: Node.js's own, under its prefix
# (/usr/include/node for NodeSource's nodejs package, which ships them; the same place in an
# official tarball or under nvm). Debian's own nodejs is 18, older than loglab supports.
node_prefix="$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")"
node_version="$(node -p 'process.versions.node')"
headers="$node_prefix/include/node/node_version.h"
if [ ! -f "$headers" ]; then
  echo "setup-debian: no Node.js headers at $headers, so npm ci cannot build better-sqlite3;" \
    "install Node.js $node_version from a package or tarball that ships include/node" >&2
  exit 1
fi
version_lines='/#define NODE_(MAJOR|MINOR|PATCH)_VERSION/'
header_version="$(awk "$version_lines"' { printf "%s%s", sep, $3; sep = "." }' "$headers")"
if [ "$header_version" != "$node_version" ]; then
  echo "setup-debian: the headers at $headers are of Node.js $header_version, not of" \
    "$node_version that runs here; reinstall Node.js so that they match" >&2
  exit 1
fi
nodedir="$(npm config get nodedir)"
if [ -z "$nodedir" ] || [ "$nodedir" = "undefined" ] || [ "$nodedir" = "null" ]; then
  # `npm config set` refuses the key (npm 11 sets only options it knows), yet npm hands every
  # key of an npmrc file to node-gyp, which reads nodedir from it.
  userconfig="$(npm config get userconfig)"
  printf 'nodedir=%s\n' "$node_prefix" >> "$userconfig"
  echo "setup-debian: nodedir=$node_prefix added to $userconfig" \
    "(node-gyp builds against its headers)"
fi
