#!/usr/bin/env bash
# Makes a one-node Ceph S3 gateway (Debian's radosgw) answer at 127.0.0.1:$RADOSGW_PORT (default
# 7480) with a user holding the fixed test keys below, for the object-store tests
# (test/support/radosgw.ts). When it does not answer, it installs Debian's ceph-mon, ceph-osd and
# radosgw (apt-get; needs root or sudo) and starts, from nothing, one monitor, one OSD on memstore
# (in memory, no disk) and the gateway, every pool one replica, all under $RADOSGW_DIR (default
# /var/lib/static-deploy-ceph) with its own ceph.conf: /etc/ceph and /var/lib/ceph are left alone.
# A gateway that already answers with the user is left as it is.
#
# The daemons are started directly and detach themselves, with or without systemd: Debian's units
# assume /etc/ceph/ceph.conf and /var/lib/ceph. Memstore keeps nothing across a restart, so a
# cluster that stopped is started afresh, and a running one gains objects until it is restarted
# (`RADOSGW_RESET=1` starts it afresh).
set -euo pipefail
PORT="${RADOSGW_PORT:-7480}"
MON_PORT="${RADOSGW_MON_PORT:-13300}"
DIR="${RADOSGW_DIR:-/var/lib/static-deploy-ceph}"
# The same defaults as test/support/radosgw.ts: change both together.
ACCESS_KEY="STATICDEPLOYTEST"
SECRET_KEY="static-deploy-radosgw-test-secret"
USER_ID="static-deploy-test"
CONF="$DIR/ceph.conf"
# Test files that start at once may all call this: one works, the others wait and find it done.
exec 9>"${TMPDIR:-/tmp}/static-deploy-install-radosgw.lock"
flock 9
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

say_ready() {
  echo "radosgw ready: TEST_RADOSGW_ENDPOINT=http://127.0.0.1:$PORT" \
    "TEST_RADOSGW_ACCESS_KEY=$ACCESS_KEY TEST_RADOSGW_SECRET_KEY=$SECRET_KEY (path-style, region us-east-1)"
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Quiet unless it fails; then its output and the daemons' last log lines.
run() {
  local out
  if ! out="$("$@" 2>&1)"; then
    echo "install-radosgw: failed: $*" >&2
    echo "$out" >&2
    for log in "$DIR"/log/*.log; do
      [ -f "$log" ] && { echo "--- $log" >&2; $SUDO tail -n 20 "$log" >&2; }
    done
    exit 1
  fi
}

# The user exists (so the cluster answers) and the gateway listens.
answers() {
  [ -f "$CONF" ] && port_open "$PORT" &&
    $SUDO timeout 10 radosgw-admin -c "$CONF" user info --uid="$USER_ID" >/dev/null 2>&1
}

# Waits up to $1 half-seconds for the command after it to succeed.
wait_for() {
  local tries="$1"
  shift
  for _ in $(seq 1 "$tries"); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.5
  done
  run "$@"
}

if [ -z "${RADOSGW_RESET:-}" ] && command -v radosgw-admin >/dev/null && answers; then
  say_ready
  exit 0
fi

if ! command -v radosgw >/dev/null || ! command -v ceph-mon >/dev/null || ! command -v ceph-osd >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  run $SUDO apt-get update
  run $SUDO apt-get install -y --no-install-recommends ceph-mon ceph-osd radosgw
fi

# Whatever ran from $DIR before is stopped (by its pid files) and its data removed.
for pidfile in "$DIR"/run/*.pid; do
  [ -f "$pidfile" ] || continue
  pid="$(cat "$pidfile")"
  if [ -n "$pid" ] && $SUDO kill "$pid" 2>/dev/null; then
    for _ in $(seq 1 40); do $SUDO kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    $SUDO kill -9 "$pid" 2>/dev/null || true
  fi
done
$SUDO rm -rf "$DIR"
$SUDO mkdir -p "$DIR/mon.a" "$DIR/osd.0" "$DIR/run" "$DIR/log"

fsid="$(cat /proc/sys/kernel/random/uuid)"
$SUDO tee "$CONF" >/dev/null <<EOF
# Written by scripts/install-radosgw.sh: a throwaway one-node cluster for the tests.
[global]
fsid = $fsid
mon host = v2:127.0.0.1:$MON_PORT
ms bind msgr1 = false
public network = 127.0.0.0/8
auth cluster required = none
auth service required = none
auth client required = none
# Without cephx a client speaks crc to the monitor; radosgw asks for "secure" only and never connects.
ms mon client mode = crc
run dir = $DIR/run
pid file = $DIR/run/\$name.pid
admin socket = $DIR/run/\$name.asok
log file = $DIR/log/\$name.log
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon warn on pool no redundancy = false
[mon]
mon data = $DIR/mon.\$id
[osd]
osd data = $DIR/osd.\$id
osd objectstore = memstore
memstore device bytes = ${RADOSGW_MEMSTORE_BYTES:-2147483648}
[client.rgw.test]
rgw frontends = beast endpoint=127.0.0.1:$PORT
rgw data = $DIR/rgw
# A gateway that cannot reach the cluster fails within a minute, not the default five.
rgw init timeout = 60
EOF

# The daemons must not inherit the lock (fd 9): they outlive this script.
run $SUDO monmaptool --create --fsid "$fsid" --addv a "[v2:127.0.0.1:$MON_PORT]" "$DIR/monmap"
run $SUDO ceph-mon -c "$CONF" --mkfs -i a --monmap "$DIR/monmap"
run $SUDO ceph-mon -c "$CONF" -i a 9>&-
wait_for 60 $SUDO timeout 5 ceph -c "$CONF" mon stat

osd_uuid="$(cat /proc/sys/kernel/random/uuid)"
run $SUDO ceph -c "$CONF" osd new "$osd_uuid" 0
run $SUDO ceph-osd -c "$CONF" -i 0 --mkfs --osd-uuid "$osd_uuid"
run $SUDO ceph-osd -c "$CONF" -i 0 9>&-
osd_up() { $SUDO timeout 5 ceph -c "$CONF" osd dump | grep -q "^osd.0 up"; }
wait_for 120 osd_up

run $SUDO mkdir -p "$DIR/rgw"
run $SUDO radosgw -c "$CONF" -n client.rgw.test 9>&-
wait_for 240 port_open "$PORT"
run $SUDO radosgw-admin -c "$CONF" user create --uid="$USER_ID" --display-name="static-deploy tests" \
  --access-key="$ACCESS_KEY" --secret-key="$SECRET_KEY"
wait_for 60 answers
say_ready
