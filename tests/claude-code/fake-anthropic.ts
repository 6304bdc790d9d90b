// A scripted stand-in for the Anthropic Messages API, so that a real Claude Code runs against a
// model whose every answer the test wrote. Claude Code is pointed at it with
// ANTHROPIC_BASE_URL=http://127.0.0.1:<port> and any ANTHROPIC_API_KEY.
//
// The model's turns are a list: each request of the main loop (one that offers tools) takes the
// next turn, answered as the streamed server-sent events of the Messages API (message_start,
// content_block_start/delta/stop per block, message_delta, message_stop; a tool_use block's input
// arrives as input_json_delta). When the list is used up, the model says FALLBACK_TEXT and stops.
// Claude Code's side requests (a title, a quota probe: no tools offered) get a short text answer
// and do not use a turn. count_tokens gets a rough count. Every request is recorded with its body;
// anything else is answered 404 and recorded too, so a new endpoint shows in the log.
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

export interface ToolUse {
  name: string;
  input: Json;
  /** The tool_use id; one is made up when absent. */
  id?: string;
}

/** One answer of the model: some text, then tool calls (stop_reason tool_use when there are any). */
export interface Turn {
  text?: string;
  tools?: ToolUse[];
}

/** A turn, or a function of the request that makes it (to answer what the conversation holds). */
export type ScriptedTurn = Scripted<Turn>;

export type RecordedRequest = ModelRequest<'turn' | 'side' | 'count_tokens' | 'unknown'>;

export type FakeAnthropic = ScriptedModel<Turn, RecordedRequest>;

export { FALLBACK_TEXT, isMainLoop, SIDE_TEXT };

/** A placeholder key Claude Code is given; the fake accepts any. */
export const FAKE_API_KEY = 'sk-ant-fake-key-for-local-tests';

export const FAKE_MODEL = 'claude-fake-test-model';

export function startFakeAnthropic(turns: ScriptedTurn[] = []): Promise<FakeAnthropic> {
  return startScriptedModel<Turn, RecordedRequest['kind']>({
    api: 'Anthropic API',
    turns,
    route(ex) {
      if (ex.method === 'POST' && ex.path === '/v1/messages/count_tokens') {
        ex.record('count_tokens');
        ex.json(200, { input_tokens: Math.ceil(ex.raw.length / 4) });
      } else if (ex.method === 'POST' && ex.path === '/v1/messages') {
        answer(ex, ex.turn(isMainLoop(ex.body)));
      } else
        ex.notFound({ type: 'error', error: { type: 'not_found_error', message: `fake: no ${ex.path}` } });
    },
  });
}

/** The content blocks of a turn, as the final Message carries them. */
function blocks(turn: Turn, newId: () => string): Json[] {
  const out: Json[] = [];
  if (turn.text !== undefined) out.push({ type: 'text', text: turn.text });
  for (const t of turn.tools ?? [])
    out.push({ type: 'tool_use', id: t.id ?? `toolu_fake_${newId()}`, name: t.name, input: t.input });
  return out;
}

function answer(ex: Exchange<Turn, RecordedRequest['kind']>, turn: Turn): void {
  const { req, res, body, newId } = ex;
  const content = blocks(turn, newId);
  const stopReason = (turn.tools ?? []).length > 0 ? 'tool_use' : 'end_turn';
  const message = {
    id: `msg_fake_${newId()}`,
    type: 'message',
    role: 'assistant',
    model: typeof body?.model === 'string' ? body.model : FAKE_MODEL,
    content: [] as Json[],
    stop_reason: null as string | null,
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
  res.setHeader('request-id', `req_fake_${newId()}`);
  if (body?.stream !== true) {
    ex.json(200, {
      ...message,
      content,
      stop_reason: stopReason,
      usage: { ...message.usage, output_tokens: 5 },
    });
    return;
  }
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  const event = (type: string, data: Json): void => {
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  };
  event('message_start', { message });
  content.forEach((block, index) => {
    if (block.type === 'text') {
      event('content_block_start', { index, content_block: { type: 'text', text: '' } });
      event('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } });
    } else {
      event('content_block_start', {
        index,
        content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
      });
      const input = JSON.stringify(block.input);
      // In two pieces, as the real API streams a tool's input in fragments.
      const cut = Math.floor(input.length / 2);
      event('content_block_delta', {
        index,
        delta: { type: 'input_json_delta', partial_json: input.slice(0, cut) },
      });
      event('content_block_delta', {
        index,
        delta: { type: 'input_json_delta', partial_json: input.slice(cut) },
      });
    }
    event('content_block_stop', { index });
  });
  event('message_delta', {
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: 5 },
  });
  event('message_stop', {});
  res.end();
  req.resume();
}

/** The text of every user turn in a Messages request (string content or text blocks). */
export function userTexts(body: Json): string[] {
  const out: string[] = [];
  for (const m of body?.messages ?? []) {
    if (m.role !== 'user') continue;
    if (typeof m.content === 'string') out.push(m.content);
    else for (const b of m.content ?? []) if (b.type === 'text') out.push(b.text);
  }
  return out;
}

/** The tool_result blocks of a Messages request, with their text. */
export function toolResults(body: Json): { toolUseId: string; text: string; isError: boolean }[] {
  const out: { toolUseId: string; text: string; isError: boolean }[] = [];
  for (const m of body?.messages ?? []) {
    if (m.role !== 'user' || typeof m.content === 'string') continue;
    for (const b of m.content ?? []) {
      if (b.type !== 'tool_result') continue;
      const text =
        typeof b.content === 'string'
          ? b.content
          : (b.content ?? [])
              .filter((c: Json) => c.type === 'text')
              .map((c: Json) => c.text)
              .join('\n');
      out.push({ toolUseId: b.tool_use_id, text, isError: b.is_error === true });
    }
  }
  return out;
}

/** Every piece of system text a request carries: the system parameter and system-role entries. */
export function systemTexts(body: Json): string[] {
  const out: string[] = [];
  const sys = body?.system;
  if (typeof sys === 'string') out.push(sys);
  else for (const b of sys ?? []) if (b.type === 'text') out.push(b.text);
  for (const m of body?.messages ?? []) {
    if (m.role !== 'system') continue;
    if (typeof m.content === 'string') out.push(m.content);
    else for (const b of m.content ?? []) if (b.type === 'text') out.push(b.text);
  }
  return out;
}

/**
 * How many times the message `msgId` of papo is in a Messages request: as a push (a
 * `<channel source="papo" ... msg_id="…">` in any user or system entry) and as a `wait`/`inbox`
 * result (a `[msg_id=… ` header in a tool_result).
 */
export function timesShown(body: Json, msgId: string): { pushes: number; results: number } {
  const push = new RegExp(`<channel source="papo"[^>]* msg_id="${msgId}"`, 'g');
  const header = `[msg_id=${msgId} `;
  let pushes = 0;
  let results = 0;
  const count = (text: string) => {
    pushes += text.match(push)?.length ?? 0;
  };
  for (const m of body?.messages ?? []) {
    if (typeof m.content === 'string') {
      count(m.content);
      continue;
    }
    for (const b of m.content ?? []) {
      if (b.type === 'text') count(b.text);
      if (b.type !== 'tool_result') continue;
      const parts =
        typeof b.content === 'string' ? [b.content] : (b.content ?? []).map((c: Json) => c.text ?? '');
      for (const text of parts) {
        results += text.split(header).length - 1;
        count(text);
      }
    }
  }
  return { pushes, results };
}
