import { apiPath, type ApiClient } from './api.js';
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
  /** Runs the command given as words: a console line joins them with spaces, a container's exec keeps them apart. */
  exec(words: readonly string[], timeoutMs: number): Promise<{ output: string; exitCode: number }>;
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
    async exec(words, timeoutMs) {
      const command = words.join(' ');
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

/** One `ping -c 1 -W 1` in a Unix shell or container: its exit status says whether a reply came, its last line why not. */
function pingOutcome(output: string, status: number): { ok: boolean; reason?: string } {
  const last = output.split('\n').map((l) => l.trim()).filter(Boolean).pop();
  return status === 0 ? { ok: true } : { ok: false, reason: last ?? `ping exited with ${status}` };
}

function shellCommands(shell: ShellConsole): CommandConsole {
  return {
    async exec(words, timeoutMs) {
      const { output, status } = await shell.run(words.join(' '), timeoutMs);
      return { output, exitCode: status };
    },
    async ping(address, timeoutMs) {
      const { output, status } = await shell.run(`ping -c 1 -W 1 ${address}`, timeoutMs);
      return pingOutcome(output, status);
    },
    close: () => shell.close(),
  };
}

/** What POST /v2/projects/{project_id}/nodes/{node_id}/exec answers (emuctl's docker nodes). */
interface ExecAnswer {
  output: string;
  exit_code: number;
}

/** How much longer than the command's own timeout the HTTP call may take (the server answers when the command ends or times out). */
const EXEC_HTTP_MARGIN_MS = 10_000;

/**
 * Runs argv in a docker node's container through the exec route: the words go as they are (no
 * shell, no re-splitting), and the real exit status comes back. Servers without it (GNS3) answer
 * 404; kinds without exec 409.
 */
export function execInNode(api: ApiClient, node: Node, words: readonly string[], timeoutMs: number): Promise<ExecAnswer> {
  const timeout = Math.max(1, Math.ceil(timeoutMs / 1000));
  return api.post<ExecAnswer>(apiPath('projects', node.project_id, 'nodes', node.node_id, 'exec'), { command: words, timeout }, { timeoutMs: timeout * 1000 + EXEC_HTTP_MARGIN_MS });
}

function dockerCommands(api: ApiClient, node: Node): CommandConsole {
  const exec = async (words: readonly string[], timeoutMs: number) => {
    const answer = await execInNode(api, node, words, timeoutMs);
    return { output: answer.output.replace(/\n$/, ''), exitCode: answer.exit_code };
  };
  return {
    exec,
    async ping(address, timeoutMs) {
      const { output, exitCode } = await exec(['ping', '-c', '1', '-W', '1', address], timeoutMs);
      return pingOutcome(output, exitCode);
    },
    close: () => undefined,
  };
}

/**
 * Opens a started node for commands: a docker node through the exec route (emuctl servers),
 * VPCS through its telnet console (one command, then its prompt), any other telnet console (a
 * QEMU guest's serial line) as a Unix shell (each command followed by a marker echoing its
 * status). Consoles work against emuctl and GNS3 servers alike (they are telnet).
 */
export async function openCommandConsole(node: Node, api: ApiClient, timeoutMs: number): Promise<CommandConsole> {
  if (node.node_type === 'docker') {
    if (node.status !== 'started') throw new OperationError(`node ${node.name} is ${node.status}: start it with 'emuctl node start ${node.name}'`);
    return dockerCommands(api, node);
  }
  const serverUrl = api.url;
  const where = consoleAddress(node, serverUrl);
  if (!where || node.console_type !== 'telnet') throw new OperationError(`node ${node.name} (${node.node_type}) has no telnet console to run commands on`);
  if (node.status !== 'started') throw new OperationError(`node ${node.name} is ${node.status}: start it with 'emuctl node start ${node.name}'`);
  if (node.node_type === 'vpcs') return vpcsCommands(await connectVpcsConsole(where.host, where.port, { timeoutMs }));
  return shellCommands(await connectShellConsole(where.host, where.port, { timeoutMs }));
}

/** Runs one command (its words) on the node and reports its output, status and duration. */
export async function execOnNode(node: Node, api: ApiClient, words: readonly string[], timeoutMs: number): Promise<ExecResult> {
  const started = Date.now();
  const console = await openCommandConsole(node, api, timeoutMs);
  try {
    const { output, exitCode } = await console.exec(words, Math.max(1, timeoutMs - (Date.now() - started)));
    return { node: node.name, command: words.join(' '), output, exit_code: exitCode, duration_ms: Date.now() - started };
  } finally {
    console.close();
  }
}
