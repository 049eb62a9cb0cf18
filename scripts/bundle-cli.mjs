// Bundles the compiled CLI (dist/src, after tsc) for bin/emuctl.js into dist/cli/, as ES
// modules (the project is ESM throughout):
//   emuctl.js         the entry: answers --version at once, else imports the core;
//   core.js           the client, cli, render and lab modules, commander, chalk and got:
//                     no module resolution at start-up. Code behind an import() (the got
//                     client, the lab modules) is only parsed until a command line needs it;
//   noun-<noun>.js    each noun's commands, and the modules only that noun uses: a command
//                     line compiles the core and the one noun it names (bundle/noun-files.mjs);
//   noun-all.js       every noun, for help and completion;
//   pkg-yaml.js, pkg-ajv.js  what lab files need, imported when one is read or written
//                     (bundle/apart-packages.mjs).
// Left out, and imported by the commands that need them: the daemon (dist/src/daemon,
// whose worker threads are files of their own), conf, ora and ws. got is bundled with its
// unused parts left out too, loaded on first use (bundle/lazy-deps.mjs). Node's own modules
// load when the code that uses them runs, not all at start-up (bundle/lazy-builtins.mjs).
// `--metafile` also writes dist/cli/meta.json (what is in each file, for esbuild's analyser).
import { rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { builtinImports, lazyBuiltins } from './bundle/lazy-builtins.mjs';
import { apartPackages } from './bundle/apart-packages.mjs';
import { lazyExternals, lazyImports, lazyListFormat } from './bundle/lazy-deps.mjs';
import { coreEntry, fromCore, nounImports, nounNames, sharedExportNames, sharedModules } from './bundle/noun-files.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const compiled = join(root, 'dist/src');
// Two levels below the root, like dist/src/version.js, whose way to package.json must hold here too.
const outdir = join(root, 'dist/cli');
const daemonDir = join(compiled, 'daemon') + '/';

/** Packages only some commands need, left out of the core: conf (profile changes), ora (spinners), ws (events). */
const HOST_PACKAGES = /^(conf|ora|ws)$/;

/**
 * A `require` for the core, for node's built-in modules: commander is CommonJS and asks for
 * them with require(), as do bundle/lazy-deps.mjs and bundle/lazy-builtins.mjs.
 */
const REQUIRE_BANNER = "import { createRequire as __emuctlCreateRequire } from 'node:module';\n"
  + 'const require = __emuctlCreateRequire(import.meta.url);';

const common = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Less text to read and parse at each start; names are kept (error classes report theirs).
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  legalComments: 'linked',
  logLevel: 'warning',
};

rmSync(outdir, { recursive: true, force: true });

const entryOptions = {
  ...common,
  entryPoints: [join(compiled, 'cli/main.js')],
  outfile: join(outdir, 'emuctl.js'),
  // require() for node:fs too: an ES module import of it builds a facade that reads every
  // export of node:fs, which loads its streams (the core loads node:module for its require anyway).
  banner: { js: REQUIRE_BANNER },
};
const coreApart = {
  name: 'core-apart',
  setup(b) {
    // The core is the other file, beside this one.
    b.onResolve({ filter: /^\.\/core\.js$/ }, () => ({ path: './core.js', external: true }));
  },
};
const entrySurvey = await build({ ...entryOptions, plugins: [coreApart], write: false, treeShaking: false, sourcemap: false, legalComments: 'none' });
await build({ ...entryOptions, plugins: [lazyBuiltins(builtinImports(entrySurvey.outputFiles.find((file) => file.path.endsWith('.js')).text)), coreApart] });

/** Leaves out the packages only some commands need, and the daemon. */
const hostImports = {
  name: 'host-imports',
  setup(b) {
    b.onResolve({ filter: HOST_PACKAGES }, (args) => ({ path: args.path, external: true }));
    b.onResolve({ filter: /^\.\.?\// }, (args) => {
      const target = resolve(args.resolveDir, args.path);
      if (!target.startsWith(daemonDir)) return undefined;
      if (args.kind !== 'dynamic-import') return { errors: [{ text: `the CLI may load the daemon only with import(): ${args.path} in ${args.importer}` }] };
      // Emitted as written: the way from dist/cli/ to dist/src/daemon/.
      return { path: relative(outdir, target).replace(/\\/g, '/'), external: true };
    });
  },
};

