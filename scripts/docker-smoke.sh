#!/usr/bin/env bash
# Smoke test of papo's Docker image (and, on request, of the compose bundle with coturn).
# Needs Docker, curl and access to the image registry and the npm registry. From the repo root:
#
#   scripts/docker-smoke.sh                      # build, then check the image
#   PAPO_SMOKE_IMAGE=papo scripts/docker-smoke.sh   # check an image already built (not removed)
#   PAPO_SMOKE_COMPOSE=1 scripts/docker-smoke.sh    # also the bundle: signal + coturn (host network,
#                                                # needs UDP/TCP 3478 and 49160-49360 free)
#
# Checks: --version; the default command is the signal server (/healthz, /metrics, a v1 welcome
# over the published port's network); `docker stop` ends it cleanly (exit 0, sockets closed with
# 1001, so tini passed SIGTERM on); new/invite/status on a volume; `papo mcp` answers initialize on
# stdio. With the bundle (`docker compose`, else `docker-compose`): coturn starts through
# docker/coturn-entrypoint.sh with its SQLite file open on the tmpfs, the secret in a 0600 file
# there and on no command line of this host; it accepts a TURN credential minted by the signal
# server and refuses a tampered one, refuses a private peer (403) and a TCP relay (442), and keeps
# a UDP relay over TCP. Everything it creates (containers, network, volumes, the image it built,
# the temporary docker/.env) is removed on exit, also on failure. Not run by CI.
set -euo pipefail

cd "$(dirname "$0")/.."
repo=$PWD
run_id="papo-smoke-$$"
net="$run_id-net"
vol="$run_id-data"
built_image=""
compose_env_created=""
compose=()
containers=()

log() { printf '\n== %s\n' "$*"; }
die() {
  printf 'FAIL: %s\n' "$*" >&2
  exit 1
}

cleanup() {
  local rc=$?
  set +e
  if [ ${#compose[@]} -gt 0 ]; then "${compose[@]}" down -v --remove-orphans >/dev/null 2>&1; fi
  if [ -n "$compose_env_created" ]; then rm -f "$compose_env_created" "$repo/docker/.smoke-override.yaml"; fi
  for c in ${containers[@]+"${containers[@]}"}; do docker rm -fv "$c" >/dev/null 2>&1; done
  docker network rm "$net" >/dev/null 2>&1
  docker volume rm "$vol" >/dev/null 2>&1
  if [ -n "$built_image" ]; then docker image rm "$built_image" >/dev/null 2>&1; fi
  if [ $rc -eq 0 ]; then printf '\nOK: every check held.\n'; else printf '\nFAILED (exit %s).\n' "$rc" >&2; fi
  exit $rc
}
trap cleanup EXIT

image=${PAPO_SMOKE_IMAGE:-}
if [ -z "$image" ]; then
  image="papo:$run_id"
  log "build $image"
  docker build -f docker/Dockerfile -t "$image" .
  built_image=$image
fi

# The probe runs in a container of the image itself (it has node and ws), mounted read-only.
probe() {
  docker run --rm -e NODE_PATH=/app/node_modules \
    -v "$repo/scripts/docker-smoke-probe.cjs:/probe.cjs:ro" --entrypoint node "$@"
}

wait_healthz() { # url
  for _ in $(seq 1 50); do
    if [ "$(curl -fsS "$1" 2>/dev/null)" = ok ]; then return 0; fi
    sleep 0.2
  done
  die "$1 did not answer ok"
}

log "papo --version"
version=$(docker run --rm "$image" --version)
echo "$version"
[ -n "$version" ] || die "no version printed"

log "signal server (the default command)"
docker network create "$net" >/dev/null
sig="$run_id-signal"
containers+=("$sig")
docker run -d --name "$sig" --network "$net" -p 127.0.0.1::7450 "$image" >/dev/null
port=$(docker port "$sig" 7450/tcp | head -n1 | sed 's/.*://')
wait_healthz "http://127.0.0.1:$port/healthz"
echo "healthz: ok (published on 127.0.0.1:$port)"
# /metrics: on the signal port, or (ADR 0073) only on the container's own loopback.
if curl -fsS "http://127.0.0.1:$port/metrics" 2>/dev/null | grep -q '^papo_signal_connections '; then
  echo "metrics: ok (on the signal port)"
else
  docker exec "$sig" node -e "fetch('http://127.0.0.1:9464/metrics').then((r) => r.text()).then((t) => process.exit(/^papo_signal_connections /m.test(t) ? 0 : 1), () => process.exit(1))" ||
    die "no papo_signal_connections on /metrics, neither on the signal port nor on 127.0.0.1:9464 in the container"
  echo "metrics: ok (127.0.0.1:9464 inside the container only; not on the signal port)"
fi

log "welcome over WebSocket, then docker stop"
prb="$run_id-probe"
containers+=("$prb")
docker run -d --name "$prb" --network "$net" -e NODE_PATH=/app/node_modules \
  -v "$repo/scripts/docker-smoke-probe.cjs:/probe.cjs:ro" --entrypoint node "$image" \
  /probe.cjs welcome "ws://$sig:7450/v1/ws" >/dev/null
for _ in $(seq 1 50); do
  docker logs "$prb" 2>&1 | grep -q '^joined' && break
  sleep 0.2
done
docker logs "$prb" 2>&1 | grep -q '^joined' || die "probe got no welcome: $(docker logs "$prb" 2>&1)"
docker stop "$sig" >/dev/null
[ "$(docker wait "$prb")" = 0 ] || die "probe: $(docker logs "$prb" 2>&1)"
docker logs "$prb"
code=$(docker inspect -f '{{.State.ExitCode}}' "$sig")
[ "$code" = 0 ] || die "signal container exited $code (137: SIGTERM did not reach node)"
docker logs "$sig" 2>&1 | grep -q 'stopped' || die "signal server did not log its stop"
echo "docker stop: exit 0, sockets closed with 1001"

log "new / invite / status with a volume"
docker start "$sig" >/dev/null
wait_healthz "http://127.0.0.1:$(docker port "$sig" 7450/tcp | head -n1 | sed 's/.*://')/healthz"
docker run --rm -v "$vol:/data" "$image" new --name smoke --about docker-smoke --signal "ws://$sig:7450" >/dev/null
invite=$(docker run --rm -v "$vol:/data" "$image" invite)
echo "$invite" | grep -q 'papo1' || die "invite printed no invite: $invite"
echo "invite: ok"
# Alone in the room, status exits 1 saying nobody is known yet: what matters is that it reached the
# signal server and read the profile.
status=$(docker run --rm --network "$net" -v "$vol:/data" "$image" status --timeout 3 2>&1 || true)
echo "$status"
echo "$status" | grep -q 'you are "smoke"' || die "status did not read the profile"

log "papo mcp over stdio"
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"smoke","version":"0"}}}'
# stdin ends after the request: the server answers, then exits (no -t: a TTY would garble JSON-RPC).
answer=$(printf '%s\n' "$init" | docker run -i --rm --network "$net" -v "$vol:/data" "$image" mcp)
answer=${answer%%$'\n'*}
echo "${answer:0:160}..."
echo "$answer" | grep -q '"serverInfo":{"name":"papo"' || die "mcp did not answer initialize"

