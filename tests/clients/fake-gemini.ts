// A scripted stand-in for the Gemini API (generativelanguage.googleapis.com, v1beta), so that a real
// Gemini CLI runs against a model whose every answer the test wrote. Gemini CLI is pointed at it with
// GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:<port>, any GEMINI_API_KEY, and security.auth.selectedType
// "gemini-api-key" in its settings (helpers/gemini.ts).
//
// What Gemini CLI 0.61.0 sends (measured): the agent's own turns as
// POST /v1beta/models/<model>:streamGenerateContent?alt=sse with `contents`, `systemInstruction`,
// `tools` ([{functionDeclarations}]) and `generationConfig`; side requests (the model router's
// classifier, a session summary...) as POST /v1beta/models/<model>:generateContent, without tools.
// A model's tool call is a `functionCall` part ({name, args, id}); Gemini CLI sends the result back
// in the next request as a `functionResponse` part ({id, name, response}) of a user turn.
//
// Each main-loop request (one that offers function declarations) takes the next scripted turn,
// answered as server-sent events (`data: <GenerateContentResponse>`); when the list is used up, the
// model says FALLBACK_TEXT and stops. Side requests get SIDE_TEXT, or JSON fitting the schema they
// ask for (the router's classifier retries three times, then ends the run, on anything else), and
// do not use a turn.
// countTokens gets a rough count. Every request is recorded with its body; anything else is answered
// 404 and recorded too, so a new endpoint shows in the log.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// biome-ignore lint/suspicious/noExplicitAny: JSON from Gemini CLI, inspected by the tests.
export type Json = any;

export interface FunctionCall {
  name: string;
  args: Json;
  /** The call's id; one is made up when absent. */
  id?: string;
}

/** One answer of the model: some text, then function calls. */
export interface Turn {
  text?: string;
  calls?: FunctionCall[];
}

/** A turn, or a function of the request that makes it (to answer what the conversation holds). */
export type ScriptedTurn = Turn | ((body: Json) => Turn);

export interface RecordedRequest {
  method: string;
  /** The path without the query (/v1beta/models/gemini-x:streamGenerateContent). */
  path: string;
  query: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body, or the raw text when it was not JSON. */
  body: Json;
  kind: 'turn' | 'side' | 'count_tokens' | 'unknown';
  /** For kind 'turn': the index of the scripted turn used, or -1 for the fallback. */
  turn?: number;
  at: number;
}

export interface FakeGemini {
  /** http://127.0.0.1:<port> — Gemini CLI's GOOGLE_GEMINI_BASE_URL. */
  url: string;
  readonly requests: RecordedRequest[];
  /** The main-loop requests, in order. */
  turnRequests(): RecordedRequest[];
  /** Appends turns to the script. */
  script(...turns: ScriptedTurn[]): void;
  /** Resolves with the first request (recorded or future) matching `pred`. */
  waitForRequest(
    pred: (r: RecordedRequest) => boolean,
    timeoutMs: number,
    what?: string,
  ): Promise<RecordedRequest>;
  close(): Promise<void>;
}

export const FALLBACK_TEXT = 'Done.';
export const SIDE_TEXT = 'papo test';
/** A placeholder key Gemini CLI is given; the fake accepts any. */
export const FAKE_GEMINI_KEY = 'fake-gemini-key-for-local-tests';

/** Does this request offer function declarations (the agent's own turn)? */
export function offersTools(body: Json): boolean {
  return (body?.tools ?? []).some((t: Json) => (t.functionDeclarations ?? []).length > 0);
}

