// Which part of src/ may import which (docs/architecture.md, "The parts and their arrows"): the
// signal server and the client share only the protocol; the MCP server builds on the client; the
// CLI is the adapter that puts them together (the embedded signal server reaches the client from
// the CLI, as open-member.ts's hostSignalServer). Inside src/client, each folder on its floor
// (ADR 0084). And no import circle anywhere. Read from the TypeScript sources, type imports
// included.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../support/papo.js';

const SRC = join(ROOT, 'src');

/** The top-level parts of src/ each part may import, besides itself. */
const ALLOWED: Record<string, readonly string[]> = {
  'signal-protocol.ts': [],
  'signal-server': ['signal-protocol.ts'],
  client: ['signal-protocol.ts'],
  mcp: ['client', 'signal-protocol.ts'],
  cli: ['client', 'mcp', 'signal-server', 'signal-protocol.ts'],
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}
/**
 * Every relative module a file names: `from '...'`, `import '...'` and `import('...')`, in any of
 * the three quotes (a path built with `${}` is not read here: see unreadableImports).
 */
function relativeImports(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)(['"`])(\.{1,2}\/[^'"`$]+)\1/g))
    out.push(m[2] as string);
  return out;
}

/** `import(...)` calls whose argument is not one literal path: where they lead cannot be read. */
function unreadableImports(text: string): string[] {
  return [...text.matchAll(/\bimport\s*\((?!\s*(['"`])[^'"`$]+\1\s*\))[^)]*\)/g)].map((m) => m[0]);
}

/** The top-level part of src/ a path is in: its first folder, or the file itself. */
function part(path: string): string {
  return relative(SRC, path).split(sep)[0] as string;
}

/** Every import of src/, as [importing file, imported file], both relative to src/ (`.ts`). */
function importEdges(): [string, string][] {
  const edges: [string, string][] = [];
  for (const file of sources(SRC)) {
    for (const spec of relativeImports(readFileSync(file, 'utf8')))
      edges.push([relative(SRC, file), relative(SRC, resolve(dirname(file), spec.replace(/\.js$/, '.ts')))]);
  }
  return edges;
}

/**
 * The floors of src/client, from the ground up (ADR 0084): what each folder or root file may import
 * besides itself. A name ending in `.ts` is one file; any other name, a whole folder. `log.ts` and
 * `errors.ts` are the ground every part stands on.
 */
const GROUND = ['errors.ts', 'hosts.ts', 'log.ts'];
const CLIENT: Record<string, readonly string[]> = {
  'errors.ts': [],
  'hosts.ts': [],
  'log.ts': [],
  // Frames, crypto, names: pure data and rules, no disk, no network.
  wire: GROUND,
  // The profile on disk: reads and writes the wire's types.
  store: [...GROUND, 'wire'],
  // The network carries sealed bytes only: it reaches the wire for the signal seal alone (the
  // transport process never holds the frame key; signal-seal.ts is checked apart below) and never
  // the room or the store.
  net: [...GROUND, 'wire/room-crypto.ts'],
  // The contract src/mcp and src/cli use: the wire's and the store's types, the health types.
  'member-api.ts': [...GROUND, 'wire', 'store', 'net/health.ts'],
  // The room: the store, the wire, the health types and the contract it implements.
  room: [...GROUND, 'wire', 'store', 'net/health.ts', 'member-api.ts'],
  // The person's side (a person's say, member.sock, the room's view for papo status): above the
  // room, it drives a member through its contract alone, never the room's internals.
  person: [...GROUND, 'wire', 'store', 'net/health.ts', 'member-api.ts'],
  // The transport: the network, and the room's links contract it implements.
  transport: [...GROUND, 'net', 'room/links.ts'],
  // Sealed attachments (ADR 0121): the manifest, ranges, binary chunk frames and their files on
  // disk; on the wire's crypto and the store's no-follow writes, below the room that will drive them.
  attach: [...GROUND, 'wire', 'store'],
};
/** Files of src/client that put the parts together: they may import any of them. */
const ASSEMBLY = ['open-member.ts', 'embedded-signal-server.ts'];

/** The client's part a file is in (`wire`, `net`... or a root file's name), or null outside src/client. */
function clientPart(path: string): string | null {
  const segs = path.split(sep);
  return segs[0] === 'client' ? (segs[1] as string) : null;
}
function clientPath(path: string): string {
  return path.split(sep).slice(1).join('/');
}

/** The wrong imports inside src/client among `edges`, as `from imports to`. */
function clientViolations(edges: readonly [string, string][]): string[] {
  const wrong: string[] = [];
  for (const [from, to] of edges) {
    const a = clientPart(from);
    const b = clientPart(to);
    if (a === null || b === null || a === b || ASSEMBLY.includes(a)) continue;
    const allowed = CLIENT[a];
    if (allowed === undefined) {
      wrong.push(`${from} is in no floor of src/client`);
      continue;
    }
    const target = clientPath(to);
    const ok = allowed.some((rule) => (rule.endsWith('.ts') ? target === rule : b === rule));
    // The one way from the network into the wire: the signal seal's key (never the frame key).
    const sealOnly =
      a === 'net' && target === 'wire/room-crypto.ts' && clientPath(from) !== 'net/signal-seal.ts';
    if (!ok || sealOnly) wrong.push(`${from} imports ${to}`);
  }
  return wrong;
}

/** One circle of imports among `edges` (its files in order), or null. */
function findCircle(edges: readonly [string, string][]): string[] | null {
  const next = new Map<string, string[]>();
  for (const [a, b] of edges) next.set(a, [...(next.get(a) ?? []), b]);
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string): string[] | null => {
    if (state.get(node) === 'done') return null;
    if (state.get(node) === 'open') return [...path.slice(path.indexOf(node)), node];
    state.set(node, 'open');
    path.push(node);
    for (const n of next.get(node) ?? []) {
      const circle = visit(n);
      if (circle) return circle;
    }
    path.pop();
    state.set(node, 'done');
    return null;
  };
  for (const node of next.keys()) {
    const circle = visit(node);
    if (circle) return circle;
  }
  return null;
}

/**
 * What src/mcp and src/cli may import of src/client: its public face (the member's contract and
 * how to open it, the wire's rules and texts, the store's readers, the probes doctor runs, and the
 * primitives papo signal --public's own state folder is written with: no-follow durable writes, the
 * backoff, the STUN codec), never an internal of the store or of the network (locks, request files,
 * the inbox, the outbox, the mesh, peer links).
 */
const CLIENT_FACE: Record<'mcp' | 'cli', readonly string[]> = {
  mcp: [
    'errors.ts',
    'log.ts',
    'member-api.ts',
    'net/health.ts',
    'net/ice-config.ts',
    'net/signal-token.ts',
    'store/log-format.ts',
    'wire/inert-text.ts',
    'wire/invite.ts',
    'wire/limits.ts',
    'wire/messages.ts',
    'wire/names.ts',
    // send's credential refusal matches the text as a reader sees it (ADR 0061, 0095).
    'wire/reader-view.ts',
    'wire/signal-url.ts',
  ],
  cli: [
    'errors.ts',
    'hosts.ts',
    'log.ts',
    'member-api.ts',
    'net/backoff.ts',
    'net/health.ts',
    'net/ice-config.ts',
    'net/signal-probe.ts',
    'net/signal-token.ts',
    'net/stun-message.ts',
    'net/turn-probe.ts',
    'open-member.ts',
    // papo say hands the say to the running papo mcp, or runs it itself (ADR 0102).
    'person/handed-say.ts',
    'person/person-say.ts',
    // papo status looks at the room as the running papo mcp it may ask looks (ADR 0103).
    'person/room-view.ts',
    'room/forget.ts',
    // papo review allow binds a rule to the keys the room holds for a name (ADR 0095).
    'room/review-binding.ts',
    'store/durable-file.ts',
    'store/home.ts',
    'store/log-file.ts',
    'store/log-format.ts',
    'store/no-follow.ts',
    'store/profile-file.ts',
    'store/profile-files.ts',
    'store/profile-store.ts',
    'store/review-decide.ts',
    'store/review.ts',
    // papo mcp forks the transport process while it loads the member (ADR 0091).
    'transport/early-fork.ts',
    'wire/about.ts',
    'wire/frames.ts',
    'wire/identity.ts',
    'wire/inert-text.ts',
    'wire/invite.ts',
    'wire/messages.ts',
    'wire/names.ts',
    'wire/room-crypto.ts',
    'wire/signal-url.ts',
  ],
};

test('each part of src/ imports only the parts below it: the client and the MCP server never load the signal server or the CLI', () => {
  const files = sources(SRC);
  assert.ok(files.length > 100, `found ${files.length} sources under ${SRC}`);
  const wrong: string[] = [];
  let seen = 0;
  for (const file of files) {
    const from = part(file);
    const allowed = ALLOWED[from];
    assert.ok(allowed !== undefined, `src/${from} has no rule here`);
    const text = readFileSync(file, 'utf8');
    for (const call of unreadableImports(text)) wrong.push(`${relative(SRC, file)} has ${call}`);
    for (const spec of relativeImports(text)) {
      seen++;
      const to = part(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
      if (to !== from && !allowed.includes(to)) wrong.push(`${relative(SRC, file)} imports ${spec}`);
    }
  }
  assert.ok(seen > 300, `read ${seen} imports`);
  assert.deepEqual(wrong, []);
});

test('inside src/client each folder stands on its floor: wire on errors, store on wire, net on neither (the signal seal aside), room on store, wire and the health types, the person side on the member contract, transport on net and the links contract', () => {
  const edges = importEdges().filter(([a]) => a.startsWith(`client${sep}`));
  assert.ok(edges.length > 150, `read ${edges.length} imports inside src/client`);
  assert.deepEqual(clientViolations(edges), []);
});

test('the floor rules of src/client catch each kind of wrong import', () => {
  const j = (...p: string[]) => p.join(sep);
  const planted: [string, string][] = [
    [j('client', 'wire', 'frames.ts'), j('client', 'store', 'outbox.ts')], // wire above its floor
    [j('client', 'store', 'outbox.ts'), j('client', 'room', 'presence.ts')], // store on the room
    [j('client', 'net', 'mesh.ts'), j('client', 'store', 'review.ts')], // the network on the disk
    [j('client', 'net', 'mesh.ts'), j('client', 'room', 'links.ts')], // the network on the room
    [j('client', 'net', 'mesh.ts'), j('client', 'wire', 'room-crypto.ts')], // the frame key, outside the seal
    [j('client', 'room', 'room-node.ts'), j('client', 'net', 'mesh.ts')], // the room on the network
    [j('client', 'room', 'room-node.ts'), j('client', 'transport', 'transport-process.ts')],
    [j('client', 'transport', 'transport-child.ts'), j('client', 'room', 'room-node.ts')],
    [j('client', 'transport', 'transport-child.ts'), j('client', 'store', 'outbox.ts')],
    [j('client', 'room', 'room-node.ts'), j('client', 'person', 'person-say.ts')], // an arrow back up
    [j('client', 'person', 'handed-say.ts'), j('client', 'room', 'room-node.ts')], // the room's internals
    [j('client', 'person', 'person-say.ts'), j('client', 'net', 'mesh.ts')], // the person on the network
    [j('client', 'person', 'room-view.ts'), j('client', 'transport', 'transport-process.ts')],
  ];
  const allowed: [string, string][] = [
    [j('client', 'net', 'signal-seal.ts'), j('client', 'wire', 'room-crypto.ts')],
    [j('client', 'room', 'presence.ts'), j('client', 'net', 'health.ts')],
    [j('client', 'transport', 'inline-transport.ts'), j('client', 'room', 'links.ts')],
    [j('client', 'open-member.ts'), j('client', 'transport', 'transport-process.ts')],
    [j('client', 'wire', 'frames.ts'), j('client', 'errors.ts')],
    [j('client', 'person', 'handed-say.ts'), j('client', 'member-api.ts')],
    [j('client', 'person', 'room-view.ts'), j('client', 'store', 'profile-store.ts')],
    [j('client', 'open-member.ts'), j('client', 'person', 'handed-say.ts')],
  ];
  assert.deepEqual(
    clientViolations(planted),
    planted.map(([a, b]) => `${a} imports ${b}`),
  );
  assert.deepEqual(clientViolations(allowed), []);
});

test('no import circle anywhere in src/', () => {
  const edges = importEdges();
  assert.equal(findCircle(edges), null);
  // The search finds a planted one.
  const planted: [string, string][] = [...edges, ['a.ts', 'b.ts'], ['b.ts', 'c.ts'], ['c.ts', 'a.ts']];
  assert.deepEqual(findCircle(planted), ['a.ts', 'b.ts', 'c.ts', 'a.ts']);
});

test('src/mcp and src/cli import only the public face of src/client, never an internal of the store or the network', () => {
  const wrong: string[] = [];
  for (const [from, to] of importEdges()) {
    const a = part(join(SRC, from)) as 'mcp' | 'cli';
    if ((a !== 'mcp' && a !== 'cli') || clientPart(to) === null) continue;
    if (!CLIENT_FACE[a].includes(clientPath(to))) wrong.push(`${from} imports ${to}`);
  }
  assert.deepEqual(wrong, []);
});

test('the import reader finds static, side-effect, re-exported and dynamic imports in any quote, and nothing else', () => {
  const text = [
    "import { a } from './a.js';",
    "import type { B } from '../client/b.js';",
    "import './side.js';",
    "const { c } = await import('../signal-server/server.js');",
    "export { d } from './d.js';",
    "export * from '../mcp/e.js';",
    'import {\n  f,\n  g,\n} from "../cli/f.js";',
    'const h = await import(`../signal-server/h.js`);',
    "type I = typeof import('../client/i.js');",
    "const s = 'from ../not-an-import';",
    "import { e } from 'node:fs';",
  ].join('\n');
  assert.deepEqual(relativeImports(text), [
    './a.js',
    '../client/b.js',
    './side.js',
    '../signal-server/server.js',
    './d.js',
    '../mcp/e.js',
    '../cli/f.js',
    '../signal-server/h.js',
    '../client/i.js',
  ]);
  assert.deepEqual(unreadableImports(text), []);
  // A computed path is reported: where it leads cannot be read.
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the text is source code to read, not a template
  const computed = 'import(`../${part}/x.js`)';
  assert.deepEqual(unreadableImports(`await import(name);\nawait ${computed};\nawait import('./ok.js');`), [
    'import(name)',
    computed,
  ]);
});
