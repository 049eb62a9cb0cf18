import { execFile } from 'node:child_process';
import { ConflictError, InvalidError } from '../errors.js';

/** A classic-BPF program: 4 words per instruction (code, jt, jf, k), as `tcpdump -ddd` prints them. */
export type BpfProgram = Uint32Array;

const MAX_INSNS = 4096; // BPF_MAXINSNS

/** Parses `tcpdump -ddd` output: the instruction count, then one `code jt jf k` line per instruction. */
export function parseDddOutput(text: string): BpfProgram {
  const lines = text.trim().split('\n');
  const count = Number(lines[0]);
  if (!Number.isInteger(count) || count < 1 || count > MAX_INSNS || lines.length !== count + 1) {
    throw new Error(`unexpected tcpdump -ddd output: ${JSON.stringify(text.slice(0, 200))}`);
  }
  const prog = new Uint32Array(count * 4);
  for (let i = 0; i < count; i++) {
    const parts = lines[i + 1].trim().split(/\s+/).map(Number);
    if (parts.length !== 4 || parts.some((v) => !Number.isInteger(v) || v < 0 || v > 0xffffffff)) {
      throw new Error(`unexpected tcpdump -ddd line: ${JSON.stringify(lines[i + 1])}`);
    }
    prog.set(parts, i * 4);
  }
  return prog;
}

/**
 * Compiles pcap-filter expressions with libpcap by running tcpdump (main thread,
 * asynchronously), caching the programs by expression.
 */
export class BpfCompiler {
  private readonly cache = new Map<string, BpfProgram>();

  constructor(private readonly tcpdump = 'tcpdump', private readonly timeoutMs = 10_000) {}

  /** Compiles one expression for Ethernet frames; InvalidError with libpcap's message if it does not parse. */
  async compile(expr: string): Promise<BpfProgram> {
    const cached = this.cache.get(expr);
    if (cached) return cached;
    // `--` ends tcpdump's options, so an expression starting with '-' is never taken for one.
    const args = ['-ddd', '-y', 'EN10MB', '--', expr];
    const prog = await new Promise<BpfProgram>((resolve, reject) => {
      execFile(this.tcpdump, args, { timeout: this.timeoutMs, env: { ...process.env, LC_ALL: 'C' } }, (err, stdout, stderr) => {
        if (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code === 'ENOENT' || code === 'EACCES') {
            reject(new ConflictError(`bpf filters need tcpdump (libpcap's filter compiler), not found as "${this.tcpdump}": apt-get install tcpdump`));
            return;
          }
          if ((err as { killed?: boolean }).killed) {
            reject(new InvalidError(`bpf filter "${expr}": tcpdump did not compile it within ${this.timeoutMs} ms`));
            return;
          }
          const message = String(stderr).trim().split('\n').pop()?.replace(/^tcpdump:\s*/, '') || err.message;
          reject(new InvalidError(`bpf filter "${expr}": ${message}`));
          return;
        }
        try {
          resolve(parseDddOutput(String(stdout)));
        } catch (e) {
          reject(new InvalidError(`bpf filter "${expr}": ${(e as Error).message}`));
        }
      });
    });
    if (this.cache.size >= 256) this.cache.clear();
    this.cache.set(expr, prog);
    return prog;
  }

  /** Compiles every expression (in parallel); rejects with the first failure. */
  compileAll(exprs: readonly string[]): Promise<BpfProgram[]> {
    return Promise.all(exprs.map((e) => this.compile(e)));
  }
}