export async function startFakeGemini(turns: ScriptedTurn[] = []): Promise<FakeGemini> {
  const script: ScriptedTurn[] = [...turns];
  let nextTurn = 0;
  let ids = 0;
  const requests: RecordedRequest[] = [];
  const waiters: { pred: (r: RecordedRequest) => boolean; resolve: (r: RecordedRequest) => void }[] = [];

  const record = (r: RecordedRequest): void => {
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
      const [path = '/', query = ''] = (req.url ?? '/').split('?');
      const base = { method: req.method ?? '', path, query, headers: req.headers, body, at: Date.now() };
      const action = /^\/v1beta\/models\/[^/:]+:(\w+)$/.exec(path)?.[1];
      if (req.method === 'POST' && action === 'countTokens') {
        record({ ...base, kind: 'count_tokens' });
        json(res, 200, { totalTokens: Math.ceil(raw.length / 4) });
      } else if (
        req.method === 'POST' &&
        (action === 'streamGenerateContent' || action === 'generateContent')
      ) {
        let turn: Turn;
        if (offersTools(body)) {
          const index = nextTurn < script.length ? nextTurn++ : -1;
          record({ ...base, kind: 'turn', turn: index });
          const scripted = index === -1 ? { text: FALLBACK_TEXT } : (script[index] as ScriptedTurn);
          turn = typeof scripted === 'function' ? scripted(body) : scripted;
        } else {
          record({ ...base, kind: 'side' });
          // The router's classifier and other side requests ask for JSON of a schema: one that fits.
          const schema = body?.generationConfig?.responseJsonSchema;
          turn = { text: schema === undefined ? SIDE_TEXT : JSON.stringify(fitting(schema)) };
        }
        const answer = response(turn, () => `${++ids}`);
        if (action === 'generateContent') {
          json(res, 200, answer);
          return;
        }
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        res.write(`data: ${JSON.stringify(answer)}\r\n\r\n`);
        res.end();
      } else {
        record({ ...base, kind: 'unknown' });
        json(res, 404, { error: { code: 404, message: `fake: no ${path}`, status: 'NOT_FOUND' } });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
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
          resolve: (r: RecordedRequest) => {
            clearTimeout(timer);
            resolve(r);
          },
        };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          const seenPaths = requests.map((r) => `${r.kind} ${r.path}`).join(', ');
          reject(new Error(`fake Gemini API: timed out waiting for ${what}; got: ${seenPaths}`));
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

function json(res: ServerResponse, status: number, value: Json): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** A value of a (Gemini-style, upper-case types) JSON schema: strings SIDE_TEXT, numbers 1. */
function fitting(schema: Json): Json {
  switch (String(schema?.type ?? '').toUpperCase()) {
    case 'OBJECT':
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, fitting(v)]));
    case 'ARRAY':
      return [];
    case 'INTEGER':
    case 'NUMBER':
      return 1;
    case 'BOOLEAN':
      return false;
    default:
      return schema?.enum?.[0] ?? SIDE_TEXT;
  }
}

/** A GenerateContentResponse with one candidate holding the turn's parts. */
function response(turn: Turn, newId: () => string): Json {
  const parts: Json[] = [];
  if (turn.text !== undefined) parts.push({ text: turn.text });
  for (const c of turn.calls ?? [])
    parts.push({ functionCall: { id: c.id ?? `fake_call_${newId()}`, name: c.name, args: c.args } });
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
    modelVersion: 'gemini-fake',
    responseId: `fake_${newId()}`,
  };
}

/** The text parts of every user turn of a request. */
export function userTexts(body: Json): string[] {
  const out: string[] = [];
  for (const c of body?.contents ?? [])
    if (c.role === 'user') for (const p of c.parts ?? []) if (typeof p.text === 'string') out.push(p.text);
  return out;
}

/** The system instruction's text. */
export function systemText(body: Json): string {
  const si = body?.systemInstruction;
  if (typeof si === 'string') return si;
  return (si?.parts ?? []).map((p: Json) => p.text ?? '').join('\n');
}

/** The function declarations a request offers. */
export function declarations(body: Json): Json[] {
  return (body?.tools ?? []).flatMap((t: Json) => t.functionDeclarations ?? []);
}

/** The functionResponse parts of a request, in order: {id, name, response}. */
export function functionResponses(body: Json): { id: string; name: string; response: Json }[] {
  const out: { id: string; name: string; response: Json }[] = [];
  for (const c of body?.contents ?? [])
    for (const p of c.parts ?? []) if (p.functionResponse) out.push(p.functionResponse);
  return out;
}

/** The functionCall parts the model made, in order. */
export function functionCalls(body: Json): FunctionCall[] {
  const out: FunctionCall[] = [];
  for (const c of body?.contents ?? [])
    if (c.role === 'model') for (const p of c.parts ?? []) if (p.functionCall) out.push(p.functionCall);
  return out;
}
