#!/usr/bin/env node
// The emuctl launcher (CommonJS, see bin/package.json: no ES module loader to start).
// Everything else lives in the bundled CLI that `npm run build` makes in dist/cli/.
try {
  require('../dist/cli/emuctl.cjs');
} catch (err) {
  const notBuilt = err && err.code === 'MODULE_NOT_FOUND' && String(err.message).includes('dist/cli/emuctl.cjs');
  process.stderr.write(notBuilt ? "emuctl: not built yet; run 'npm run build'\n" : `emuctl: ${(err && err.stack) || err}\n`);
  // The CLI could not even load, so main.ts cannot set the exit status.
  process.exitCode = 1;
}
