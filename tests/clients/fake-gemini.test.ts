// The fake Gemini API itself (fake-gemini.ts): the scripted turns come out as Gemini CLI reads them,
// as server-sent events or one JSON answer, side requests do not use a turn, and unknown endpoints are
// answered 404 and recorded.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { functionCalls, functionResponses, type Json, startFakeGemini } from './fake-gemini.js';

const TOOLS = [
  { functionDeclarations: [{ name: 'mcp_papo_wait', parametersJsonSchema: { type: 'object' } }] },
];

async function post(url: string, body: Json): Promise<{ status: number; type: string; text: string }> {
  const r = await fetch(url, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  return { status: r.status, type: r.headers.get('content-type') ?? '', text: await r.text() };
}

test('fake Gemini: scripted turns as SSE, side requests apart, 404 recorded', async (t) => {
  const fake = await startFakeGemini([
    { calls: [{ name: 'mcp_papo_wait', args: { timeout_seconds: 5, wait_for_previous: true }, id: 'c1' }] },
    (body) => ({ text: `got ${functionResponses(body)[0]?.response.output}` }),
  ]);
  t.after(() => fake.close());
  const stream = `${fake.url}/v1beta/models/gemini-x:streamGenerateContent?alt=sse`;
  const first = await post(stream, { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], tools: TOOLS });
  assert.equal(first.status, 200);
  assert.equal(first.type, 'text/event-stream');
  const event = JSON.parse(first.text.replace(/^data: /, ''));
  assert.deepEqual(event.candidates[0].content.parts, [
    {
      functionCall: {
        id: 'c1',
        name: 'mcp_papo_wait',
        args: { timeout_seconds: 5, wait_for_previous: true },
      },
    },
  ]);
  // A side request (no tools) does not use a turn.
  const side = await post(`${fake.url}/v1beta/models/gemini-lite:generateContent`, { contents: [] });
  assert.equal(JSON.parse(side.text).candidates[0].content.parts[0].text, 'papo test');
  const contents = [
    { role: 'user', parts: [{ text: 'hi' }] },
    { role: 'model', parts: event.candidates[0].content.parts },
    {
      role: 'user',
      parts: [{ functionResponse: { id: 'c1', name: 'mcp_papo_wait', response: { output: 'msg' } } }],
    },
  ];
  const second = await post(stream, { contents, tools: TOOLS });
  assert.equal(JSON.parse(second.text.replace(/^data: /, '')).candidates[0].content.parts[0].text, 'got msg');
  const third = await post(stream, { contents, tools: TOOLS });
  assert.equal(JSON.parse(third.text.replace(/^data: /, '')).candidates[0].content.parts[0].text, 'Done.');
  const missing = await post(`${fake.url}/v1/whatever`, {});
  assert.equal(missing.status, 404);
  assert.deepEqual(
    fake.requests.map((r) => `${r.kind} ${r.turn ?? ''}`),
    ['turn 0', 'side ', 'turn 1', 'turn -1', 'unknown '],
  );
  assert.equal(fake.turnRequests()[1]?.query, 'alt=sse');
  assert.deepEqual(
    functionCalls(fake.turnRequests()[1]?.body).map((c) => c.name),
    ['mcp_papo_wait'],
  );
});
