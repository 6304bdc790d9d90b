// A probe the NAT lab runs inside its namespaces (the test process itself stays in the root
// namespace, so anything that must send from "inside" is a child process). One JSON line of
// result on stdout; long-running modes print "ready" first.
//
//   node probe.js echo <port>...                  UDP echo: answers each datagram with "ip:port" it came from
//   node probe.js mapping <host> <port>...        one UDP socket, one datagram to each port: the mapped addresses
//   node probe.js tcp-echo <port>                 TCP: answers the first line with "ip:port" of the peer
//   node probe.js tcp-reach <host> <port>         TCP connect, read the answer
//   node probe.js welcome <ws url>                the first message a signal server sends a plain client
//   node probe.js stun-binding <host> <port> <udp|tcp>
//   node probe.js turn-permissions <json>         {server, transport, username, password, peers[]} -> {peer: "ok"|code}
//   node probe.js turn-peer <json>                {server, transport, username, password, name}: allocate, print the
//                                                 relayed address, read the other's from stdin, permit it, send
//                                                 "<name>" every 200 ms, print what arrives
import { createSocket } from 'node:dgram';
import { connect, createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { type Address, StunClient, StunError } from './stun.js';

const [mode, ...rest] = process.argv.slice(2);

function out(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

async function main(): Promise<void> {
  switch (mode) {
    case 'echo': {
      for (const port of rest.map(Number)) {
        const s = createSocket('udp4');
        s.on('message', (_msg, rinfo) => s.send(`${rinfo.address}:${rinfo.port}`, rinfo.port, rinfo.address));
        await new Promise<void>((resolve) => s.bind(port, () => resolve()));
      }
      out('ready');
      return;
    }
    case 'mapping': {
      const [host, ...ports] = rest;
      const s = createSocket('udp4');
      await new Promise<void>((resolve) => s.bind(0, () => resolve()));
      const seen: (string | null)[] = [];
      for (const port of ports.map(Number)) {
        seen.push(
          await new Promise<string | null>((resolve) => {
            const onMessage = (msg: Buffer) => {
              clearInterval(resend);
              clearTimeout(timer);
              s.off('message', onMessage);
              resolve(msg.toString());
            };
            const send = () => s.send('probe', port, host);
            const resend = setInterval(send, 200);
            const timer = setTimeout(() => {
              clearInterval(resend);
              s.off('message', onMessage);
              resolve(null);
            }, 2000);
            s.on('message', onMessage);
            send();
          }),
        );
      }
      s.close();
      out(seen);
      return;
    }
    case 'punch': {
      // UDP hole punching: bind `port`, send to host:port every 100 ms for a while, report whether
      // the other side's datagrams arrived (both sides run this at the same time).
      const [host, port, ms] = rest;
      const s = createSocket('udp4');
      await new Promise<void>((resolve) => s.bind(Number(port), () => resolve()));
      let heard: string | null = null;
      s.on('message', (msg, rinfo) => {
        heard ??= `${rinfo.address}:${rinfo.port} ${msg.toString()}`;
      });
      const timer = setInterval(() => s.send('punch', Number(port), host), 100);
      await new Promise((resolve) => setTimeout(resolve, Number(ms ?? 2000)));
      clearInterval(timer);
      s.close();
      out(heard);
      return;
    }
    case 'tcp-echo': {
      const server = createServer((c) => {
        c.on('error', () => {});
        c.end(`${c.remoteAddress}:${c.remotePort}\n`);
      });
      await new Promise<void>((resolve) => server.listen(Number(rest[0]), '0.0.0.0', () => resolve()));
      out('ready');
      return;
    }
    case 'tcp-reach': {
      const [host, port] = rest;
      const answer = await new Promise<string | null>((resolve) => {
        const c = connect(Number(port), host);
        let text = '';
        const timer = setTimeout(() => {
          c.destroy();
          resolve(null);
        }, 2000);
        c.on('data', (d) => {
          text += d.toString();
        });
        c.on('end', () => {
          clearTimeout(timer);
          resolve(text.trim());
        });
        c.on('error', () => {
          clearTimeout(timer);
          resolve(null);
        });
      });
      out(answer);
      return;
    }
    case 'welcome': {
      // The first message a signal server sends to a plain WebSocket client (welcome or error).
      const { WebSocket } = await import('ws');
      const [url] = rest;
      const first = await new Promise<unknown>((resolve) => {
        const ws = new WebSocket(url ?? '');
        const timer = setTimeout(() => resolve(null), 5000);
        ws.on('error', () => {});
        ws.once('message', (d) => {
          clearTimeout(timer);
          resolve(JSON.parse(String(d)));
          ws.terminate();
        });
        ws.once('close', () => {
          clearTimeout(timer);
          resolve(null);
        });
      });
      out(first);
      return;
    }
    case 'stun-binding': {
      const [host, port, transport] = rest;
      const server = { address: host ?? '', port: Number(port) };
      const client = transport === 'tcp' ? await StunClient.tcp(server) : await StunClient.udp(server);
      try {
        out(await client.binding());
      } finally {
        client.close();
      }
      return;
    }
    case 'turn-permissions': {
      const o = JSON.parse(rest[0] ?? '{}') as {
        server: Address;
        transport: 'udp' | 'tcp';
        username: string;
        password: string;
        peers: string[];
      };
      const client = o.transport === 'tcp' ? await StunClient.tcp(o.server) : await StunClient.udp(o.server);
      try {
        const alloc = await client.allocate(o.username, o.password);
        const result: Record<string, string | number> = {};
        for (const peer of o.peers) {
          try {
            await client.createPermission(peer);
            result[peer] = 'ok';
          } catch (err) {
            result[peer] = err instanceof StunError ? err.code : String(err);
          }
        }
        out({ relayed: alloc.relayed, permissions: result });
      } finally {
        client.close();
      }
      return;
    }
    case 'turn-peer': {
      const o = JSON.parse(rest[0] ?? '{}') as {
        server: Address;
        transport: 'udp' | 'tcp';
        username: string;
        password: string;
        name: string;
      };
      const client = o.transport === 'tcp' ? await StunClient.tcp(o.server) : await StunClient.udp(o.server);
      const alloc = await client.allocate(o.username, o.password);
      out({ relayed: alloc.relayed, mapped: alloc.mapped });
      client.onData((from, data) => out({ from, data: data.toString() }));
      const lines = createInterface({ input: process.stdin });
      lines.on('line', async (line) => {
        const peer = JSON.parse(line) as Address;
        try {
          await client.createPermission(peer.address);
          out({ permitted: peer.address });
        } catch (err) {
          out({ refused: peer.address, code: err instanceof StunError ? err.code : String(err) });
          return;
        }
        setInterval(() => client.sendTo(peer, Buffer.from(o.name)), 200);
      });
      return;
    }
    default:
      throw new Error(`unknown probe mode ${mode}`);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(2);
});