const apart = apartPackages(compiled, ['yaml', 'ajv']);
const nouns = nounNames(compiled);
const nounOptions = (noun) => ({
  ...common,
  entryPoints: [join(compiled, 'commands', noun, 'index.js')],
  outfile: join(outdir, `noun-${noun}.js`),
  banner: { js: REQUIRE_BANNER },
});
const surveyOptions = { write: false, metafile: true, treeShaking: false, sourcemap: false, legalComments: 'none' };
// First which modules stay in the core: those of the core without the nouns, and those more
// than one noun uses (see bundle/noun-files.mjs).
const coreAlone = await build({ ...common, ...surveyOptions, entryPoints: [join(compiled, 'cli/core.js')], outfile: join(outdir, 'core.js'), plugins: [hostImports, nounImports(compiled, nouns), lazyExternals, apart.plugin] });
const nounMetas = new Map();
for (const noun of nouns) nounMetas.set(noun, (await build({ ...nounOptions(noun), ...surveyOptions, plugins: [hostImports, apart.plugin] })).metafile);
const shared = sharedModules(process.cwd(), coreAlone.metafile, nounMetas);
// Then what the nouns import from the core, and the built-in modules and names they import
// (see lazy-builtins.mjs).
const sharedKeys = new Set();
const nounSurveys = [];
for (const noun of nouns) {
  const plugins = [hostImports, apart.plugin, fromCore(compiled, shared, HOST_PACKAGES, sharedKeys)];
  // Silent: without the export names yet, esbuild warns of every import from the core.
  nounSurveys.push(await build({ ...nounOptions(noun), ...surveyOptions, plugins, logLevel: 'silent' }));
}
const exportNames = await sharedExportNames(compiled, sharedKeys);
const nounBuiltins = builtinImports(nounSurveys.flatMap((r) => r.outputFiles).filter((file) => file.path.endsWith('.js')).map((file) => file.text).join('\n'));
const metafiles = [];
const nounPlugins = () => [lazyBuiltins(nounBuiltins), hostImports, apart.plugin, fromCore(compiled, shared, HOST_PACKAGES, new Set(), exportNames)];
for (const noun of nouns) metafiles.push((await build({ ...nounOptions(noun), metafile: true, plugins: nounPlugins() })).metafile);
// Every noun in one file too, for help and completion (commands/all.js): one file to load, not fifteen.
const all = await build({ ...nounOptions('all'), entryPoints: [join(compiled, 'commands/all.js')], metafile: true, plugins: nounPlugins() });
metafiles.push(all.metafile);

const coreOptions = {
  ...common,
  stdin: { contents: coreEntry(sharedKeys), resolveDir: compiled, sourcefile: 'core-entry.js' },
  outfile: join(outdir, 'core.js'),
  banner: { js: REQUIRE_BANNER },
};
const plugins = [hostImports, nounImports(compiled, nouns), lazyExternals, lazyImports, lazyListFormat, apart.plugin];
// Then the built-in modules the core imports, and which of their names.
const survey = await build({ ...coreOptions, plugins, write: false, treeShaking: false, sourcemap: false, legalComments: 'none' });
const imports = builtinImports(survey.outputFiles.find((file) => file.path.endsWith('.js')).text);
const core = await build({ ...coreOptions, metafile: true, plugins: [lazyBuiltins(imports), ...plugins] });
metafiles.push(core.metafile);

for (const options of apart.packageBuilds(outdir, root)) await build({ ...common, ...options, banner: { js: REQUIRE_BANNER } });

if (process.argv.includes('--metafile')) {
  const merged = { inputs: {}, outputs: {} };
  for (const m of metafiles) {
    Object.assign(merged.inputs, m.inputs);
    Object.assign(merged.outputs, m.outputs);
  }
  writeFileSync(join(outdir, 'meta.json'), JSON.stringify(merged));
}
