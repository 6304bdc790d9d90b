// The core of the scripted stand-ins for model APIs (tests/claude-code/fake-anthropic.ts,
// tests/clients/fake-openai.ts, fake-gemini.ts, fake-chat-completions.ts), so that a real agent CLI
// runs against a model whose every answer the test wrote. Each fake keeps only its API's routes and
// encoding (server-sent events...); this module holds what they share:
//
//   - the script: a list of turns (or functions of the request body that make one); each main-loop
//     request takes the next, and when the list is used up the model says FALLBACK_TEXT;
//   - the record of every request (method, path, query, headers, parsed body, kind, turn index,
//     time), turnRequests(), and waitForRequest(pred, timeoutMs, what);
//   - notFound: a 404, recorded as kind 'unknown', for any endpoint the fake's routes do not take,
//     so that a new endpoint shows in the log;
//   - an HTTP server on 127.0.0.1, on a port of its own, and its close.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// biome-ignore lint/suspicious/noExplicitAny: JSON from the agent CLIs, inspected by the tests.
export type Json = any;

export const FALLBACK_TEXT = 'Done.';
export const SIDE_TEXT = 'papo test';

/** A turn, or a function of the request that makes it (to answer what the conversation holds). */
export type Scripted<T> = T | ((body: Json) => T);

export interface ModelRequest<K extends string> {
  method: string;
  /** The path without the query. */
  path: string;
  /** What followed `?` in the URL ('' when nothing). */
  query: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body, or the raw text when it was not JSON. */
  body: Json;
  /** Which kind of answer it got. */
  kind: K;
  /** For kind 'turn': the index of the scripted turn used, or -1 for the fallback. */
  turn?: number;
  at: number;
}

export interface ScriptedModel<T, R> {
  /** http://127.0.0.1:<port> followed by the fake's base path (e.g. /v1). */
  url: string;
  readonly requests: R[];
  /** The main-loop requests, in order. */
  turnRequests(): R[];
  /** Appends turns to the script. */
  script(...turns: Scripted<T>[]): void;
  /** Resolves with the first request (recorded or future) matching `pred`. */
  waitForRequest(pred: (r: R) => boolean, timeoutMs: number, what?: string): Promise<R>;
  close(): Promise<void>;
}

/** One request as a fake's routes see it. */
export interface Exchange<T, K extends string> {
  req: IncomingMessage;
  res: ServerResponse;
  method: string;
  path: string;
  query: string;
  /** The body as it came. */
  raw: string;
  body: Json;
  /** Records the request with its kind. */
  record(kind: K): void;
  /**
   * The turn that answers the request: for a main-loop request (`main`), recorded as kind 'turn',
   * the next scripted one or the fallback; for any other, recorded as 'side', `side()` (SIDE_TEXT
   * unless given), which uses no turn.
   */
  turn(main: boolean, side?: () => T): T;
  /** A fresh id (1, 2...) for the answer's objects. */
  newId(): string;
  json(status: number, value: Json): void;
  /** Records the request as kind 'unknown' and answers 404 with `error` (in the API's error shape). */
  notFound(error: Json): void;
}

export interface ScriptedModelOptions<T, K extends string> {
  /** The API's name, for the timeout message ("Anthropic API"). */
  api: string;
  /** Appended to http://127.0.0.1:<port> in `url` ('' or '/v1'). */
  basePath?: string;
  turns: Scripted<T>[];
  /** Answers the request; what it does not know it answers with `ex.notFound(...)`. */
  route(ex: Exchange<T, K | 'turn' | 'side' | 'unknown'>): void;
}

/** Is this a main-loop request (the agent's own turn)? Side requests offer no tools. */
export function isMainLoop(body: Json): boolean {
  return Array.isArray(body?.tools) && body.tools.length > 0;
}

function sendJson(res: ServerResponse, status: number, value: Json): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export async function startScriptedModel<T extends { text?: string }, K extends string>(
  opts: ScriptedModelOptions<T, K>,
): Promise<ScriptedModel<T, ModelRequest<K | 'turn' | 'side' | 'unknown'>>> {
  type R = ModelRequest<K | 'turn' | 'side' | 'unknown'>;
  const script: Scripted<T>[] = [...opts.turns];
  let nextTurn = 0;
  let ids = 0;
  const newId = () => `${++ids}`;
  const requests: R[] = [];
  const waiters: { pred: (r: R) => boolean; resolve: (r: R) => void }[] = [];

  const record = (r: R): void => {
    requests.push(r);
    for (const w of [...waiters]) {
      if (w.pred(r)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(r);
      }
    }
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: Json = raw;
      try {
        body = raw === '' ? null : JSON.parse(raw);
      } catch {}
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const path = q === -1 ? url : url.slice(0, q);
      const query = q === -1 ? '' : url.slice(q + 1);
      const method = req.method ?? '';
      const base = { method, path, query, headers: req.headers, body, at: Date.now() };
      const ex: Exchange<T, K | 'turn' | 'side' | 'unknown'> = {
        req,
        res,
        method,
        path,
        query,
        raw,
        body,
        record: (kind) => record({ ...base, kind }),
        turn: (main, side) => {
          if (!main) {
            record({ ...base, kind: 'side' });
            return side ? side() : ({ text: SIDE_TEXT } as T);
          }
          const index = nextTurn < script.length ? nextTurn++ : -1;
          record({ ...base, kind: 'turn', turn: index });
          const scripted = index === -1 ? ({ text: FALLBACK_TEXT } as T) : (script[index] as Scripted<T>);
          return typeof scripted === 'function' ? (scripted as (body: Json) => T)(body) : scripted;
        },
        newId,
        json: (status, value) => sendJson(res, status, value),
        notFound: (error) => {
          record({ ...base, kind: 'unknown' });
          sendJson(res, 404, error);
        },
      };
      opts.route(ex);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}${opts.basePath ?? ''}`,
    requests,
    turnRequests: () => requests.filter((r) => r.kind === 'turn'),
    script: (...more) => {
      script.push(...more);
    },
    waitForRequest(pred, timeoutMs, what = 'request') {
      const seen = requests.find(pred);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const waiter = {
          pred,
          resolve: (r: R) => {
            clearTimeout(timer);
            resolve(r);
          },
        };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          const seenPaths = requests.map((r) => `${r.kind} ${r.method} ${r.path}`).join(', ');
          reject(new Error(`fake ${opts.api}: timed out waiting for ${what}; got: ${seenPaths}`));
        }, timeoutMs);
        waiters.push(waiter);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
