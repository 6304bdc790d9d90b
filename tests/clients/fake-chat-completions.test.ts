// The fake Chat Completions API on its own (no client needed): turns stream as chat.completion.chunk
// events, tool call arguments reassemble from their pieces, side requests leave the script alone, and
// every request is recorded.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FALLBACK_TEXT, type Json, SIDE_TEXT, startFakeChatCompletions } from './fake-chat-completions.js';

const TOOLS = [{ type: 'function', function: { name: 'papo_send', parameters: { type: 'object' } } }];

async function post(url: string, body: Json): Promise<Response> {
  return fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** The data of each SSE event, parsed; "[DONE]" as the string. */
async function chunks(res: Response): Promise<Json[]> {
  return (await res.text())
    .split('\n\n')
    .filter((e) => e.startsWith('data: '))
    .map((e) => e.slice(6))
    .map((d) => (d === '[DONE]' ? d : JSON.parse(d)));
}

test('turns stream in order; tool arguments reassemble; side requests do not use a turn', async (t) => {
  const fake = await startFakeChatCompletions([
    { text: 'Let me write.', tools: [{ name: 'papo_send', args: { message: 'hi "there"', to: 'colega' } }] },
  ]);
  t.after(() => fake.close());

  const side = await post(fake.url, { model: 'm', messages: [] });
  assert.equal(((await side.json()) as Json).choices[0].message.content, SIDE_TEXT);

  const res = await post(fake.url, {
    model: 'm',
    stream: true,
    stream_options: { include_usage: true },
    tools: TOOLS,
    messages: [],
  });
  assert.equal(res.headers.get('content-type'), 'text/event-stream');
  const evs = await chunks(res);
  assert.equal(evs.at(-1), '[DONE]');
  const data = evs.slice(0, -1);
  for (const d of data) assert.equal(d.object, 'chat.completion.chunk');
  const deltas = data.filter((d) => d.choices.length > 0).map((d) => d.choices[0].delta);
  assert.equal(deltas[0].role, 'assistant');
  assert.equal(deltas.map((d) => d.content ?? '').join(''), 'Let me write.');
  const calls = deltas.flatMap((d) => d.tool_calls ?? []);
  assert.equal(calls[0].function.name, 'papo_send');
  assert.match(calls[0].id, /^call_fake_/);
  const args = calls.map((c) => c.function.arguments).join('');
  assert.deepEqual(JSON.parse(args), { message: 'hi "there"', to: 'colega' });
  assert.equal(data.find((d) => d.choices[0]?.finish_reason)?.choices[0].finish_reason, 'tool_calls');
  assert.deepEqual(data.at(-1).usage, { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });

  // The script is used up: the model says it is done.
  const after = await chunks(await post(fake.url, { model: 'm', stream: true, tools: TOOLS, messages: [] }));
  const text = after
    .filter((d) => d !== '[DONE]')
    .map((d) => d.choices[0]?.delta.content ?? '')
    .join('');
  assert.equal(text, FALLBACK_TEXT);

  assert.equal((await fetch(`${fake.url}/models`)).status, 200);
  assert.equal((await fetch(`${fake.url}/responses`, { method: 'POST' })).status, 404);
  assert.deepEqual(
    fake.requests.map((r) => [r.kind, r.turn]),
    [
      ['side', undefined],
      ['turn', 0],
      ['turn', -1],
      ['models', undefined],
      ['unknown', undefined],
    ],
  );
});
