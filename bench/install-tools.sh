#!/usr/bin/env bash
# Installs what `npm run bench` needs beyond npm: nginx (the reference server), wrk (the load
# generator), GNU time (peak memory of the client), rsync (the reference for a redeploy that
# finds nothing changed) and b3sum (the native BLAKE3 reference of the hashing benchmark).
# Debian/Ubuntu only; installs nothing when all are present.
set -euo pipefail

missing=()
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx)
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
[ -x /usr/bin/time ] || missing+=(time)
command -v rsync >/dev/null 2>&1 || missing+=(rsync)
command -v b3sum >/dev/null 2>&1 || missing+=(b3sum)
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "bench: missing ${missing[*]} and no apt-get here; install them and run again" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "bench: missing ${missing[*]}; run as root or install them" >&2
    exit 1
  fi
fi
echo "bench: installing ${missing[*]} with apt-get" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
