// Node's own modules in the CLI core, loaded when the code that uses them first runs.
//
// An ES module bundle imports every built-in module any of its code names at the top, so
// all of them load at start-up, through ES module facades that also read each of their
// exports (which loads more: webcrypto, process.report, util's parseArgs and MIMEType...).
// `emuctl node list` then loads child_process (the daemon noun), tty (chalk) and the rest
// for nothing. This plugin hands each built-in module to the code that imports it through a
// small module of the bundle: `const m = require("node:x"); export default m; export const
// { names } = m;`, evaluated with its first importer, as esbuild evaluates bundled modules
// behind an import() only when that import() runs.
import { isBuiltin } from 'node:module';

/**
 * Which names of which built-in modules the bundle imports, read from the ES module
 * imports esbuild prints for them (`import d,{a as b}from"node:x"`) in a build of the same
 * entry without tree shaking (so that imports of unused code are there too).
 * A namespace import (`import * as`) needs every export: that module is left as it is.
 */
export function builtinImports(bundleText) {
  const names = new Map();
  const whole = new Set();
  for (const [, defaultName, named, namespace, specifier] of bundleText.matchAll(/\bimport\s*([\w$]+)?\s*,?\s*(?:\{([^}]*)\}|(\*)\s*as\s*[\w$]+)?\s*from\s*"([^"]+)"/g)) {
    if (!isBuiltin(specifier)) continue;
    if (namespace) whole.add(specifier);
    const set = names.get(specifier) ?? new Set();
    names.set(specifier, set);
    if (defaultName) set.add('default');
    for (const part of (named ?? '').split(',').map((s) => s.trim()).filter(Boolean)) set.add(part.split(/\s+as\s+/)[0].trim());
  }
  return { names, whole };
}

/** The esbuild plugin, given builtinImports() of a first build. */
export function lazyBuiltins({ names, whole }) {
  return {
    name: 'lazy-builtins',
    setup(build) {
      build.onResolve({ filter: /.*/ }, (args) => {
        if (!isBuiltin(args.path)) return undefined;
        const lazy = args.kind === 'import-statement' && args.namespace !== 'builtin' && names.has(args.path) && !whole.has(args.path);
        return lazy ? { path: args.path, namespace: 'builtin' } : { path: args.path, external: true };
      });
      build.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => {
        const named = [...names.get(args.path)].filter((name) => name !== 'default');
        const lines = [`const m = require(${JSON.stringify(args.path)});`, 'export default m;'];
        if (named.length) lines.push(`export const { ${named.join(', ')} } = m;`);
        return { contents: lines.join('\n'), loader: 'js' };
      });
    },
  };
}
