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
import {
  FALLBACK_TEXT,
  type Json,
  type ModelRequest,
  type Scripted,
  type ScriptedModel,
  SIDE_TEXT,
  startScriptedModel,
} from '../support/scripted-model.js';

export type { Json };

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
export type ScriptedTurn = Scripted<Turn>;

/** `path` is without the query (/v1beta/models/gemini-x:streamGenerateContent), `query` after it. */
export type RecordedRequest = ModelRequest<'turn' | 'side' | 'count_tokens' | 'unknown'>;

/** `url` is http://127.0.0.1:<port>, Gemini CLI's GOOGLE_GEMINI_BASE_URL. */
export type FakeGemini = ScriptedModel<Turn, RecordedRequest>;

export { FALLBACK_TEXT, SIDE_TEXT };
/** A placeholder key Gemini CLI is given; the fake accepts any. */
export const FAKE_GEMINI_KEY = 'fake-gemini-key-for-local-tests';

/** Does this request offer function declarations (the agent's own turn)? */
export function offersTools(body: Json): boolean {
  return (body?.tools ?? []).some((t: Json) => (t.functionDeclarations ?? []).length > 0);
}

export function startFakeGemini(turns: ScriptedTurn[] = []): Promise<FakeGemini> {
  return startScriptedModel<Turn, RecordedRequest['kind']>({
    api: 'Gemini API',
    turns,
    route(ex) {
      const action = /^\/v1beta\/models\/[^/:]+:(\w+)$/.exec(ex.path)?.[1];
      if (ex.method === 'POST' && action === 'countTokens') {
        ex.record('count_tokens');
        ex.json(200, { totalTokens: Math.ceil(ex.raw.length / 4) });
      } else if (
        ex.method === 'POST' &&
        (action === 'streamGenerateContent' || action === 'generateContent')
      ) {
        const turn = ex.turn(offersTools(ex.body), () => {
          // The router's classifier and other side requests ask for JSON of a schema: one that fits.
          const schema = ex.body?.generationConfig?.responseJsonSchema;
          return { text: schema === undefined ? SIDE_TEXT : JSON.stringify(fitting(schema)) };
        });
        const answer = response(turn, ex.newId);
        if (action === 'generateContent') {
          ex.json(200, answer);
          return;
        }
        ex.res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        ex.res.write(`data: ${JSON.stringify(answer)}\r\n\r\n`);
        ex.res.end();
      } else ex.notFound({ error: { code: 404, message: `fake: no ${ex.path}`, status: 'NOT_FOUND' } });
    },
  });
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
