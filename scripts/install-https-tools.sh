#!/usr/bin/env bash
# Installs Debian's caddy (the TLS front of the Production setup) and pebble (Let's Encrypt's test
# ACME server) for the HTTPS end-to-end test (test/https), and openssl for its throwaway CA.
# Needs root (or sudo) and apt.
set -euo pipefail
if [ -x /usr/bin/caddy ] && [ -x /usr/bin/pebble ] && [ -x /usr/bin/openssl ]; then
  echo "caddy, pebble and openssl already installed: $(/usr/bin/caddy version 2>/dev/null || echo caddy)"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
# policy-rc.d 101: the caddy package must not start its own service (on :80) while installing.
POLICY=/usr/sbin/policy-rc.d
CREATED_POLICY=0
if [ ! -e "$POLICY" ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$POLICY" >/dev/null
  $SUDO chmod +x "$POLICY"
  CREATED_POLICY=1
fi
trap 'if [ "$CREATED_POLICY" = 1 ]; then $SUDO rm -f "$POLICY"; fi' EXIT
$SUDO apt-get install -y --no-install-recommends caddy pebble openssl
/usr/bin/caddy version
