// The two ways a container's interface reaches a link: an emuctl 2-port dataplane wire (UDP NIO
// on port 0, TAP NIO on port 1, as a docker node's adapter is wired) in a process of its own,
// or GNS3's ubridge driven through its hypervisor port as GNS3 drives it (a bridge with a UDP
// NIO and a TAP NIO). Each creates its TAP (non-persistent: it goes when the process closes it).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { accessSync, constants, existsSync } from 'node:fs';
import net from 'node:net';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HostConfig } from '../lib/dataplane-host.js';
import { kill, ready } from '../lib/targets.js';
import { sleep } from '../lib/udpblast.js';

export interface TapWire {
  name: string;
  /** The TAP the wire holds. */
  tap: string;
  /** The port the wire's UDP NIO binds, on 127.0.0.1. */
  udpPort: number;
  /** The port its UDP NIO is connected to: udpblast binds it to send, udpsink to count. */
  peerPort: number;
  /** The process that forwards, whose CPU time is charged to the frames. */
  pid: number;
  stop(): Promise<void>;
}

/** The command line that runs `bin` on CPU `cpu` only (taskset), or as it is when `cpu` is undefined. */
export function onCpu(cpu: number | undefined, bin: string, args: string[]): [string, string[]] {
  return cpu === undefined ? [bin, args] : ['taskset', ['-c', String(cpu), bin, ...args]];
}

/** An emuctl wire on the given engine (native or js), its process (all its threads) on `cpu` if given. */
export async function emuctlWire(engine: string, tap: string, udpPort: number, peerPort: number, cpu?: number): Promise<TapWire> {
  const config: HostConfig = { engine, nodes: [{ kind: 'hub', ports: [{ port: 0, lport: udpPort, rport: peerPort }, { port: 1, tap }] }] };
  const script = fileURLToPath(new URL('../lib/dataplane-host.js', import.meta.url));
  const child = spawn(...onCpu(cpu, process.execPath, [script, JSON.stringify(config)]), { stdio: ['pipe', 'pipe', 'inherit'] });
  await ready(child, 'dataplane host');
  return { name: `emuctl ${engine}`, tap, udpPort, peerPort, pid: child.pid!, stop: () => stopAndWaitGone(child, tap) };
}

const UBRIDGE_HELP =
  'ubridge not found: set UBRIDGE=/path/to/ubridge or put it on PATH (build it outside the repository: ' +
  'fetch https://github.com/GNS3/ubridge, apt-get install libpcap-dev, make; see bench/README.md "TAP path vs ubridge")';

/** The ubridge binary: UBRIDGE, else the first `ubridge` on PATH; throws one line saying how to build it. */
export function findUbridge(): string {
  const candidates = process.env.UBRIDGE ? [process.env.UBRIDGE] : (process.env.PATH ?? '').split(delimiter).filter(Boolean).map((d) => join(d, 'ubridge'));
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      // not this one
    }
  }
  throw new Error(UBRIDGE_HELP);
}

async function freeTcpPort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as net.AddressInfo).port;
  server.close();
  await once(server, 'close');
  return port;
}

/** A connection to ubridge's hypervisor port; `send` resolves with the final reply line, rejects on an error code. */
async function hypervisor(port: number): Promise<{ send(cmd: string): Promise<string>; close(): void }> {
  let socket: net.Socket | null = null;
  for (let attempt = 0; !socket; attempt++) {
    const s = net.connect(port, '127.0.0.1');
    try {
      await Promise.race([once(s, 'connect'), once(s, 'error').then(([e]) => Promise.reject(e))]);
      socket = s;
    } catch (err) {
      s.destroy();
      if (attempt > 50) throw new Error(`ubridge hypervisor on 127.0.0.1:${port} does not answer: ${(err as Error).message}`);
      await sleep(100);
    }
  }
  const conn = socket;
  let buffered = '';
  let waiter: ((line: string) => void) | null = null;
  conn.on('data', (d: Buffer) => {
    buffered += d.toString();
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl).trim();
      buffered = buffered.slice(nl + 1);
      // "CODE-text" ends a reply, "CODE text" is one of its informative lines.
      if (/^\d{3}-/.test(line) && waiter) waiter(line);
    }
  });
  return {
    send: (cmd) =>
      new Promise<string>((res, rej) => {
        waiter = (line) => {
          waiter = null;
          if (line.startsWith('100-')) res(line);
          else rej(new Error(`ubridge: ${cmd}: ${line}`));
        };
        conn.write(`${cmd}\n`);
      }),
    close: () => conn.destroy(),
  };
}

/** ubridge -H on a free port (on `cpu` if given), one bridge: UDP NIO udpPort → 127.0.0.1:peerPort, TAP NIO on `tap`, started; the TAP set up (a container would). */
export async function ubridgeWire(bin: string, tap: string, udpPort: number, peerPort: number, cpu?: number): Promise<TapWire> {
  const port = await freeTcpPort();
  const child = spawn(...onCpu(cpu, bin, ['-H', `127.0.0.1:${port}`]), { stdio: ['ignore', 'ignore', process.env.BENCH_VERBOSE ? 'inherit' : 'ignore'] });
  const exited = once(child, 'exit').then(([code, signal]) => Promise.reject(new Error(`ubridge exited (${code ?? signal})`)));
  exited.catch(() => undefined);
  try {
    const hv = await Promise.race([hypervisor(port), exited]);
    try {
      await hv.send('bridge create br0');
      await hv.send(`bridge add_nio_udp br0 ${udpPort} 127.0.0.1 ${peerPort}`);
      await hv.send(`bridge add_nio_tap br0 ${tap}`);
      await hv.send('bridge start br0');
    } finally {
      hv.close();
    }
    execFileSync('ip', ['link', 'set', tap, 'up']);
  } catch (err) {
    await stopAndWaitGone(child, tap);
    throw err;
  }
  return { name: 'ubridge', tap, udpPort, peerPort, pid: child.pid!, stop: () => stopAndWaitGone(child, tap) };
}

/** Stops the process and waits until its TAP has gone with it. */
async function stopAndWaitGone(child: ChildProcess, tap: string): Promise<void> {
  await kill(child);
  for (let i = 0; i < 50 && existsSync(`/sys/class/net/${tap}`); i++) await sleep(100);
  if (existsSync(`/sys/class/net/${tap}`)) throw new Error(`${tap} is still there after its process ended`);
}
