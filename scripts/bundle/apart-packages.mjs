// Packages that only a few commands use, bundled into files of their own beside the core.
//
// The core is one ES module file, compiled whole when it loads (Node 20 has no compile cache
// for ES modules), and compiling it is most of what importing it costs. yaml and ajv were
// 40% of its text, for the lab library (dist/src/lab/) only. Here the lab modules' imports
// of them become `const { … } = await import(…)` of dist/cli/pkg-<name>.js (esbuild then
// evaluates those modules, reached only through import() already, as async modules), and
// each package is bundled into that file with the names the core asks for.
import { readFile } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/** The plugin, and what it collected: `names` (package → the names imported), `fileOf(package)`. */
export function apartPackages(compiled, packages) {
  const names = new Map(packages.map((pkg) => [pkg, new Set()]));
  const fileOf = (pkg) => `pkg-${pkg.replace(/[^\w-]/g, '_')}.js`;
  const own = resolve(compiled) + sep;
  const pattern = new RegExp(`^import\\s*\\{([^}]*)\\}\\s*from\\s*'(${packages.map(escape).join('|')})';$`, 'gm');
  const plugin = {
    name: 'apart-packages',
    setup(build) {
      build.onLoad({ filter: /\.js$/ }, async (args) => {
        if (!args.path.startsWith(own)) return undefined;
        const text = await readFile(args.path, 'utf8');
        if (!packages.some((pkg) => text.includes(`'${pkg}'`))) return undefined;
        const rewritten = text.replace(pattern, (_, named, pkg) => {
          const parts = named.split(',').map((s) => s.trim()).filter(Boolean).map((part) => part.split(/\s+as\s+/).map((s) => s.trim()));
          for (const [imported] of parts) names.get(pkg).add(imported);
          return `const { ${parts.map(([imported, local = imported]) => (local === imported ? imported : `${imported}: ${local}`)).join(', ')} } = await import('${pkg}');`;
        });
        return { contents: rewritten, loader: 'js' };
      });
      build.onResolve({ filter: new RegExp(`^(${packages.map(escape).join('|')})$`) }, (args) => {
        if (args.kind !== 'dynamic-import') return { errors: [{ text: `${args.path} may only be imported with a named import in ${compiled} (it is kept out of the core): ${args.importer}` }] };
        return { path: `./${fileOf(args.path)}`, external: true };
      });
    },
  };
  /** esbuild options that bundle each package into its file, with the names the core imported. */
  const packageBuilds = (outdir, resolveDir) => packages.filter((pkg) => names.get(pkg).size).map((pkg) => ({
    stdin: { contents: `export { ${[...names.get(pkg)].join(', ')} } from '${pkg}';`, resolveDir, sourcefile: `${pkg}-exports.js` },
    outfile: join(outdir, fileOf(pkg)),
  }));
  return { plugin, packageBuilds };
}
