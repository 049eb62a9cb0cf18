// Runs one attempt of a test's probe on one node, through the public API only: the exec route for
// exec:, the node's console (telnet; the exec route for docker nodes) for console: and ping:.
import type { ApiClient } from '../../client/api.js';
import { execInNode, openCommandConsole } from '../../client/node-exec.js';
import type { Node } from '../../client/nodes.js';
import { checkOutput, type Mismatch } from './expect.js';
import type { Expectations } from './model.js';
import { splitShellWords } from '../../util/shell-words.js';

/** How one attempt ended: passed, or why not. */
export type Attempt = { ok: true } | { ok: false; message: string; mismatches?: Mismatch[] };

/** How many pings one attempt of a ping test sends, at most (the first may be lost to ARP). */
const PINGS_PER_ATTEMPT = 3;

/** Runs `command` through the exec route and checks its output. */
export async function execAttempt(api: ApiClient, node: Node, command: string, expect: Expectations, timeoutMs: number): Promise<Attempt> {
  try {
    const answer = await execInNode(api, node, splitShellWords(command), timeoutMs);
    return judged(expect, answer.output.replace(/\n$/, ''), answer.exit_code);
  } catch (err) {
    return { ok: false, message: `exec on ${node.name}: ${(err as Error).message}` };
  }
}

/** Sends one line to the node's console, reads what it prints until its prompt, and checks it. */
export async function consoleAttempt(api: ApiClient, node: Node, send: string, expect: Expectations, timeoutMs: number): Promise<Attempt> {
  try {
    const console = await openCommandConsole(node, api, timeoutMs);
    try {
      const { output, exitCode } = await console.exec([send], timeoutMs);
      return judged(expect, output, exitCode);
    } finally {
      console.close();
    }
  } catch (err) {
    return { ok: false, message: `console of ${node.name}: ${(err as Error).message}` };
  }
}

/** Pings `address` from the node until a reply comes back (a few pings at most). */
export async function pingAttempt(api: ApiClient, node: Node, address: string, timeoutMs: number): Promise<Attempt> {
  try {
    const console = await openCommandConsole(node, api, timeoutMs);
    try {
      let reason = 'no reply';
      for (let i = 0; i < PINGS_PER_ATTEMPT; i++) {
        const result = await console.ping(address, timeoutMs);
        if (result.ok) return { ok: true };
        reason = result.reason ?? reason;
      }
      return { ok: false, message: `${node.name} cannot ping ${address}: ${reason}` };
    } finally {
      console.close();
    }
  } catch (err) {
    return { ok: false, message: `${node.name} cannot ping ${address}: ${(err as Error).message}` };
  }
}

function judged(expect: Expectations, output: string, exitCode: number): Attempt {
  const mismatches = checkOutput(expect, output, exitCode);
  return mismatches.length ? { ok: false, message: mismatches.map((m) => `expected ${m.expected}`).join('; '), mismatches } : { ok: true };
}
