// Which folder of src/ may import which (docs/architecture.md, "Modules"): the signal server and the
// client share only the protocol; the MCP server builds on the client; the CLI is the adapter
// that puts them together (the embedded signal server reaches the client from the CLI, as
// open-member.ts's hostSignalServer). Read from the TypeScript sources, type imports included.
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
