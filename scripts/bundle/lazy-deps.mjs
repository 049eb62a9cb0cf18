// esbuild plugins that make got and commander cheaper to load inside the CLI bundle,
// without changing what they do. Each one rewrites a pinned dependency's source as it is
// bundled, and warns (the build still succeeds) when the text it expects is gone.
import { readFile } from 'node:fs/promises';

/**
 * Modules that got and commander load when they load, for features the CLI does not use:
 * got's `http2` option (http2-wrapper, which loads node:http2), `dnsCache`
 * (cacheable-lookup), `cache` (cacheable-request, keyv) and https URLs (node:https,
 * node:tls); commander's executable subcommands (node:child_process). In the bundle their
 * imports become stand-ins that load the real module on first use (a property read, a
 * call, `new` or `instanceof`), through the bundle's require(). The three packages stay
 * out of the bundle (see lazyExternals), so their text is not even parsed at start-up.
 * Also node:crypto (got's request ids) and node:zlib (decompress-response), which load
 * only when used once REWRITES below have made their use lazy.
 */
const LAZY_IMPORTS = {
  'got/dist/source/core/options.js': ['node:tls', 'node:https', 'cacheable-lookup', 'http2-wrapper'],
  'got/dist/source/core/index.js': ['cacheable-request'],
  'got/dist/source/core/diagnostics-channel.js': ['node:crypto'],
  'decompress-response/index.js': ['node:zlib'],
  'commander/lib/command.js': ['node:child_process'],
};

/**
 * Rewrites that change when work is done, not what is done: [what it is for, pattern, replacement].
 * - got gives every request an id, `randomUUID()` (node:crypto, 17 built-in modules), only
 *   to put it in the messages it publishes on its diagnostics channels, which nothing
 *   reads unless someone subscribes. The id is made on first read of `_requestId`, and
 *   the messages read it on first read of their `requestId` (a getter, first property as
 *   before): the same id for the life of the request, made only when something looks.
 * - decompress-response checks at load whether node:zlib has zstd, which loads node:zlib
 *   for every command; the check runs when a response is zstd-encoded. Responses with no
 *   encoding (all the daemon sends) then never load node:zlib; gzip, deflate and br load it
 *   when they come.
 */
const REWRITES = {
  'got/dist/source/core/index.js': [
    ['request id made on first read', /^(\s*)_requestId = generateRequestId\(\);$/m,
      '$1#emuctlRequestId;\n$1get _requestId() {\n$1    return (this.#emuctlRequestId ??= generateRequestId());\n$1}'],
    ['messages read the request id when read', /^(\s*)(publish\w+)\(\{\n\s*requestId: this\._requestId,\n([\s\S]*?)\n\1\}\);$/gm,
      '$1$2(__emuctlWithRequestId(this, {\n$3\n$1}));'],
  ],
  'decompress-response/index.js': [
    ['no zstd check at load', /^const supportsZstd = typeof zlib\.createZstdDecompress === 'function';$/m, ''],
    ['zstd check for zstd responses', /\bif \(supportsZstd\)/, "if (contentEncoding === 'zstd' && typeof zlib.createZstdDecompress === 'function')"],
  ],
};

/** A diagnostics message whose requestId is read from the request when the message is read. */
const REQUEST_ID_HELPER = `
const __emuctlWithRequestId = (request, fields) => ({
  get requestId() { return request._requestId; },
  ...fields,
});
`;

/** The stand-in for a module's export: a function-shaped proxy (so `new` and calls work). */
const LAZY_HELPER = `
const __emuctlLazy = (load) => {
  let value;
  const real = () => (value ??= load());
  return new Proxy(function () {}, {
    get: (_, key) => Reflect.get(real(), key),
    has: (_, key) => Reflect.has(real(), key),
    apply: (_, self, args) => Reflect.apply(real(), self, args),
    construct: (_, args) => Reflect.construct(real(), args),
  });
};
// A CommonJS module is its own default export; an ES module required whole is its namespace.
const __emuctlDefault = (m) => (m && (m.__esModule || m[Symbol.toStringTag] === 'Module') ? m.default : m);
`;

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/**
 * `import A, { B as C } from 'pkg';`, `import { B } from 'pkg';` or `const A = require('pkg');`
 * → lazy consts; undefined when no such statement is there.
 */
