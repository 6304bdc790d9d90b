#!/usr/bin/env bash
# Smoke test of papo's Docker image (and, on request, of the compose bundle with coturn).
# Needs Docker, curl and access to the image registry and the npm registry. From the repo root:
#
#   scripts/docker-smoke.sh                      # build, then check the image
#   PAPO_SMOKE_IMAGE=papo scripts/docker-smoke.sh   # check an image already built (not removed)
#   PAPO_SMOKE_COMPOSE=1 scripts/docker-smoke.sh    # also the bundle: signal + coturn (host network,
#                                                # needs UDP/TCP 3478 and 49160-50120 free)
#
# Checks: --version; the default command is the signal server (/healthz, /metrics, a v1 welcome over
# the published port's network); `docker stop` ends it cleanly (exit 0, sockets closed with 1001, so
# tini passed SIGTERM on); new/invite/status on a volume; `papo mcp` answers initialize on stdio;
# `signal --public <its name on the network>` on a volume: /healthz over https and the HEALTHCHECK
# healthy, the no-TURN warning, the creator's line in `docker logs`, the state 0700/0600, the token
# on no command line, the line run as it is, `join` from stdin, `say` pushed by the other member's
# `papo mcp` as a channel notification, and after `docker stop` (exit 0) and `docker start` the same
# line and that `papo mcp` still reached. With the bundle (`docker compose`, else `docker-compose`):
# coturn starts through docker/coturn-entrypoint.sh with its SQLite file open on the tmpfs, the
# secret in a 0600 file there and on no command line of this host; it accepts a TURN credential
# minted by the signal server and refuses a tampered one, refuses a private peer (403) and a TCP
# relay (442), and keeps a UDP relay over TCP; then the signal service as `signal --public` with
# that coturn as its TURN (PAPO_TURN_URLS/PAPO_TURN_SECRET): its welcome's credential passes the
# same checks. Everything it creates (containers, network, volumes, the image it built, the
# temporary docker/.env) is removed on exit, also on failure. Not run by CI.
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
volumes=()

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
  docker volume rm "$vol" ${volumes[@]+"${volumes[@]}"} >/dev/null 2>&1
  if [ -n "$built_image" ]; then docker image rm "$built_image" >/dev/null 2>&1; fi
  if [ $rc -eq 0 ]; then printf '\nOK: every check held.\n'; else printf '\nFAILED (exit %s).\n' "$rc" >&2; fi
  exit $rc
}
trap cleanup EXIT

image=${PAPO_SMOKE_IMAGE:-}
if [ -z "$image" ]; then
  image="papo:$run_id"
  log "build $image"
  docker build --force-rm -f docker/Dockerfile -t "$image" .
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

log "signal --public in the image (TLS, token, state in /data; no turnserver in the image)"
# The server is reached by its name on the smoke network; the printed line is run as it is by the
# creator in a container of its own (its member name is the user's, "node"), the colleague joins
# with the invite on stdin, and the colleague's `papo mcp` runs through a restart of the server.
pub="$run_id-public"
pvol="$run_id-public-data"
avol="$run_id-ana"
bvol="$run_id-bob"
bmcp="$run_id-bob-mcp"
volumes+=("$pvol" "$avol" "$bvol")
containers+=("$pub" "$bmcp")
docker run -d --name "$pub" --network "$net" -v "$pvol:/data" --health-interval 1s \
  -p 127.0.0.1::7450 -p 127.0.0.1::7450/udp -p 127.0.0.1::3478/udp \
  "$image" signal --public "$pub" >/dev/null
