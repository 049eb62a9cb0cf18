/** Everything a command run needs beyond `--version`: one module, so the bundle can split there. */
export { runCli } from './run.js';
export { createProcessOutput } from '../render/output.js';
// For the bundle's warm-up run (scripts/bundle-cli.mjs), which fills the code cache.
export { BufferOutput } from '../render/buffer-output.js';