function lazyImport(text, pkg) {
  const load = `require(${JSON.stringify(pkg)})`;
  const esm = new RegExp(`^import\\s+(?:(\\w+)\\s*,?\\s*)?(?:\\{([^}]*)\\})?\\s*from\\s*'${escape(pkg)}';$`, 'm');
  const cjs = new RegExp(`^const\\s+(\\w+)\\s*=\\s*require\\('${escape(pkg)}'\\);$`, 'm');
  const match = esm.exec(text);
  if (match && (match[1] || match[2])) {
    const [, defaultName, named = ''] = match;
    const consts = defaultName ? [`const ${defaultName} = __emuctlLazy(() => __emuctlDefault(${load}));`] : [];
    for (const part of named.split(',').map((s) => s.trim()).filter(Boolean)) {
      const [imported, local = imported] = part.split(/\s+as\s+/).map((s) => s.trim());
      consts.push(`const ${local} = __emuctlLazy(() => ${load}[${JSON.stringify(imported)}]);`);
    }
    return text.replace(esm, consts.join('\n'));
  }
  const required = cjs.exec(text);
  if (required) return text.replace(cjs, `const ${required[1]} = __emuctlLazy(() => ${load});`);
  return undefined;
}

/** The packages of LAZY_IMPORTS (not node's own modules). */
const LAZY_PACKAGES = [...new Set(Object.values(LAZY_IMPORTS).flat().filter((pkg) => !pkg.startsWith('node:')))];

/**
 * Leaves the packages that the stand-ins load out of the bundle: the stand-in's require()
 * then loads them from node_modules on first use (cacheable-lookup and cacheable-request are
 * ES modules: require() of an ES module needs Node 20.19 or later, for got options emuctl
 * never sets).
 */
export const lazyExternals = {
  name: 'lazy-externals',
  setup(build) {
    const filter = new RegExp(`^(${LAZY_PACKAGES.map(escape).join('|')})$`);
    build.onResolve({ filter }, (args) => (args.kind === 'require-call' ? { path: args.path, external: true } : undefined));
  },
};

/** Defers the rarely used modules of got and commander (see LAZY_IMPORTS). */
export const lazyImports = {
  name: 'lazy-imports',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/](got|commander|decompress-response)[\\/].*\.js$/ }, async (args) => {
      const path = args.path.replace(/\\/g, '/');
      const key = Object.keys(LAZY_IMPORTS).find((k) => path.endsWith(`node_modules/${k}`));
      if (!key) return undefined;
      let text = await readFile(args.path, 'utf8');
      const warnings = [];
      for (const pkg of LAZY_IMPORTS[key]) {
        const rewritten = lazyImport(text, pkg);
        if (rewritten === undefined) warnings.push({ text: `${key} no longer loads ${pkg} as expected: left as is` });
        else text = rewritten;
      }
      for (const [what, pattern, replacement] of REWRITES[key] ?? []) {
        if (!pattern.test(text)) warnings.push({ text: `${key}: "${what}" no longer applies: left as is` });
        pattern.lastIndex = 0;
        text = text.replace(pattern, replacement);
      }
      const helpers = LAZY_HELPER + (text.includes('__emuctlWithRequestId') ? REQUEST_ID_HELPER : '');
      return { contents: helpers + text, loader: 'js', warnings };
    });
  },
};

/**
 * got's type checker (@sindresorhus/is) builds two Intl.ListFormat objects when it loads,
 * only to word assertion failures; creating the first costs ~10 ms (ICU data). They are
 * built on first use instead: same text, no cost for the requests that never fail one.
 */
export const lazyListFormat = {
  name: 'lazy-list-format',
  setup(build) {
    build.onLoad({ filter: /[\\/]@sindresorhus[\\/]is[\\/]distribution[\\/]index\.js$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      const pattern = /new Intl\.ListFormat\(/g;
      if (!pattern.test(text)) {
        return { contents: text, loader: 'js', warnings: [{ text: '@sindresorhus/is builds no Intl.ListFormat any more: the lazy-list-format plugin can go' }] };
      }
      const helper = 'const __emuctlListFormat = (locale, options) => { let f; return { format: (list) => (f ??= new Intl.ListFormat(locale, options)).format(list) }; };\n';
      return { contents: helper + text.replace(pattern, '__emuctlListFormat('), loader: 'js' };
    });
  },
};
