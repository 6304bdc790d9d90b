// The scripted Responses API on its own: what a client reading its stream gets, without Codex.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  FALLBACK_TEXT,
  functionOutputs,
  inputTexts,
  type Json,
  namespaceTools,
  papoCall,
  SIDE_TEXT,
  startFakeOpenAI,
} from './fake-openai.js';

/** The events of a server-sent event stream: `event:` names and parsed `data:`. */
async function sse(res: Response): Promise<{ event: string; data: Json }[]> {
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? '';
      const data = JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? 'null');
      return { event, data };
    });
}

const TOOLS = [{ type: 'namespace', name: 'mcp__papo', tools: [{ type: 'function', name: 'wait' }] }];

function post(url: string, body: Json): Promise<Response> {
  return fetch(`${url}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer x' },
    body: JSON.stringify(body),
  });
}

test('turns stream in order as Responses API events; the fallback ends the script', async (t) => {
  const fake = await startFakeOpenAI([
    { text: 'Checking.', tools: [papoCall('wait', { timeout_seconds: 60, from: 'colega' })] },
    (body) => ({ text: `saw ${functionOutputs(body).at(-1)?.text}` }),
  ]);
  t.after(() => fake.close());

  const first = await post(fake.url, { model: 'm', stream: true, tools: TOOLS, input: [] });
  assert.equal(first.status, 200);
  assert.match(first.headers.get('content-type') ?? '', /^text\/event-stream/);
  const events = await sse(first);
  assert.deepEqual(
    events.map((e) => e.event),
    [
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ],
  );
  for (const e of events) assert.equal(e.data.type, e.event);
  const done = events.filter((e) => e.event === 'response.output_item.done').map((e) => e.data.item);
  assert.equal(done[0].content[0].text, 'Checking.');
  const call = done[1];
  assert.equal(call.type, 'function_call');
  assert.equal(call.name, 'wait');
  assert.equal(call.namespace, 'mcp__papo');
  assert.deepEqual(JSON.parse(call.arguments), { timeout_seconds: 60, from: 'colega' });
  const deltas = events.filter((e) => e.event === 'response.function_call_arguments.delta');
  assert.equal(deltas.map((e) => e.data.delta).join(''), call.arguments);
  const completed = events.at(-1)?.data.response;
  assert.equal(completed.status, 'completed');
  assert.equal(completed.usage.total_tokens, 15);
  assert.deepEqual(
    completed.output.map((i: Json) => i.type),
    ['message', 'function_call'],
  );

  // The next turn is a function of the request: it reads the call's output.
  const input = [
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hello' }] },
    { ...call },
    {
      type: 'function_call_output',
      call_id: call.call_id,
      output: [
        { type: 'input_text', text: 'Wall time: 0.1 seconds\nOutput:' },
        { type: 'input_text', text: 'msg from colega' },
      ],
    },
  ];
  const second = await sse(await post(fake.url, { model: 'm', stream: true, tools: TOOLS, input }));
  const text = second.find((e) => e.event === 'response.output_item.done')?.data.item.content[0].text;
  assert.equal(text, 'saw Wall time: 0.1 seconds\nOutput:\nmsg from colega');

  const third = await sse(await post(fake.url, { model: 'm', stream: true, tools: TOOLS, input: [] }));
  assert.equal(
    third.find((e) => e.event === 'response.output_item.done')?.data.item.content[0].text,
    FALLBACK_TEXT,
  );

  assert.deepEqual(
    fake.turnRequests().map((r) => r.turn),
    [0, 1, -1],
  );
  const [, body] = fake.turnRequests().map((r) => r.body);
  assert.deepEqual(inputTexts(body), ['hello']);
  assert.deepEqual(functionOutputs(body), [
    {
      callId: call.call_id,
      name: 'wait',
      namespace: 'mcp__papo',
      arguments: { timeout_seconds: 60, from: 'colega' },
      text: 'Wall time: 0.1 seconds\nOutput:\nmsg from colega',
    },
  ]);
  assert.deepEqual(
    namespaceTools(body, 'mcp__papo').map((x: Json) => x.name),
    ['wait'],
  );
});

test('requests without tools get the side text; unknown endpoints 404 and are recorded', async (t) => {
  const fake = await startFakeOpenAI([{ text: 'never used' }]);
  t.after(() => fake.close());
  const side = await post(fake.url, { model: 'm', stream: false, input: [] });
  const json: Json = await side.json();
  assert.equal(json.status, 'completed');
  assert.equal(json.output[0].content[0].text, SIDE_TEXT);
  const models = await fetch(`${fake.url}/models`);
  assert.equal(models.status, 404);
  await models.text();
  assert.deepEqual(
    fake.requests.map((r) => `${r.kind} ${r.method} ${r.path}`),
    ['side POST /v1/responses', 'unknown GET /v1/models'],
  );
  assert.deepEqual(fake.turnRequests(), []);
  const seen = await fake.waitForRequest((r) => r.kind === 'unknown', 1000, 'the models request');
  assert.equal(seen.path, '/v1/models');
  await assert.rejects(
    fake.waitForRequest((r) => r.kind === 'turn', 50, 'a turn'),
    /timed out waiting for a turn/,
  );
});
