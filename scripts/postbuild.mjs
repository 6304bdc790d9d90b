// After tsc: makes the built CLI executable (tsc keeps the shebang but not the mode) and copies
// papo web's static files (its page's HTML and CSS) next to the page's compiled scripts.
//   node scripts/postbuild.mjs [DIST]   DIST: the build's folder (default: the checkout's dist)
import { chmodSync, copyFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const dist = resolve(process.argv[2] ?? join(root, 'dist'));
chmodSync(join(dist, 'src/cli/main.js'), 0o755);
for (const file of ['index.html', 'style.css'])
  copyFileSync(join(root, 'src/cli/web/page', file), join(dist, 'src/cli/web/page', file));
