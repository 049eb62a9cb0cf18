// Each noun of the CLI (dist/src/commands/<noun>/) in a file of its own, dist/cli/noun-<noun>.js.
//
// The core is one ES module file, compiled whole when it loads (Node 20 has no compile cache
// for ES modules): the code of the fourteen nouns a command line does not name was a third
// of what `emuctl node list` compiled. esbuild's own code splitting would write the code
// that nouns share with the core and with each other into many small chunks, each a file
// to load at start-up; here instead everything a noun imports from outside its folder (the
// client, render, cli and lab modules, commands/shared, commander, chalk) stays in the core
// and reaches the noun through one object the core exports, `__emuctlShared`: a function
// per module that evaluates it on first call (esbuild's require() of a bundled module) and
// returns its exports. A module is thus evaluated once, in the core, whichever noun uses it
// (one CliError class for `instanceof`, one commander), and only when a noun needs it.
import { readdirSync, statSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The nouns: the folders of dist/src/commands/ with an index.js, but `shared`. */
export function nounNames(compiled) {
  const commands = join(compiled, 'commands');
  return readdirSync(commands).filter((name) => name !== 'shared' && statSync(join(commands, name)).isDirectory()).sort();
}

const SHARED = 'core-shared';
const ASYNC = 'import:';
const pathOf = (key) => key.replace(ASYNC, '');

/**
 * The plugin for a noun's build: what its modules import from outside its folder becomes a
 * module of namespace core-shared (its key: the path below dist/src, or the package name),
 * recorded in `keys`. `hostPackages` and node's own modules are left to the other plugins.
 */
export function fromCore(compiled, noun, hostPackages, keys, exportNames) {
  const own = resolve(compiled, 'commands', noun) + sep;
  const daemon = resolve(compiled, 'daemon') + sep;
  return {
    name: 'from-core',
    setup(build) {
      build.onResolve({ filter: /^\.\/core\.js$/, namespace: SHARED }, () => ({ path: './core.js', external: true }));
      build.onResolve({ filter: /.*/ }, (args) => {
        if (args.namespace === SHARED || args.kind === 'entry-point' || isBuiltin(args.path) || hostPackages.test(args.path)) return undefined;
        let key;
        if (/^\.\.?\//.test(args.path)) {
          const target = resolve(args.resolveDir, args.path);
          if (target.startsWith(own) || target.startsWith(daemon)) return undefined;
          key = relative(compiled, target).replace(/\\/g, '/');
        } else {
          key = args.path;
        }
        // A noun's import() of a shared module stays asynchronous (the lab modules await yaml and ajv).
        if (args.kind === 'dynamic-import') key = `${ASYNC}${key}`;
        keys.add(key);
        return { path: key, namespace: SHARED };
      });
      build.onLoad({ filter: /.*/, namespace: SHARED }, (args) => {
        const names = exportNames?.get(pathOf(args.path)) ?? [];
        const load = `__emuctlShared[${JSON.stringify(args.path)}]()`;
        const lines = ["import { __emuctlShared } from './core.js';", `const m = ${args.path.startsWith(ASYNC) ? `await ${load}` : load};`];
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
  for (const key of new Set([...keys].map(pathOf))) {
    const specifier = key.endsWith('.js') ? pathToFileURL(join(compiled, key)).href : key;
    names.set(key, Object.keys(await import(specifier)));
  }
  return names;
}

/** The core's entry: core.js, and `__emuctlShared` with a loader per shared module. */
export function coreEntry(keys) {
  const loaders = [...keys].sort().map((key) => {
    const path = pathOf(key);
    const specifier = JSON.stringify(path.endsWith('.js') ? `./${path}` : path);
    return `  ${JSON.stringify(key)}: () => ${key.startsWith(ASYNC) ? `import(${specifier})` : `require(${specifier})`},`;
  });
  return `export * from './cli/core.js';\nexport const __emuctlShared = {\n${loaders.join('\n')}\n};\n`;
}

/** In the core: the nouns' import()s (commands/index.js) load their files. */
export function nounImports(compiled, nouns) {
  const index = resolve(compiled, 'commands', 'index.js');
  return {
    name: 'noun-imports',
    setup(build) {
      build.onResolve({ filter: /^\.\/[\w-]+\/index\.js$/ }, (args) => {
        if (args.importer !== index || args.kind !== 'dynamic-import') return undefined;
        const noun = args.path.split('/')[1];
        return nouns.includes(noun) ? { path: `./noun-${noun}.js`, external: true } : undefined;
      });
    },
  };
}
