// A scripted stand-in for the OpenAI Responses API, so that a real Codex CLI runs against a model
// whose every answer the test wrote. Codex is pointed at it with a model provider of its own
// (codexModelArgs in helpers/codex.ts: base_url http://127.0.0.1:<port>/v1, wire_api "responses").
//
// The model's turns are a list: each request of the main loop (POST /v1/responses offering tools)
// takes the next turn, answered as the streamed server-sent events of the Responses API
// (response.created, then per output item response.output_item.added, its deltas —
// output_text.delta, or function_call_arguments.delta in two pieces and .done — and
// response.output_item.done, then response.completed with the usage). Codex shows an MCP server's
// tools as a namespace (`mcp__papo`) holding plain function tools (`wait`, `send`...), and the
// model calls one with a function_call item naming both (papoCall builds one). When the list is
// used up, the model says FALLBACK_TEXT and stops. Requests without tools (a title, a compaction)
// get SIDE_TEXT and use no turn. Every request is recorded with its body; anything else is
// answered 404 and recorded too, so a new endpoint shows in the log.
import {
  type Exchange,
  FALLBACK_TEXT,
  isMainLoop,
  type Json,
  type ModelRequest,
  type Scripted,
  type ScriptedModel,
  SIDE_TEXT,
  startScriptedModel,
} from '../support/scripted-model.js';

export type { Json };

export interface ToolCall {
  /** The function's name: `wait`, or `exec_command` for one of Codex's own tools. */
  name: string;
  /** The namespace of an MCP server's tools (`mcp__papo`); absent for Codex's own tools. */
  namespace?: string;
  input: Json;
  /** The call_id; one is made up when absent. */
  callId?: string;
}

/** One answer of the model: some text, then function calls. */
export interface Turn {
  text?: string;
  tools?: ToolCall[];
}

/** A turn, or a function of the request that makes it (to answer what the conversation holds). */
export type ScriptedTurn = Scripted<Turn>;

export type RecordedRequest = ModelRequest<'turn' | 'side' | 'unknown'>;

/** `url` is http://127.0.0.1:<port>/v1, the model provider's base_url. */
export type FakeOpenAI = ScriptedModel<Turn, RecordedRequest>;

export { FALLBACK_TEXT, isMainLoop, SIDE_TEXT };
/** A placeholder key Codex sends as its bearer token; the fake accepts any. */
export const FAKE_OPENAI_KEY = 'sk-fake-key-for-local-tests';
export const FAKE_OPENAI_MODEL = 'fake-codex-model';

/** A call of one of papo's tools, as Codex's model makes it. */
export function papoCall(name: string, input: Json = {}, server = 'papo'): ToolCall {
  return { name, namespace: `mcp__${server}`, input };
}

export function startFakeOpenAI(turns: ScriptedTurn[] = []): Promise<FakeOpenAI> {
  return startScriptedModel<Turn, RecordedRequest['kind']>({
    api: 'OpenAI API',
    basePath: '/v1',
    turns,
    route(ex) {
      if (ex.method === 'POST' && ex.path === '/v1/responses') {
        answer(ex, ex.turn(isMainLoop(ex.body)));
      } else
        ex.notFound({
          error: { type: 'invalid_request_error', message: `fake: no ${ex.method} ${ex.path}` },
        });
    },
  });
}

/** The output items of a turn, as the completed response carries them. */
function outputItems(turn: Turn, newId: () => string): Json[] {
  const out: Json[] = [];
  if (turn.text !== undefined) {
    out.push({
      type: 'message',
      id: `msg_fake_${newId()}`,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: turn.text, annotations: [] }],
    });
  }
  for (const call of turn.tools ?? []) {
    out.push({
      type: 'function_call',
      id: `fc_fake_${newId()}`,
      call_id: call.callId ?? `call_fake_${newId()}`,
      name: call.name,
      ...(call.namespace === undefined ? {} : { namespace: call.namespace }),
      arguments: JSON.stringify(call.input),
      status: 'completed',
    });
  }
  return out;
}

