#!/usr/bin/env node
// The emuctl launcher. Everything else lives in the bundled CLI that `npm run build`
// makes in dist/cli/ (scripts/bundle-cli.mjs).
import('../dist/cli/emuctl.js').catch((err) => {
  const notBuilt = err?.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist/cli/emuctl.js');
  process.stderr.write(notBuilt ? "emuctl: not built yet; run 'npm run build'\n" : `emuctl: ${err?.stack ?? err}\n`);
  // The CLI could not even load, so main.ts cannot set the exit status.
  process.exitCode = 1;
});
