// papo web's page builds every node with createElement and textContent (ADR 0106): no markup from
// a string anywhere in its scripts, sources and built files alike, and no <a> or <img> made from
// room text (links and images are shown as text).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { PAGE_FILES } from '../../src/cli/web/server.js';
import { ROOT } from '../support/papo.js';

const FORBIDDEN =
  /innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\s*\(|new Function|createContextualFragment|DOMParser|srcdoc/;

test("papo web's page never turns a string into markup, and never makes a link or an image", () => {
  const dirs = [join(ROOT, 'src/cli/web/page'), join(ROOT, 'dist/src/cli/web/page')];
  let read = 0;
  for (const dir of dirs)
    for (const name of readdirSync(dir).filter((n) => /\.(ts|js)$/.test(n))) {
      const text = readFileSync(join(dir, name), 'utf8');
      read++;
      assert.doesNotMatch(text, FORBIDDEN, `${dir}/${name}`);
      assert.doesNotMatch(
        text,
        /createElement\(\s*['"`](a|img|iframe|script|object|embed|link|style)['"`]/,
        name,
      );
      assert.doesNotMatch(text, /\.(href|src|action|formAction)\s*=/, name);
    }
  assert.ok(read >= 4, `read ${read} files`);
});

test('papo web serves every file of its page, and only those', () => {
  const built = readdirSync(join(ROOT, 'dist/src/cli/web/page')).filter((n) => /\.(js|html|css)$/.test(n));
  assert.deepEqual(
    Object.values(PAGE_FILES)
      .map((f) => f.file)
      .sort(),
    built.sort(),
  );
});
