// Each noun of the CLI (dist/src/commands/<noun>/) in a file of its own, dist/cli/noun-<noun>.js.
//
// The core is one ES module file, compiled whole when it loads (Node 20 has no compile cache
// for ES modules): the code of the fourteen nouns a command line does not name was a third
// of what `emuctl node list` compiled. esbuild's own code splitting would write the code
// that nouns share with the core and with each other into many small chunks, each a file
// to load at start-up. Here a module goes into a noun's file when that noun is the only
// one to use it and the core's own code (cli/core.js without the nouns) does not; every
// other module (the client, render and cli modules most nouns use, commands/shared,
// commander, chalk, got) stays in the core and reaches the nouns through one object the
// core exports, `__emuctlShared`: a function per module that evaluates it on first call
// (esbuild's import() of a bundled module) and resolves to its exports; the noun awaits it
// at load (some modules await yaml or ajv as they load, see apart-packages.mjs). A module
// is thus in one file only, evaluated once (one CliError class for `instanceof`, one
// commander), and only when a command needs it.
import { readdirSync, statSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The nouns: the folders of dist/src/commands/ with an index.js, but `shared`. */
export function nounNames(compiled) {
  const commands = join(compiled, 'commands');
  return readdirSync(commands).filter((name) => name !== 'shared' && statSync(join(commands, name)).isDirectory()).sort();
}

const SHARED = 'core-shared';

/**
 * Which modules stay in the core (absolute paths; see the header), from esbuild metafiles of
 * the core without the nouns (`coreMeta`) and of each noun with everything it imports
 * (`nounMetas`, noun → metafile), all built from `root`.
 */
export function sharedModules(root, coreMeta, nounMetas) {
  const graph = new Map();
  for (const meta of [coreMeta, ...nounMetas.values()]) {
    for (const [path, input] of Object.entries(meta.inputs)) graph.set(resolve(root, path), input.imports.filter((i) => !i.external).map((i) => resolve(root, i.path)));
  }
  const closure = (starts) => {
    const seen = new Set();
    const todo = [...starts];
    while (todo.length) {
      const path = todo.pop();
      if (seen.has(path)) continue;
      seen.add(path);
      todo.push(...(graph.get(path) ?? []));
    }
    return seen;
  };
  const core = new Set(Object.keys(coreMeta.inputs).map((path) => resolve(root, path)));
  const users = new Map();
  for (const meta of nounMetas.values()) {
    for (const path of closure(Object.keys(meta.inputs).map((p) => resolve(root, p)))) users.set(path, (users.get(path) ?? 0) + 1);
  }
  return closure([...core, ...[...users].filter(([, count]) => count > 1).map(([path]) => path)]);
}

/**
 * The plugin for a noun's build: what its modules import from the core's modules (`shared`,
 * absolute paths) or from packages becomes a module of namespace core-shared (its key: the
 * path below dist/src, or the package name), recorded in `keys`. `hostPackages` and node's
 * own modules are left to the other plugins.
 */
export function fromCore(compiled, shared, hostPackages, keys, exportNames) {
  return {
    name: 'from-core',
    setup(build) {
      build.onResolve({ filter: /^\.\/core\.js$/, namespace: SHARED }, () => ({ path: './core.js', external: true }));
      build.onResolve({ filter: /.*/ }, (args) => {
        if (args.namespace === SHARED || args.kind === 'entry-point' || isBuiltin(args.path) || hostPackages.test(args.path)) return undefined;
        let key;
        if (/^\.\.?\//.test(args.path)) {
          const target = resolve(args.resolveDir, args.path);
          if (!shared.has(target)) return undefined;
          key = relative(compiled, target).replace(/\\/g, '/');
        } else {
          key = args.path;
        }
        keys.add(key);
        return { path: key, namespace: SHARED };
      });
      build.onLoad({ filter: /.*/, namespace: SHARED }, (args) => {
        const names = exportNames?.get(args.path) ?? [];
        const lines = ["import { __emuctlShared } from './core.js';", `const m = await __emuctlShared[${JSON.stringify(args.path)}]();`];
        if (names.includes('default')) lines.push('export default m.default;');
        const named = names.filter((name) => name !== 'default');
        if (named.length) lines.push(`export const { ${named.join(', ')} } = m;`);
        return { contents: lines.join('\n'), loader: 'js', resolveDir: compiled };
      });
    },
  };
}

/** The names each shared module exports (read by importing it: our modules have no side effects at load). */
export async function sharedExportNames(compiled, keys) {
  const names = new Map();
  for (const key of keys) {
    const specifier = key.endsWith('.js') ? pathToFileURL(join(compiled, key)).href : key;
    names.set(key, Object.keys(await import(specifier)));
  }
  return names;
}

/** The core's entry: core.js, and `__emuctlShared` with a loader per shared module. */
export function coreEntry(keys) {
  const loaders = [...keys].sort().map((key) => `  ${JSON.stringify(key)}: () => import(${JSON.stringify(key.endsWith('.js') ? `./${key}` : key)}),`);
  return `export * from './cli/core.js';\nexport const __emuctlShared = {\n${loaders.join('\n')}\n};\n`;
}

/**
 * In the core: the nouns' import()s (commands/index.js) load their files; its import() of
 * commands/all.js (every noun at once, for help and completion) loads noun-all.js, made of
 * the same modules as the nouns' files.
 */
export function nounImports(compiled, nouns) {
  const index = resolve(compiled, 'commands', 'index.js');
  return {
    name: 'noun-imports',
    setup(build) {
      build.onResolve({ filter: /^\.\/([\w-]+\/index|all)\.js$/ }, (args) => {
        if (args.importer !== index || args.kind !== 'dynamic-import') return undefined;
        if (args.path === './all.js') return { path: './noun-all.js', external: true };
        const noun = args.path.split('/')[1];
        return nouns.includes(noun) ? { path: `./noun-${noun}.js`, external: true } : undefined;
      });
    },
  };
}

