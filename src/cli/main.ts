/**
 * The emuctl entry point, and the only place that sets the process's exit status.
 * `emuctl --version` is answered before commander or anything else is loaded,
 * so it costs little more than starting node.
 */
import { clientVersion } from './meta.js';

const argv = process.argv.slice(2);

if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(`${clientVersion()}\n`);
} else {
  const { runCli, createProcessOutput } = await import('./core.js');
  const code = await runCli(argv, { out: createProcessOutput(process.env), env: process.env });
  process.exitCode = code;
  // Output to pipes and files is written synchronously on Linux; wait for the
  // streams anyway, then exit so idle keep-alive sockets cannot hold the process.
  await Promise.all([drain(process.stdout), drain(process.stderr)]);
  process.exit(code);
}

function drain(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => stream.write('', () => resolve()));
}
