// Builds the native dataplane addon (native/ → build/Release/emuctl_dataplane.node)
// with node-gyp, offline: Node's own headers are used when they are installed
// beside the node binary (<prefix>/include/node). Never fails the install: when the
// addon cannot be built, it says why and the TypeScript dataplane is used.
// Then the VPCS confinement shim (native/vpcs-confine.c → build/Release/vpcs-confine.so),
// after the addon because `node-gyp rebuild` empties build/; without it VPCS nodes do not start.
// Incremental: make rebuilds only what changed. `--quiet` prints nothing on success.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
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

/** Builds the addon; the reason when it cannot. */
function buildAddon() {
  if (process.env.EMUCTL_SKIP_NATIVE) return 'EMUCTL_SKIP_NATIVE is set';
  const gyp = nodeGyp();
  if (!gyp) return 'node-gyp not found';
  const dir = nodedir();
  const makefile = join(root, 'build/Makefile');
  const configured = existsSync(makefile) && statSync(makefile).mtimeMs >= statSync(join(root, 'binding.gyp')).mtimeMs;
  const args = [gyp, configured ? 'build' : 'rebuild', ...(dir ? [`--nodedir=${dir}`] : [])];
  const result = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', timeout: 300_000 });
  if (result.status === 0) return undefined;
  const lines = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n').filter((l) => /error|not found|ERR!/i.test(l));
  return lines.slice(0, 3).join(' | ') || result.error?.message || `node-gyp exited with ${result.status}`;
}

/** Builds the LD_PRELOAD shim with the C compiler ($CC, else cc); the reason when it cannot. */
function buildVpcsShim() {
  const source = join(root, 'native/vpcs-confine.c');
  const output = join(root, 'build/Release/vpcs-confine.so');
  if (existsSync(output) && statSync(output).mtimeMs >= statSync(source).mtimeMs) return undefined;
  mkdirSync(dirname(output), { recursive: true });
  const cc = process.env.CC || 'cc';
  const result = spawnSync(cc, ['-shared', '-fPIC', '-O2', '-Wall', '-Wextra', '-std=gnu11', '-fvisibility=hidden', '-o', output, source, '-ldl'],
    { cwd: root, encoding: 'utf8', timeout: 120_000 });
  if (result.status === 0) return undefined;
  return `${result.stderr ?? ''}`.trim().split('\n').slice(0, 3).join(' | ') || result.error?.message || `${cc} exited with ${result.status}`;
}

const addonFailure = buildAddon();
if (addonFailure) console.warn(`emuctl: native dataplane not built (${addonFailure}); the TypeScript dataplane will be used`);
else if (!quiet) console.log('emuctl: native dataplane built (build/Release/emuctl_dataplane.node)');
const shimFailure = buildVpcsShim();
if (shimFailure) console.warn(`emuctl: VPCS confinement shim not built (${shimFailure}); VPCS nodes will not start until it is (or vpcs_unconfined is set)`);
else if (!quiet) console.log('emuctl: VPCS confinement shim built (build/Release/vpcs-confine.so)');
