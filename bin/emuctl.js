#!/usr/bin/env node
// The emuctl launcher: everything else lives in the compiled CLI (npm run build).
import('../dist/src/cli/main.js').catch((err) => {
  const notBuilt = err?.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('cli/main.js');
  process.stderr.write(notBuilt ? "emuctl: not built yet; run 'npm run build'\n" : `emuctl: ${err?.stack ?? err}\n`);
  // The CLI could not even load, so main.ts cannot set the exit status.
  process.exitCode = 1;
});
