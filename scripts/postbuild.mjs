// After tsc: makes the built CLI executable (tsc keeps the shebang but not the mode), copies
// papo web's static files (its page's HTML and CSS) next to the page's compiled scripts, and makes
// the transport process's one file (bundle-transport.mjs, ADR 0110).
//   node scripts/postbuild.mjs [DIST]   DIST: the build's folder (default: the checkout's dist)
import { chmodSync, copyFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleTransport } from './bundle-transport.mjs';

// fileURLToPath, not the URL's pathname: on Windows that is /C:/... (and %20 for a space).
const root = fileURLToPath(new URL('..', import.meta.url));
const dist = resolve(process.argv[2] ?? join(root, 'dist'));
chmodSync(join(dist, 'src/cli/main.js'), 0o755);
for (const file of ['index.html', 'style.css'])
  copyFileSync(join(root, 'src/cli/web/page', file), join(dist, 'src/cli/web/page', file));
await bundleTransport(dist);
