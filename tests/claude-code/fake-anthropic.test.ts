// The fake Messages API on its own (no Claude Code needed): the turns stream as the API's events,
// tool input reassembles from its input_json_delta pieces, side requests leave the script alone,
// and every request is recorded.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FALLBACK_TEXT, type Json, SIDE_TEXT, startFakeAnthropic } from './fake-anthropic.js';

async function post(url: string, body: Json): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** The SSE events of a response, as [event name, data]. */
async function events(res: Response): Promise<[string, Json][]> {
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((e) => e !== '')
    .map((e) => {
      const [name, data] = e.split('\n') as [string, string];
      return [name.replace(/^event: /, ''), JSON.parse(data.replace(/^data: /, ''))];
    });
}

const TOOLS = [{ name: 'mcp__papo__send', description: 'd', input_schema: { type: 'object' } }];

test('turns stream in order; tool input reassembles; side requests and count_tokens do not use a turn', async (t) => {
  const fake = await startFakeAnthropic([
    {
      text: 'Let me write.',
      tools: [{ name: 'mcp__papo__send', input: { message: 'hi "there"', to: 'colega' } }],
    },
  ]);
  t.after(() => fake.close());

  const side = await post(`${fake.url}/v1/messages`, { model: 'm', stream: false, messages: [] });
  assert.equal(((await side.json()) as Json).content[0].text, SIDE_TEXT);
  const counted = await post(`${fake.url}/v1/messages/count_tokens`, { messages: [] });
  assert.ok(((await counted.json()) as Json).input_tokens > 0);

  const res = await post(`${fake.url}/v1/messages`, { model: 'm', stream: true, tools: TOOLS, messages: [] });
  assert.equal(res.headers.get('content-type'), 'text/event-stream');
  const evs = await events(res);
  assert.deepEqual(
    evs.map(([name]) => name),
    [
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ],
  );
  for (const [name, data] of evs) assert.equal(data.type, name);
  assert.equal(evs[1]?.[1].content_block.type, 'text');
  assert.equal(evs[2]?.[1].delta.text, 'Let me write.');
  const toolStart = evs[4]?.[1];
  assert.equal(toolStart.index, 1);
  assert.deepEqual(toolStart.content_block.input, {});
  assert.equal(toolStart.content_block.name, 'mcp__papo__send');
  const input = evs
    .filter(([name, d]) => name === 'content_block_delta' && d.index === 1)
    .map(([, d]) => d.delta.partial_json)
    .join('');
  assert.deepEqual(JSON.parse(input), { message: 'hi "there"', to: 'colega' });
  assert.equal(evs[8]?.[1].delta.stop_reason, 'tool_use');

  // The script is used up: the model says it is done.
  const after = await events(
    await post(`${fake.url}/v1/messages`, { model: 'm', stream: true, tools: TOOLS, messages: [] }),
  );
  assert.equal(after[2]?.[1].delta.text, FALLBACK_TEXT);
  assert.equal(after.find(([n]) => n === 'message_delta')?.[1].delta.stop_reason, 'end_turn');

  const missing = await fetch(`${fake.url}/v1/models`);
  assert.equal(missing.status, 404);
  assert.deepEqual(
    fake.requests.map((r) => [r.kind, r.turn]),
    [
      ['side', undefined],
      ['count_tokens', undefined],
      ['turn', 0],
      ['turn', -1],
      ['unknown', undefined],
    ],
  );
});
