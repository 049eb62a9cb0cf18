import { OperationError } from './errors.js';
import { consoleAddress, type Node } from './nodes.js';
import { connectShellConsole, type ShellConsole } from './shell-console.js';
import { connectVpcsConsole, parsePingOutput, type VpcsConsole } from './vpcs-console.js';

/** What `node exec` reports for one node (`--json`). */
export interface ExecResult {
  node: string;
  command: string;
  /** What the command printed, without the echo of the command and without the prompt. */
  output: string;
  /** The command's exit status (a shell's `$?`); VPCS has none, so emuctl gives `ping` one (0 when a reply came) and 0 to the rest. */
  exit_code: number;
  duration_ms: number;
}

/** A console that runs one command at a time and tells its output and status. */
export interface CommandConsole {
  exec(command: string, timeoutMs: number): Promise<{ output: string; exitCode: number }>;
  /** One ping of `address`: whether a reply came back, and if not, why. */
  ping(address: string, timeoutMs: number): Promise<{ ok: boolean; reason?: string }>;
  close(): void;
}

/** The exit status emuctl gives a VPCS command: `ping` fails (1) when no reply came back; anything else is 0. */
export function vpcsExitCode(command: string, output: string): number {
  if (!/^\s*ping\s/.test(command)) return 0;
  return parsePingOutput(output).received > 0 ? 0 : 1;
}

function vpcsCommands(console: VpcsConsole): CommandConsole {
  return {
    async exec(command, timeoutMs) {
      const output = await console.run(command, { timeoutMs });
      return { output, exitCode: vpcsExitCode(command, output) };
    },
    async ping(address, timeoutMs) {
      const output = await console.run(`ping ${address} -c 1 -w 1000`, { timeoutMs });
      const result = parsePingOutput(output);
      return result.received > 0 ? { ok: true } : { ok: false, reason: result.error ?? (output.split('\n').find((l) => l.trim()) ?? 'no reply').trim() };
    },
    close: () => console.close(),
  };
}

function shellCommands(shell: ShellConsole): CommandConsole {
  return {
    async exec(command, timeoutMs) {
      const { output, status } = await shell.run(command, timeoutMs);
      return { output, exitCode: status };
    },
    async ping(address, timeoutMs) {
      const { output, status } = await shell.run(`ping -c 1 -W 1 ${address}`, timeoutMs);
      const last = output.split('\n').map((l) => l.trim()).filter(Boolean).pop();
      return status === 0 ? { ok: true } : { ok: false, reason: last ?? `ping exited with ${status}` };
    },
    close: () => shell.close(),
  };
}

/**
 * Opens the console of a started node for commands: VPCS through its telnet console (one
 * command, then its prompt), any other telnet console (a QEMU guest's serial line) as a Unix
 * shell (each command followed by a marker echoing its status). Works against emuctl and GNS3
 * servers alike (consoles are telnet).
 */
export async function openCommandConsole(node: Node, serverUrl: string, timeoutMs: number): Promise<CommandConsole> {
  const where = consoleAddress(node, serverUrl);
  if (!where || node.console_type !== 'telnet') throw new OperationError(`node ${node.name} (${node.node_type}) has no telnet console to run commands on`);
  if (node.status !== 'started') throw new OperationError(`node ${node.name} is ${node.status}: start it with 'emuctl node start ${node.name}'`);
  if (node.node_type === 'vpcs') return vpcsCommands(await connectVpcsConsole(where.host, where.port, { timeoutMs }));
  return shellCommands(await connectShellConsole(where.host, where.port, { timeoutMs }));
}

/** Runs one command on the node's console and reports its output, status and duration. */
export async function execOnNode(node: Node, serverUrl: string, command: string, timeoutMs: number): Promise<ExecResult> {
  const started = Date.now();
  const console = await openCommandConsole(node, serverUrl, timeoutMs);
  try {
    const { output, exitCode } = await console.exec(command, Math.max(1, timeoutMs - (Date.now() - started)));
    return { node: node.name, command, output, exit_code: exitCode, duration_ms: Date.now() - started };
  } finally {
    console.close();
  }
}
