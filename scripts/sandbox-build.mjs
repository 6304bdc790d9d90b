// The build of Stryker's sandbox (stryker.config.mjs), which runs its buildCommand without a shell:
// tsc over the project (the mutants are switched at run time), then the transport process's bundle
// from that output (ADR 0110), so that a mutant in its code is in the forked process too.
//   node scripts/sandbox-build.mjs   (in the sandbox's root)
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { bundleTransport } from './bundle-transport.mjs';

const tsc = join(
  dirname(createRequire(join(process.cwd(), 'package.json')).resolve('typescript/package.json')),
  'bin',
  'tsc',
);
const built = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);
await bundleTransport(join(process.cwd(), 'dist'));
