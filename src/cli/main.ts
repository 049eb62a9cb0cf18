/**
 * The emuctl entry point, and the only place that sets the process's exit status.
 * `emuctl --version` is answered before commander or anything else is loaded,
 * so it costs little more than starting node.
 */
import { clientVersion } from './meta.js';

/** Set by scripts/bundle-cli.mjs in the bundled entry: the file of the core bundle, beside it. */
declare const EMUCTL_CORE_BUNDLE: string | undefined;

type Core = typeof import('./core.js');

const argv = process.argv.slice(2);

if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(`${clientVersion()}\n`);
} else {
  // Not a top-level await: the bundled entry is CommonJS (see scripts/bundle-cli.mjs).
  void loadCore().then(async ({ runCli, createProcessOutput }) => {
    const code = await runCli(argv, { out: createProcessOutput(process.env), env: process.env });
    process.exitCode = code;
    // Output to pipes and files is written synchronously on Linux; wait for the
    // streams anyway, then exit so idle keep-alive sockets cannot hold the process.
    await Promise.all([drain(process.stdout), drain(process.stderr)]);
    process.exit(code);
  });
}

/** The core: in the bundle, the core bundle through its code cache; else the compiled modules. */
async function loadCore(): Promise<Core> {
  if (typeof EMUCTL_CORE_BUNDLE === 'string') {
    const { loadBundle } = await import('./code-cache.js');
    return loadBundle(new URL(EMUCTL_CORE_BUNDLE, import.meta.url), (specifier) => import(specifier)) as unknown as Core;
  }
  return import('./core.js');
}

function drain(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => stream.write('', () => resolve()));
}
