// A TCP port free on 127.0.0.1 right now: the OS picks one for a throw-away listener, which is
// closed before the port is handed out (so another process could take it first — callers that
// start servers retry or use port 0 where they can).
import { createServer } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