wait_public() { # the first line of /healthz over https is ok, then the printed line is out
  local pport=""
  for _ in $(seq 1 75); do
    pport=$(docker port "$pub" 7450/tcp 2>/dev/null | head -n1 | sed 's/.*://')
    if [ -n "$pport" ] && [ "$(curl -kfsS "https://127.0.0.1:$pport/healthz" 2>/dev/null | head -n1)" = ok ]; then
      echo "$pport"
      return 0
    fi
    sleep 0.2
  done
  die "signal --public did not answer ok over https: $(docker logs "$pub" 2>&1 | tail -n 20)"
}
pport=$(wait_public)
curl -kfsS "https://127.0.0.1:$pport/healthz" | sed 's/^/healthz: /'
if curl -fsS "http://127.0.0.1:$pport/healthz" >/dev/null 2>&1; then die "signal --public answers plain http"; fi
line=""
for _ in $(seq 1 25); do
  line=$(docker logs "$pub" 2>/dev/null | grep "^papo new --signal '" | tail -n1 || true)
  [ -n "$line" ] && break
  sleep 0.2
done
[[ "$line" =~ ^papo\ new\ --signal\ \'wss://$pub:7450/#pin=sha256/[A-Za-z0-9_-]{43}\&token=([A-Za-z0-9_-]{43})\'$ ]] ||
  die "no creator's line on stdout: '$line'"
token=${BASH_REMATCH[1]}
echo "printed: ${line%%token=*}token=<43 characters>'"
publog=$(docker logs "$pub" 2>&1)
grep -q 'WARNING: no TURN server: coturn (turnserver) is not on PATH' <<<"$publog" || die "no warning that TURN is missing"
grep -q 'state: made .* in /data/signal' <<<"$publog" || die "the state was not made in /data/signal"
echo "log: the no-TURN warning, state made in /data/signal"
for _ in $(seq 1 50); do
  [ "$(docker inspect -f '{{.State.Health.Status}}' "$pub")" = healthy ] && break
  sleep 0.2
done
[ "$(docker inspect -f '{{.State.Health.Status}}' "$pub")" = healthy ] || die "the HEALTHCHECK over https did not report healthy"
echo "HEALTHCHECK: healthy (https)"
# The state folder 0700, every file in it 0600, all the node user's.
modes=$(docker exec "$pub" sh -c 'cd /data/signal && stat -c "%a %U %n" . *')
echo "$modes" | sed 's/^/state: /'
echo "$modes" | awk 'NR == 1 && $1 != "700" { bad = 1 } NR > 1 && $1 != "600" { bad = 1 } $2 != "node" { bad = 1 } END { exit bad || NR < 3 }' ||
  die "the state folder is not 0700 with 0600 files of node"
# The token on no command line: not in the container's configuration, in no /proc/*/cmdline of the
# container, nor on this host.
pattern=$(mktemp)
printf '%s\n' "$token" >"$pattern"
if docker inspect "$pub" | grep -q -F -f "$pattern"; then rm -f "$pattern"; die "the token is in docker inspect"; fi
if docker exec "$pub" sh -c 'cat /proc/[0-9]*/cmdline | tr "\0" " "' | grep -q -F -f "$pattern"; then
  rm -f "$pattern"
  die "the token is on a command line in the container"
fi
if ps -eo args | grep -q -F -f "$pattern"; then rm -f "$pattern"; die "the token is on a command line of this host"; fi
rm -f "$pattern"
echo "token: on no command line ($(docker exec "$pub" cat /proc/1/cmdline | tr '\0' ' '))"

# The creator runs the printed line as it is, in a shell; then the invite, and bob joins with it.
made=$(docker run --rm --network "$net" -v "$avol:/data" --entrypoint /bin/sh "$image" -c "$line")
echo "$made" | sed -n 1,3p
invite=$(docker run --rm -v "$avol:/data" "$image" invite | sed -n 's/^  \(papo1[a-z2-7]*\)$/\1/p')
[ -n "$invite" ] || die "invite printed no invite"
joined=$(printf '%s\n' "$invite" | docker run -i --rm --network "$net" -v "$bvol:/data" "$image" join --name bob)
echo "$joined" | grep -q "answers and accepts this room's token" || die "join: $joined"
echo "join: the server answers and accepts the room's token"
# bob's papo mcp, stdin kept open after initialize and initialized: its stdout is the JSON-RPC.
initialized='{"jsonrpc":"2.0","method":"notifications/initialized"}'
docker run -d --name "$bmcp" --network "$net" -v "$bvol:/data" -e INIT="$init" -e INITIALIZED="$initialized" \
  --entrypoint /usr/bin/tini "$image" -- /bin/sh -c \
  '(printf "%s\n%s\n" "$INIT" "$INITIALIZED"; exec sleep 3600) | exec node /app/dist/src/cli/main.js mcp' >/dev/null
say_to_bob() { # text: ana says it; delivered to bob, and bob's papo mcp pushes it to its client
  local out=""
  for _ in $(seq 1 6); do
    out=$(docker run --rm --network "$net" -v "$avol:/data" "$image" say "$1" 2>&1 || true)
    grep -q '^delivered to bob' <<<"$out" && break
    sleep 2
  done
  grep -q '^delivered to bob' <<<"$out" || die "say '$1': $out"
  echo "say: $out"
  for _ in $(seq 1 50); do
    docker logs "$bmcp" 2>/dev/null | grep '"method":"notifications/claude/channel"' | grep -q "\"content\":\"$1\"" && break
    sleep 0.2
  done
  docker logs "$bmcp" 2>/dev/null | grep '"method":"notifications/claude/channel"' | grep "\"content\":\"$1\"" ||
    die "bob's papo mcp pushed no channel notification of '$1': $(docker logs "$bmcp" 2>&1 | tail -n 5)"
}
status=$(docker run --rm --network "$net" -v "$avol:/data" "$image" status --timeout 15 2>&1 || true)
echo "$status"
say_to_bob "hello bob from the creator over wss"

t0=$(date +%s.%N)
docker stop "$pub" >/dev/null
t1=$(date +%s.%N)
code=$(docker inspect -f '{{.State.ExitCode}}' "$pub")
[ "$code" = 0 ] || die "signal --public exited $code on docker stop"
echo "docker stop: exit 0 in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
docker start "$pub" >/dev/null
pport=$(wait_public)
again=""
for _ in $(seq 1 25); do
  again=$(docker logs "$pub" 2>/dev/null | grep -c "^papo new --signal '" || true)
  [ "$again" = 2 ] && break
  sleep 0.2
done
[ "$(docker logs "$pub" 2>/dev/null | grep "^papo new --signal '" | tail -n1)" = "$line" ] ||
  die "the line after the restart differs"
[ "$(docker logs "$pub" 2>&1 | grep -c 'state: made')" = 1 ] || die "the state was made again at the restart"
echo "after docker start: the same line (same pin, same token), state kept"
say_to_bob "still here after the restart"

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

  log "compose bundle with signal --public, the bundle's coturn as its TURN (PAPO_TURN_URLS/SECRET)"
  # The command docker/compose.yaml documents for --public, and the signal port's UDP published
  # for its second STUN destination. --public ignores PAPO_SIGNAL_TOKEN: it keeps its own token.
  printf 'services:\n  signal:\n    image: %s\n    command: ["signal", "--public", "127.0.0.1"]\n    ports: ["127.0.0.1::7450/udp"]\n' \
    "$image" >docker/.smoke-override.yaml
  "${compose[@]}" up -d --no-build signal
  csig=$("${compose[@]}" ps -q signal)
  cport=""
  for _ in $(seq 1 75); do
    cport=$("${compose[@]}" port signal 7450 2>/dev/null | sed 's/.*://' || true)
    if [ -n "$cport" ] && [ "$(curl -kfsS "https://127.0.0.1:$cport/healthz" 2>/dev/null | head -n1)" = ok ]; then break; fi
    sleep 0.2
  done
  health=$(curl -kfsS "https://127.0.0.1:$cport/healthz") || die "compose signal --public: no https /healthz"
  echo "$health" | sed 's/^/healthz: /'
  grep -q '^turn: the TURN servers of PAPO_TURN_URLS$' <<<"$health" || die "healthz does not name PAPO_TURN_URLS"
  cline=$(docker logs "$csig" 2>/dev/null | grep "^papo new --signal 'wss://127.0.0.1:7450/#pin=" | tail -n1 || true)
  [[ "$cline" =~ token=([A-Za-z0-9_-]{43})\'$ ]] || die "no creator's line in the logs: $(docker logs "$csig" 2>&1 | tail -n 5)"
  ctoken=${BASH_REMATCH[1]}
  if docker logs "$csig" 2>&1 | grep -q 'WARNING: no TURN server'; then die "it warns of no TURN with PAPO_TURN_URLS set"; fi
  echo "printed: ${cline%%token=*}token=<43 characters>'; no warning of a missing TURN"
  PROBE_TOKEN=$ctoken probe --network host -e PROBE_TOKEN "$image" /probe.cjs turn "wss://127.0.0.1:$cport/v1/ws" 3478
  pattern=$(mktemp)
  printf '%s\n%s\n' "$secret" "$ctoken" >"$pattern"
  if docker exec "$csig" sh -c 'cat /proc/[0-9]*/cmdline | tr "\0" " "' | grep -q -F -f "$pattern" ||
    ps -eo args | grep -q -F -f "$pattern"; then
    rm -f "$pattern"
    die "the TURN secret or the token is on a command line"
  fi
  rm -f "$pattern"
  echo "the TURN secret and the token on no command line (in the container and on this host)"
  "${compose[@]}" down -v
  compose=()
fi
