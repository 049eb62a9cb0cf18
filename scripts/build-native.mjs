// Builds the native dataplane addon (native/ → build/Release/emuctl_dataplane.node)
// with node-gyp, offline: Node's own headers are used when they are installed
// beside the node binary (<prefix>/include/node). Never fails the install: when the
// addon cannot be built, it says why and the TypeScript dataplane is used.
// Incremental: make rebuilds only what changed. `--quiet` prints nothing on success.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const quiet = process.argv.includes('--quiet');

function nodeGyp() {
  // npm sets npm_config_node_gyp to its bundled node-gyp; otherwise look beside npm.
  const candidates = [
    process.env.npm_config_node_gyp,
    join(dirname(process.execPath), '../lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js'),
  ].filter(Boolean);
  return candidates.find((c) => existsSync(c));
}

function nodedir() {
  if (process.env.npm_config_nodedir) return process.env.npm_config_nodedir;
  const prefix = resolve(dirname(process.execPath), '..');
  return existsSync(join(prefix, 'include/node/node_api.h')) ? prefix : undefined;
}

function skip(reason) {
  console.warn(`emuctl: native dataplane not built (${reason}); the TypeScript dataplane will be used`);
  process.exit(0);
}

if (process.env.EMUCTL_SKIP_NATIVE) skip('EMUCTL_SKIP_NATIVE is set');
const gyp = nodeGyp();
if (!gyp) skip('node-gyp not found');
const dir = nodedir();
const makefile = join(root, 'build/Makefile');
const configured = existsSync(makefile) && statSync(makefile).mtimeMs >= statSync(join(root, 'binding.gyp')).mtimeMs;
const args = [gyp, configured ? 'build' : 'rebuild', ...(dir ? [`--nodedir=${dir}`] : [])];
const result = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', timeout: 300_000 });
if (result.status !== 0) {
  const lines = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n').filter((l) => /error|not found|ERR!/i.test(l));
  skip(lines.slice(0, 3).join(' | ') || result.error?.message || `node-gyp exited with ${result.status}`);
}
if (!quiet) console.log('emuctl: native dataplane built (build/Release/emuctl_dataplane.node)');
