#!/usr/bin/env node
// Makes papo's package, papo-<version>.tgz: what a release attaches, what `npm publish` takes and
// what a user installs (ADR 0100). From a fresh clone: `npm ci && npm run package`.
//
//   node scripts/package.mjs [--destination DIR]   the tarball into DIR (default: the repository root);
//                                               its path is the last line on stdout
//   node scripts/package.mjs --guard               what `npm pack` and `npm publish` run (prepack) in
//                                               the checkout: refuses, and says to use this script
//
// The package is compiled afresh into a folder of its own, without source maps (the sources are
// not shipped, so a map would point at files the package lacks), so nothing the checkout's dist/
// holds (a module deleted since, a test build) can slip in. Its package.json is the checkout's
// without `scripts` and `devDependencies`: `prepare` builds a checkout and means nothing in an
// installed copy, where npm 11 still lists it as an install script at every install.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// fileURLToPath, not the URL's pathname: on Windows that is /C:/... (and %20 for a space).
const root = fileURLToPath(new URL('..', import.meta.url));
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const tarballName = `${manifest.name}-${manifest.version}.tgz`;

function fail(message) {
  process.stderr.write(`error: ${message}\n`);
  process.exit(1);
}

const args = process.argv.slice(2);
if (args.includes('--guard')) {
  fail(
    `papo's package is made with \`npm run package\`, not \`npm pack\` or \`npm publish\` in the checkout ` +
      '(ADR 0100: it is compiled without source maps, and its package.json carries no development ' +
      `scripts). Publish the tarball it makes: npm run package && npm publish ${tarballName}`,
  );
}
const at = args.indexOf('--destination');
const destination = resolve(at === -1 ? root : (args[at + 1] ?? fail('--destination needs a folder')));
const unknown = args.filter((a, i) => a !== '--destination' && i !== at + 1);
if (at === -1 ? args.length > 0 : unknown.length > 0)
  fail('usage: node scripts/package.mjs [--destination DIR] | --guard');

let tsc;
try {
  tsc = join(
    dirname(createRequire(join(root, 'package.json')).resolve('typescript/package.json')),
    'bin',
    'tsc',
  );
} catch {
  fail('the package is compiled with the development dependencies: run `npm ci` first');
}

const work = mkdtempSync(join(tmpdir(), 'papo-pack-'));
try {
  // The whole project compiles (tsconfig includes tests/ and bench/); only src/ is shipped.
  const build = join(work, 'build');
  const compiled = spawnSync(
    process.execPath,
    [tsc, '-p', join(root, 'tsconfig.json'), '--outDir', build, '--sourceMap', 'false'],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
  if (compiled.status !== 0) fail(`tsc failed (exit ${compiled.status ?? compiled.signal})`);
  // papo web's page has a project of its own (the browser's types), and static files postbuild copies.
  const page = spawnSync(
    process.execPath,
    [tsc, '-p', join(root, 'src/cli/web/page/tsconfig.json'), '--outDir', build, '--sourceMap', 'false'],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
  if (page.status !== 0) fail(`tsc failed on the web page (exit ${page.status ?? page.signal})`);
  const postbuild = spawnSync(process.execPath, [join(root, 'scripts/postbuild.mjs'), build], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (postbuild.status !== 0) fail(`postbuild failed (exit ${postbuild.status ?? postbuild.signal})`);

  const stage = join(work, 'package');
  mkdirSync(join(stage, 'dist'), { recursive: true });
  cpSync(join(build, 'src'), join(stage, 'dist', 'src'), { recursive: true });
  // tsc keeps the shebang but not the mode.
  chmodSync(join(stage, manifest.bin.papo), 0o755);
  // Everything else `files` names comes from the checkout as it is (modes kept: the coturn
  // entrypoint stays executable); npm adds README.md and LICENSE by itself.
  for (const entry of [...manifest.files, 'README.md', 'LICENSE']) {
    if (entry.startsWith('!') || entry === 'dist' || entry.startsWith('dist/')) continue;
    if (!existsSync(join(root, entry)))
      fail(`package.json's files names ${entry}, which is not in the checkout`);
    cpSync(join(root, entry), join(stage, entry), { recursive: true });
  }
  const { scripts: _scripts, devDependencies: _devDependencies, ...shipped } = manifest;
  writeFileSync(join(stage, 'package.json'), `${JSON.stringify(shipped, null, 2)}\n`);

  mkdirSync(destination, { recursive: true });
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const packed = spawnSync(npm, ['pack', stage, '--pack-destination', destination, '--loglevel=warn'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
    shell: process.platform === 'win32',
  });
  if (packed.status !== 0) fail(`npm pack failed (exit ${packed.status ?? packed.signal})`);
  const made = join(destination, tarballName);
  if (!existsSync(made)) fail(`npm pack did not make ${made}`);
  process.stdout.write(`${made}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
