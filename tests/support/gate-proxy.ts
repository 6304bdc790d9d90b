// An HTTP(S) proxy for the real-client tests that lets through only the addresses it is given (the
// fake model API) and refuses everything else, recording where the client tried to go. Some clients
// send even 127.0.0.1 through their proxy (Qwen Code 0.15.10 gives the OpenAI SDK an undici
// ProxyAgent built from HTTPS_PROXY, which does not read NO_PROXY), so refusing all would also
// refuse the fake. tests/support/client-run.ts (clientSandbox) starts one for every client.
import { createServer, request } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import type { Hooks } from './client-run.js';

export interface GateProxy {
  /** http://127.0.0.1:<port>: HTTPS_PROXY and HTTP_PROXY of the client. */
  url: string;
  /** Refused attempts, as "CONNECT host:port" or "GET http://...". */
  refused: string[];
  /** Let-through attempts, the same way. */
  passed: string[];
}

/** A proxy letting through only `allowed` (host:port, e.g. "127.0.0.1:41234"), stopped after `t`. */
export async function gateProxy(t: Hooks, allowed: string[]): Promise<GateProxy> {
  const refused: string[] = [];
  const passed: string[] = [];
  const tunnels = new Set<Socket>();
  const server = createServer((req, res) => {
    // A plain-HTTP request through the proxy carries an absolute URL.
    let target: URL | null = null;
    try {
      target = new URL(req.url ?? '');
    } catch {}
    const what = `${req.method} ${req.url}`;
    if (target === null || !allowed.includes(target.host)) {
      refused.push(what);
      res.writeHead(403);
      res.end();
      return;
    }
    passed.push(what);
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: `${target.pathname}${target.search}`,
        headers: req.headers,
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('connect', (req, socket, head) => {
    const what = `CONNECT ${req.url}`;
    socket.on('error', () => {});
    if (!allowed.includes(req.url ?? '')) {
      refused.push(what);
      socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    passed.push(what);
    const [host, port] = (req.url ?? '').split(':');
    tunnels.add(socket as Socket);
    const upstream = connect(Number(port), host ?? '127.0.0.1', () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    tunnels.add(upstream);
    upstream.on('error', () => socket.destroy());
    socket.on('close', () => upstream.destroy());
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        for (const s of tunnels) s.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, refused, passed };
}
