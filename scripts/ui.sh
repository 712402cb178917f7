#!/usr/bin/env bash
# `make ui`: the Dagster UI (webserver) and the daemon (sensors, schedule, automation, run queue)
# on UI_HOST:UI_PORT (default 127.0.0.1:3000), with the project's instance in DAGSTER_HOME
# (default .dagster_home in the repo, holding a copy of the repo's dagster.yaml).
# Ctrl-C or SIGTERM stops the webserver, the daemon and the code server, then this script.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
HOST="${UI_HOST:-127.0.0.1}"
PORT="${UI_PORT:-3000}"
DAGSTER="${DAGSTER_BIN:-$ROOT/.venv/bin/dagster}"
STOP_WAIT="${UI_STOP_WAIT:-20}"   # seconds dagster dev gets to stop its children before they are killed

export DAGSTER_HOME="${DAGSTER_HOME:-$ROOT/.dagster_home}"
mkdir -p "$DAGSTER_HOME"
if ! cmp -s "$ROOT/dagster.yaml" "$DAGSTER_HOME/dagster.yaml"; then
  [ -f "$DAGSTER_HOME/dagster.yaml" ] && cp "$DAGSTER_HOME/dagster.yaml" "$DAGSTER_HOME/dagster.yaml.bak"
  cp "$ROOT/dagster.yaml" "$DAGSTER_HOME/dagster.yaml"
  echo "ui: instance settings copied from dagster.yaml into $DAGSTER_HOME"
fi

# The webserver silently takes another port when the one asked for is busy: refuse instead.
if ! "$ROOT/.venv/bin/python" - "$HOST" "$PORT" <<'EOF'
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    s.bind((sys.argv[1], int(sys.argv[2])))
except OSError as exc:
    sys.exit(f"ui: {sys.argv[1]}:{sys.argv[2]} is not free ({exc.strerror}); set UI_PORT to another port")
finally:
    s.close()
EOF
then
  exit 1
fi

echo "ui: http://$HOST:$PORT  (DAGSTER_HOME=$DAGSTER_HOME, RAW_DIR=${RAW_DIR:-$ROOT/raw})"

# Job control on: the background job gets its own process group, so it does not receive the
# terminal's Ctrl-C directly and does not ignore SIGTERM (a `&` job without `set -m` ignores
# SIGINT/SIGQUIT, and dagster dev then never shuts down its children).
set -m
"$DAGSTER" dev -m pipelines.definitions -h "$HOST" -p "$PORT" &
DEV_PID=$!
set +m

stopping=0
stop() {
  [ "$stopping" = 1 ] && return
  stopping=1
  echo "ui: stopping (pid $DEV_PID)"
  kill -TERM "$DEV_PID" 2>/dev/null || true
  for _ in $(seq $((STOP_WAIT * 5))); do
    kill -0 "$DEV_PID" 2>/dev/null || break
    sleep 0.2
  done
  # whatever is left of the group (webserver, daemon, code server): ask, then insist
  kill -TERM -- "-$DEV_PID" 2>/dev/null || true
  sleep 1
  kill -KILL -- "-$DEV_PID" 2>/dev/null || true
}
trap 'stop; exit 130' INT
trap 'stop; exit 143' TERM
trap 'stop' EXIT

status=0
wait "$DEV_PID" || status=$?
trap - EXIT
stop
exit "$status"
