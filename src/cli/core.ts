/** Everything a command run needs beyond `--version`: one module, so the bundle can split there. */
export { runCli } from './run.js';
export { createProcessOutput } from '../render/output.js';