if [ "${PAPO_SMOKE_COMPOSE:-}" = 1 ]; then
  log "compose bundle: signal + coturn"
  [ ! -e docker/.env ] || die "docker/.env exists; this check writes its own (move yours aside)"
  if docker compose version >/dev/null 2>&1; then compose=(docker compose); else compose=(docker-compose); fi
  echo "with: $("${compose[@]}" version 2>/dev/null | head -n1)"
  compose_env_created="$repo/docker/.env"
  secret=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
  sed -e "s/^PAPO_TURN_SECRET=.*/PAPO_TURN_SECRET=$secret/" \
    -e 's/turn\.example\.org/127.0.0.1/g' -e 's/^PAPO_SIGNAL_PUBLISH=.*/PAPO_SIGNAL_PUBLISH=127.0.0.1:/' \
    docker/.env.example >docker/.env
  printf 'services:\n  signal:\n    image: %s\n' "$image" >docker/.smoke-override.yaml
  compose+=(-p "$run_id" -f docker/compose.yaml -f docker/.smoke-override.yaml)
  "${compose[@]}" up -d --no-build
  cport=$("${compose[@]}" port signal 7450 | sed 's/.*://')
  wait_healthz "http://127.0.0.1:$cport/healthz"
  probe --network host "$image" /probe.cjs turn "ws://127.0.0.1:$cport/v1/ws" 3478

  cot=$("${compose[@]}" ps -q coturn)
  docker top "$cot" -o pid,user,args
  cotlog=$(docker logs "$cot" 2>&1)
  if grep -q 'Cannot open SQLite' <<<"$cotlog"; then die "coturn could not open its SQLite file"; fi
  grep -q 'SQLite DB connection success' <<<"$cotlog" || die "coturn did not say its SQLite file opened"
  grep -q 'no-tcp-relay' <<<"$cotlog" || die "coturn did not take no-tcp-relay"
  echo "coturn: SQLite file open on the tmpfs, TCP relays off"
  mode=$(docker exec "$cot" stat -c '%a %u' /var/lib/coturn/papo-turnserver.conf)
  [ "$mode" = "600 65534" ] || die "the configuration with the secret is '$mode', not '600 65534'"
  # The secret on no command line of this host (grep reads it from a file, not from its arguments).
  pattern=$(mktemp)
  printf '%s\n' "$secret" >"$pattern"
  if ps -eo args | grep -q -F -f "$pattern"; then
    rm -f "$pattern"
    die "the TURN secret is on a command line"
  fi
  rm -f "$pattern"
  echo "coturn: the secret in a 0600 file of coturn's user, on no command line"
  "${compose[@]}" down -v
  compose=()
fi
