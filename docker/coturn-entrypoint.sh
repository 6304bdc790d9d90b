#!/bin/sh
# coturn's start in the papo bundle (docker/compose.yaml mounts this file and makes it the coturn
# service's entrypoint, in place of the image's, which runs its arguments through `eval`).
#
# It copies the read-only turnserver.conf to a file of its own on the tmpfs (mode 0600) and appends
# what comes from the environment (docker/.env):
#   PAPO_TURN_SECRET        static-auth-secret (required; printable ASCII, no blank at either end)
#   PAPO_TURN_REALM         realm (default: papo)
#   PAPO_TURN_DENIED_PEERS  more peers the relay must refuse, comma or space separated: this host's
#                           own public addresses, an office's range (an address or first-last)
#   PAPO_TURN_ALLOWED_PEERS peers the relay may reach although the file denies them (coturn lets an
#                           allowed range win): a TURN server inside a private network, a lab
#   PAPO_TURN_EXTERNAL_IP   external-ip: the public address behind 1:1 NAT (one address: coturn
#                           allows peers on the private half of `public/private`, the host itself)
#   PAPO_TURN_RELAY_IP      relay-ip: the address relays are opened on (the private one behind NAT)
# then replaces itself with `turnserver -c <that file> "$@"`. The secret is never on a command line,
# and is removed from the environment before coturn starts: `ps` and /proc/<pid>/environ of the
# coturn process do not show it. Values are written as they are, never evaluated by a shell.
#
#   PAPO_COTURN_CONF  the configuration to start from (default /etc/coturn/turnserver.conf)
#   PAPO_COTURN_DIR   where the copy, coturn's SQLite file and pid file go (default /var/lib/coturn,
#                     a tmpfs owned by coturn's user in the bundle)
set -eu
# No globbing of values, and byte-wise character classes whatever the locale.
set -f
LC_ALL=C
export LC_ALL

conf_in=${PAPO_COTURN_CONF:-/etc/coturn/turnserver.conf}
dir=${PAPO_COTURN_DIR:-/var/lib/coturn}
out=$dir/papo-turnserver.conf

die() {
  printf 'papo coturn: %s\n' "$*" >&2
  exit 64
}

# One line of printable ASCII without a blank at either end: coturn reads a value up to the end of
# its line and drops trailing blanks, the signal server trims both ends; anything else would let
# the two disagree, or let a value add lines of its own to the configuration.
printable() { # value -> 0 when acceptable
  case $1 in
    '' | ' '* | *' ') return 1 ;;
    *[!\ -~]*) return 1 ;;
  esac
  return 0
}

secret=${PAPO_TURN_SECRET-}
[ -n "$secret" ] || die "PAPO_TURN_SECRET is not set (docker/.env): coturn would accept no credential"
[ "$secret" != change-me-to-a-long-random-value ] || die "PAPO_TURN_SECRET is still the example's (docker/.env): make one with: openssl rand -hex 32"
[ ${#secret} -ge 16 ] || die "PAPO_TURN_SECRET is shorter than 16 characters: make one with: openssl rand -hex 32"
printable "$secret" || die "PAPO_TURN_SECRET must be printable ASCII without blanks at either end (make one with: openssl rand -hex 32)"
realm=${PAPO_TURN_REALM:-papo}
printable "$realm" || die "PAPO_TURN_REALM must be printable ASCII without blanks at either end"

# An IPv4 address (four dotted numbers) or an IPv6 one (hex, colons, maybe a dotted tail); coturn
# itself refuses what is not an address. A peer is an address or a first-last range.
ip_ok() {
  case $1 in
    *:*:*)
      case $1 in *[!0-9A-Fa-f:.]*) return 1 ;; esac
      return 0
      ;;
    *.*.*.*)
      case $1 in *[!0-9.]* | *.*.*.*.* | *..* | .* | *.) return 1 ;; esac
      return 0
      ;;
  esac
  return 1
}
peer_ok() {
  case $1 in
    *-*-*) return 1 ;;
    *-*) ip_ok "${1%%-*}" && ip_ok "${1#*-}" ;;
    *) ip_ok "$1" ;;
  esac
}

denied=$(printf '%s' "${PAPO_TURN_DENIED_PEERS-}" | tr ',' ' ')
for peer in $denied; do
  peer_ok "$peer" || die "PAPO_TURN_DENIED_PEERS: \"$peer\" is not an address or a first-last range"
done
allowed=$(printf '%s' "${PAPO_TURN_ALLOWED_PEERS-}" | tr ',' ' ')
for peer in $allowed; do
  peer_ok "$peer" || die "PAPO_TURN_ALLOWED_PEERS: \"$peer\" is not an address or a first-last range"
done
external=${PAPO_TURN_EXTERNAL_IP-}
case $external in
  */*) die "PAPO_TURN_EXTERNAL_IP takes the public address only; put the private one in PAPO_TURN_RELAY_IP (coturn lets relays reach the private half of public/private, that is this host)" ;;
esac
[ -z "$external" ] || { case $external in *-*) false ;; esac && ip_ok "$external"; } ||
  die "PAPO_TURN_EXTERNAL_IP: \"$external\" is not an address"
relay_ip=${PAPO_TURN_RELAY_IP-}
[ -z "$relay_ip" ] || { case $relay_ip in *-*) false ;; esac && ip_ok "$relay_ip"; } ||
  die "PAPO_TURN_RELAY_IP: \"$relay_ip\" is not an address"

[ -r "$conf_in" ] || die "cannot read $conf_in"
[ -d "$dir" ] && [ -w "$dir" ] || die "$dir is not a writable folder (the bundle mounts a tmpfs there for coturn's user)"

umask 077
rm -f "$out"
{
  cat "$conf_in"
  printf '\n# Added at start by coturn-entrypoint.sh from the environment.\n'
  printf '%s\n' "userdb=$dir/turndb" "pidfile=$dir/turnserver.pid" "realm=$realm"
  printf 'static-auth-secret=%s\n' "$secret"
  for peer in $denied; do printf 'denied-peer-ip=%s\n' "$peer"; done
  for peer in $allowed; do printf 'allowed-peer-ip=%s\n' "$peer"; done
  if [ -n "$external" ]; then printf 'external-ip=%s\n' "$external"; fi
  if [ -n "$relay_ip" ]; then printf 'relay-ip=%s\n' "$relay_ip"; fi
} >"$out"
chmod 600 "$out"

unset PAPO_TURN_SECRET secret
exec turnserver -c "$out" "$@"
