// Makes the built CLI executable (tsc keeps the shebang but not the mode).
import { chmodSync } from 'node:fs';

chmodSync(new URL('../dist/src/cli/main.js', import.meta.url), 0o755);