function answer(ex: Exchange<Turn, RecordedRequest['kind']>, turn: Turn): void {
  const { res, body, newId } = ex;
  const output = outputItems(turn, newId);
  const usage = {
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 15,
  };
  const response = {
    id: `resp_fake_${newId()}`,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    model: typeof body?.model === 'string' ? body.model : FAKE_OPENAI_MODEL,
    status: 'in_progress',
    output: [] as Json[],
  };
  if (body?.stream !== true) {
    ex.json(200, { ...response, status: 'completed', output, usage });
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  let seq = 0;
  const event = (type: string, data: Json): void => {
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
  };
  event('response.created', { response });
  event('response.in_progress', { response });
  output.forEach((item, output_index) => {
    if (item.type === 'message') {
      const text = item.content[0].text as string;
      event('response.output_item.added', {
        output_index,
        item: { ...item, status: 'in_progress', content: [] },
      });
      const part = { type: 'output_text', text: '', annotations: [] };
      event('response.content_part.added', { output_index, item_id: item.id, content_index: 0, part });
      event('response.output_text.delta', { output_index, item_id: item.id, content_index: 0, delta: text });
      event('response.output_text.done', { output_index, item_id: item.id, content_index: 0, text });
      event('response.content_part.done', {
        output_index,
        item_id: item.id,
        content_index: 0,
        part: { ...part, text },
      });
    } else {
      event('response.output_item.added', {
        output_index,
        item: { ...item, arguments: '', status: 'in_progress' },
      });
      // In two pieces, as the real API streams a call's arguments in fragments.
      const args = item.arguments as string;
      const cut = Math.floor(args.length / 2);
      for (const delta of [args.slice(0, cut), args.slice(cut)])
        event('response.function_call_arguments.delta', { output_index, item_id: item.id, delta });
      event('response.function_call_arguments.done', { output_index, item_id: item.id, arguments: args });
    }
    event('response.output_item.done', { output_index, item });
  });
  event('response.completed', { response: { ...response, status: 'completed', output, usage } });
  res.end();
}

/** The text of a function_call_output's output (a string, or input_text parts). */
function outputText(output: Json): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output))
    return output
      .filter((p: Json) => typeof p?.text === 'string')
      .map((p: Json) => p.text)
      .join('\n');
  if (typeof output?.content === 'string') return output.content;
  return JSON.stringify(output);
}

/**
 * The function call results a request carries, in order, with the call they answer. Codex puts a
 * "Wall time: … Output:" part before an MCP tool's own text; `text` holds every part.
 */
export function functionOutputs(
  body: Json,
): { callId: string; name: string; namespace?: string; arguments: Json; text: string }[] {
  const calls = new Map<string, Json>();
  const out: { callId: string; name: string; namespace?: string; arguments: Json; text: string }[] = [];
  for (const item of body?.input ?? []) {
    if (item?.type === 'function_call') calls.set(item.call_id, item);
    if (item?.type !== 'function_call_output') continue;
    const call = calls.get(item.call_id);
    let args: Json = call?.arguments;
    try {
      args = JSON.parse(call?.arguments);
    } catch {}
    out.push({
      callId: item.call_id,
      name: call?.name ?? '',
      ...(call?.namespace === undefined ? {} : { namespace: call.namespace }),
      arguments: args,
      text: outputText(item.output),
    });
  }
  return out;
}

/** The text of every message of `role` (user, developer) in a request's input. */
export function inputTexts(body: Json, role = 'user'): string[] {
  const out: string[] = [];
  for (const item of body?.input ?? []) {
    if (item?.type !== 'message' || item.role !== role) continue;
    if (typeof item.content === 'string') out.push(item.content);
    else for (const part of item.content ?? []) if (typeof part?.text === 'string') out.push(part.text);
  }
  return out;
}

/** The tools of an MCP server's namespace (`mcp__papo`) that a request offers the model. */
export function namespaceTools(body: Json, namespace: string): Json[] {
  const ns = (body?.tools ?? []).find((tool: Json) => tool?.type === 'namespace' && tool.name === namespace);
  return ns?.tools ?? [];
}
