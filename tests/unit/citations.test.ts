// The files the comments of src/ and tests/ cite exist: a path under src/, tests/ or docs/ (an ADR
// by the number after docs/decisions/), and a module named bare (`room-node.ts`) somewhere in
// src/ or tests/. A file moved or renamed leaves its citations pointing nowhere; this lists them.
// Another project's file ("node-datachannel's src/lib/types.ts") is not this repository's.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../support/papo.js';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The comment text of each line that has one: `//` (alone or after code) and the lines of a block comment. */
function comments(text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  text.split('\n').forEach((l, i) => {
    const t = l.trim();
    const c = /^(\/\/|\/\*|\*)/.test(t) ? t : /\s\/\/\s(.*)$/.exec(l)?.[1];
    if (c !== undefined) out.push({ line: i + 1, text: c });
  });
  return out;
}

/** What a citation must match: the repository's files, and the ADRs by number. */
interface Repository {
  exists(path: string): boolean;
  adrs: ReadonlySet<string>;
  /** The base names of the .ts files under src/ and tests/. */
  modules: ReadonlySet<string>;
}

/** Each citation in the comments of `file` that names nothing in `repo`, as "file:line: cited". */
function unresolved(file: string, text: string, repo: Repository): string[] {
  const wrong: string[] = [];
  for (const c of comments(text)) {
    const bad = (cited: string) => wrong.push(`${file}:${c.line}: ${cited}`);
    // Not after "'s " (another project's file), nor inside a longer path or a URL.
    for (const m of c.text.matchAll(/(?<!['’]s )(?<![\w./:-])((?:src|tests|docs)\/[\w./-]*\w)/g)) {
      const path = m[1] as string;
      const adr = /^docs\/decisions\/(\d{4})\b/.exec(path)?.[1];
      if (adr !== undefined ? !repo.adrs.has(adr) : !repo.exists(path)) bad(path);
    }
    for (const m of c.text.matchAll(/(?<!['’]s )(?<![\w./:-])([\w-]+\.ts)\b/g)) {
      const name = m[1] as string;
      if (!repo.modules.has(name)) bad(name);
    }
  }
  return wrong;
}

function repository(): Repository {
  const files = [...sources(join(ROOT, 'src')), ...sources(join(ROOT, 'tests'))];
  return {
    exists: (path) => existsSync(join(ROOT, path)),
    adrs: new Set(readdirSync(join(ROOT, 'docs', 'decisions')).map((n) => n.slice(0, 4))),
    modules: new Set(files.map((f) => basename(f))),
  };
}

test('every file, folder and ADR a comment of src/ or tests/ cites exists', () => {
  const repo = repository();
  const files = [...sources(join(ROOT, 'src')), ...sources(join(ROOT, 'tests'))];
  assert.ok(files.length > 250, `found ${files.length} sources`);
  const wrong = files.flatMap((f) => unresolved(relative(ROOT, f), readFileSync(f, 'utf8'), repo));
  assert.deepEqual(wrong, []);
});

test('the citation reader finds a wrong path, ADR or module in any comment, and reads no code', () => {
  const repo = repository();
  const text = [
    '// The room node (src/client/room/room-node.ts, ADR 0063, docs/decisions/0063): fine.',
    '// Moved: src/client/room-node.ts; see docs/decisions/0999 and docs/nowhere.md.',
    '/**',
    " * NodeState in room-nod.ts. node-datachannel's src/lib/types.ts is another project's.",
    ' */',
    // The slashes escaped, so that this line itself holds no comment.
    "const cited = 'src/not/a/comment.ts'; \u002f\u002f after code: tests/support/nowhere.ts",
    '// A URL is not a path: https://example.test/src/x.ts',
  ].join('\n');
  assert.deepEqual(unresolved('planted.ts', text, repo), [
    'planted.ts:2: src/client/room-node.ts',
    'planted.ts:2: docs/decisions/0999',
    'planted.ts:2: docs/nowhere.md',
    'planted.ts:4: room-nod.ts',
    'planted.ts:6: tests/support/nowhere.ts',
  ]);
});
