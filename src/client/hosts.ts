// Host names as papo compares and dials them: one definition of "this machine" (a token may go
// there in plain text, an embedded signal server may be started for it, `papo signal` warns when it
// listens nowhere else) and one way to take an IPv6 literal out of its URL brackets.

/** A URL's hostname as sockets and TLS take it: an IPv6 literal without its brackets ("[::1]" → "::1"). */
export function bareHost(hostname: string): string {
  return hostname.replace(/^\[(.*)\]$/, '$1');
}

/** True for a host on this machine: `localhost`, 127.0.0.0/8, `::1` (bracketed or not). */
export function isLoopbackHost(hostname: string): boolean {
  const host = bareHost(hostname.toLowerCase());
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
