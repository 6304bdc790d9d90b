// A scripted stand-in for the OpenAI Chat Completions API, so that a real opencode or Qwen Code runs
// against a model whose every answer the test wrote. The client is pointed at it with a base URL of
// http://127.0.0.1:<port>/v1 and any API key.
//
// The model's turns are a list: each request of the main loop (one that offers tools) takes the
// next turn, answered as the streamed server-sent events of the API (`data: {chat.completion.chunk}`
// lines: the role, the text, each tool call as a first delta with its id and name and then its
// arguments in two pieces, the finish_reason, a usage chunk when stream_options.include_usage asks
// for it, then `data: [DONE]`), or as one chat.completion object when the request does not stream.
// When the list is used up, the model says FALLBACK_TEXT and stops. Side requests (a title, a
// summary: no tools offered) get a short text answer and do not use a turn; `side` may answer them
// otherwise (Qwen Code asks for JSON). GET /v1/models lists one model. Every request is recorded
// with its body; anything else is answered 404 and recorded too, so a new endpoint shows in the log.
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
  name: string;
  /** The arguments, sent as their JSON text. */
  args: Json;
  /** The tool call id; one is made up when absent. */
  id?: string;
}

/** One answer of the model: some text, then tool calls (finish_reason tool_calls when there are any). */
export interface Turn {
  text?: string;
  tools?: ToolCall[];
}

/** A turn, or a function of the request that makes it (to answer what the conversation holds). */
export type ScriptedTurn = Scripted<Turn>;

export type RecordedRequest = ModelRequest<'turn' | 'side' | 'models' | 'unknown'>;

/** `url` is http://127.0.0.1:<port>/v1, the client's base URL. */
export type FakeChatCompletions = ScriptedModel<Turn, RecordedRequest>;

export { FALLBACK_TEXT, isMainLoop, SIDE_TEXT };

/** A placeholder key the clients are given; the fake accepts any. */
export const FAKE_API_KEY = 'sk-fake-key-for-local-tests';

export const FAKE_MODEL = 'papo-fake-model';

export interface FakeOptions {
  /** The answer to a side request (default: SIDE_TEXT). */
  side?: (body: Json) => Turn;
}

export function startFakeChatCompletions(
  turns: ScriptedTurn[] = [],
  opts: FakeOptions = {},
): Promise<FakeChatCompletions> {
  return startScriptedModel<Turn, RecordedRequest['kind']>({
    api: 'Chat Completions API',
    basePath: '/v1',
    turns,
    route(ex) {
      if (ex.method === 'GET' && ex.path === '/v1/models') {
        ex.record('models');
        ex.json(200, {
          object: 'list',
          data: [{ id: FAKE_MODEL, object: 'model', created: 0, owned_by: 'papo' }],
        });
      } else if (ex.method === 'POST' && ex.path === '/v1/chat/completions') {
        const side = opts.side;
        answer(ex, ex.turn(isMainLoop(ex.body), side && (() => side(ex.body))));
      } else
        ex.notFound({
          error: { message: `fake: no ${ex.method} ${ex.path}`, type: 'invalid_request_error', code: null },
        });
    },
  });
}

function answer(ex: Exchange<Turn, RecordedRequest['kind']>, turn: Turn): void {
  const { req, res, body, newId } = ex;
  const id = `chatcmpl-fake-${newId()}`;
  const model = typeof body?.model === 'string' ? body.model : FAKE_MODEL;
  const created = Math.floor(Date.now() / 1000);
  const calls = (turn.tools ?? []).map((t) => ({
    id: t.id ?? `call_fake_${newId()}`,
    type: 'function' as const,
    function: { name: t.name, arguments: JSON.stringify(t.args) },
  }));
  const finish = calls.length > 0 ? 'tool_calls' : 'stop';
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  if (body?.stream !== true) {
    ex.json(200, {
      id,
      object: 'chat.completion',
      created,
      model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: turn.text ?? null,
            ...(calls.length > 0 ? { tool_calls: calls } : {}),
          },
          finish_reason: finish,
        },
      ],
      usage,
    });
    return;
  }
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  const chunk = (delta: Json, finishReason: string | null = null): void => {
    const data = {
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta, finish_reason: finishReason }],
    };
    res.write(`data: ${JSON.stringify(data)}\n\n`);
  };
  chunk({ role: 'assistant', content: '' });
  if (turn.text !== undefined) chunk({ content: turn.text });
  calls.forEach((call, index) => {
    chunk({
      tool_calls: [
        { index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } },
      ],
    });
    // In two pieces, as the real API streams a call's arguments in fragments.
    const args = call.function.arguments;
    const cut = Math.floor(args.length / 2);
    chunk({ tool_calls: [{ index, function: { arguments: args.slice(0, cut) } }] });
    chunk({ tool_calls: [{ index, function: { arguments: args.slice(cut) } }] });
  });
  chunk({}, finish);
  if (body?.stream_options?.include_usage === true) {
    const data = { id, object: 'chat.completion.chunk', created, model, choices: [], usage };
    res.write(`data: ${JSON.stringify(data)}\n\n`);
  }
  res.write('data: [DONE]\n\n');
  res.end();
  req.resume();
}

/** The text of a message's content (a string, or text parts). */
export function contentText(content: Json): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((p: Json) => p?.type === 'text' && typeof p.text === 'string')
    .map((p: Json) => p.text)
    .join('\n');
}

/** The text of every message of `role` in a request. */
export function textsOf(body: Json, role: 'system' | 'user' | 'assistant' | 'tool'): string[] {
  return (body?.messages ?? []).filter((m: Json) => m.role === role).map((m: Json) => contentText(m.content));
}

/** The tool results of a request (role "tool" messages), with their call id and text. */
export function toolResults(body: Json): { callId: string; text: string }[] {
  return (body?.messages ?? [])
    .filter((m: Json) => m.role === 'tool')
    .map((m: Json) => ({ callId: m.tool_call_id, text: contentText(m.content) }));
}

/** The tool calls the assistant made in a request's history, in order, with parsed arguments. */
export function toolCalls(body: Json): { id: string; name: string; args: Json }[] {
  const out: { id: string; name: string; args: Json }[] = [];
  for (const m of body?.messages ?? []) {
    if (m.role !== 'assistant') continue;
    for (const c of m.tool_calls ?? []) {
      let args: Json = c.function?.arguments;
      try {
        args = JSON.parse(args);
      } catch {}
      out.push({ id: c.id, name: c.function?.name, args });
    }
  }
  return out;
}

/** The tools a request offers: name, description and parameters. */
export function toolsOffered(body: Json): { name: string; description: string; parameters: Json }[] {
  return (body?.tools ?? []).map((t: Json) => ({
    name: t.function?.name,
    description: t.function?.description ?? '',
    parameters: t.function?.parameters,
  }));
}
