#!/usr/bin/env bash
# Debian packages loglab uses: Chromium for the real-browser report test, DejaVu fonts for the
# PNG charts (resvg draws their sans-serif text with DejaVu Sans), and fio, the reference the
# queue-depth experiment runs beside its own rounds (without it the lab runs, with a note and no
# fio figures; the tests fake it). Idempotent and quiet:
# installs only what is missing, and does nothing on a machine without apt-get.
set -euo pipefail

missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing+=(fonts-dejavu-core)
command -v fio >/dev/null 2>&1 || missing+=(fio)

if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup-debian: apt-get not found; install ${missing[*]} by hand" >&2
  exit 0
fi
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup-debian: installed ${missing[*]}"
