// Bundles the compiled CLI (dist/src, after tsc) for bin/emuctl.js into dist/cli/:
//   emuctl.cjs   the entry: answers --version at once, else runs the core;
//   core.cjs     every command, the client, commander, chalk and got, in one
//                file: no module resolution and no file read per module at start-up;
//   core.cjs.cache  V8's code cache for core.cjs, made by a warm-up run here, so that a
//                command does not compile what it runs (src/cli/code-cache.ts loads both).
// Both are CommonJS: Node 20 has a code cache for scripts only, and CommonJS spares
// the start of the ES module loader (~5 ms; bin/ is CommonJS too). Left out of the
// core, and loaded through the entry's import() by the commands that need them: the
// daemon (dist/src/daemon, whose worker threads are files of their own), conf and ora.
// got and commander are bundled with a few of their imports made lazy (bundle/lazy-deps.mjs).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { lazyImports, lazyListFormat } from './bundle/lazy-deps.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const compiled = join(root, 'dist/src');
// Two levels below the root, like dist/src/version.js, whose way to package.json must hold here too.
const outdir = join(root, 'dist/cli');
const coreFile = join(outdir, 'core.cjs');

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  // Less text to read and hash at each start; names are kept (error classes report theirs).
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  legalComments: 'linked',
  logLevel: 'warning',
};

rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });

/** `import.meta.url` in CommonJS output: the file's own URL. */
const IMPORT_META_URL = { define: { 'import.meta.url': '__emuctlUrl' }, banner: { js: 'const __emuctlUrl = require("node:url").pathToFileURL(__filename).href;' } };

await build({
  ...common,
  ...IMPORT_META_URL,
  format: 'cjs',
  entryPoints: [join(compiled, 'cli/main.js')],
  outfile: join(outdir, 'emuctl.cjs'),
  define: { ...IMPORT_META_URL.define, EMUCTL_CORE_BUNDLE: JSON.stringify('./core.cjs') },
  // The unbundled way to the core, dead in the bundle: never followed.
  plugins: [{
    name: 'core-external',
    setup(b) {
      b.onResolve({ filter: /\/core\.js$/ }, () => ({ path: './core.js', external: true }));
    },
  }],
});

/** Packages only some commands need, left out of the core: conf (profile changes) and ora (spinners). */
const HOST_PACKAGES = /^(conf|ora)$/;
/** Specifiers of the dynamic imports the core leaves to the host (see code-cache.ts). */
const hostImports = new Set();
const daemonDir = join(compiled, 'daemon') + '/';

const core = await build({
  ...common,
  format: 'cjs',
  entryPoints: [join(compiled, 'cli/core.js')],
  outfile: coreFile,
  write: false,
  ...IMPORT_META_URL,
  plugins: [{
    name: 'host-imports',
    setup(b) {
      b.onResolve({ filter: HOST_PACKAGES }, (args) => {
        hostImports.add(args.path);
        return { path: args.path, external: true };
      });
      b.onResolve({ filter: /^\.\.?\// }, (args) => {
        const target = resolve(args.resolveDir, args.path);
        if (!target.startsWith(daemonDir)) return undefined;
        if (args.kind !== 'dynamic-import') return { errors: [{ text: `the CLI may load the daemon only with import(): ${args.path} in ${args.importer}` }] };
        const path = relative(outdir, target).replace(/\\/g, '/');
        hostImports.add(path);
        return { path, external: true };
      });
    },
  }, lazyImports, lazyListFormat],
});

for (const file of core.outputFiles) {
  let text = file.text;
  if (file.path === coreFile) {
    // vm.Script has no import() of its own (without an experimental flag): hand them to the host.
    for (const specifier of hostImports) {
      const call = `import(${JSON.stringify(specifier)})`;
      if (!text.includes(call)) throw new Error(`bundle-cli: expected ${call} in the core`);
      text = text.split(call).join(`__emuctlImport(${JSON.stringify(specifier)})`);
    }
    text = text.replace(/\bimport\(("node:[\w/]+")\)/g, '__emuctlImport($1)');
    const code = text.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`/g, '""');
    const left = /\bimport\((?!\s*\))/.exec(code);
    if (left) throw new Error(`bundle-cli: the core still has an import() vm.Script cannot run: …${code.slice(left.index - 40, left.index + 60)}…`);
  }
  writeFileSync(file.path, text);
}

await warmUp();

/**
 * Runs `emuctl node list` once against a throwaway loopback server inside this process,
 * then saves the code V8 compiled for it: the start-up path of every command (commander,
 * the context, got's request and response) and the node noun are then in the cache.
 */
async function warmUp() {
  const { compileBundle, importRelativeTo, saveCodeCache } = await import(pathToFileURL(join(compiled, 'cli/code-cache.js')).href);
  const bundle = compileBundle(coreFile);
  const { runCli, BufferOutput } = bundle.run(importRelativeTo(pathToFileURL(coreFile), (specifier) => import(specifier)));
  const project = { project_id: '00000000-0000-4000-8000-000000000001', name: 'warm-up', status: 'opened' };
  const node = { node_id: '00000000-0000-4000-8000-000000000002', project_id: project.project_id, compute_id: 'local', name: 'PC1',
    node_type: 'vpcs', status: 'stopped', console: 5000, console_type: 'telnet', console_host: '127.0.0.1', properties: {}, ports: [] };
  const answers = { '/v2/projects': [project], [`/v2/projects/${project.project_id}/nodes`]: [node], '/v2/computes': [{ compute_id: 'local', name: 'local' }] };
  const server = createServer((req, res) => {
    const body = answers[new URL(req.url, 'http://x').pathname];
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? { message: 'not found', status: 404 }));
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const home = mkdtempSync(join(tmpdir(), 'emuctl-bundle-'));
  try {
    const env = { EMUCTL_HOME: home, HOME: home, EMUCTL_URL: `http://127.0.0.1:${server.address().port}` };
    const out = new BufferOutput({ env });
    const code = await runCli(['node', 'list', '--project', project.name], { out, env });
    if (code !== 0) throw new Error(`bundle-cli: the warm-up run failed (${code}): ${out.stderrText()}`);
    saveCodeCache(bundle.script, `${coreFile}.cache`);
  } finally {
    server.close();
    rmSync(home, { recursive: true, force: true });
  }
}
