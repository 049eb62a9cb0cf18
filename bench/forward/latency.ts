// Sequential HTTP latency sampling over one keep-alive connection, and the figures the benches print.
import { Agent, request } from 'node:http';
import { cpus, loadavg } from 'node:os';

/** A keep-alive agent holding a single connection, so every sample reuses it. */
export function keepAliveAgent(): Agent {
  return new Agent({ keepAlive: true, maxSockets: 1 });
}

/** One GET over `agent`; resolves with the elapsed milliseconds once the whole body is read (a non-2xx fails). */
export function timedGet(agent: Agent, url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const req = request(url, { agent, method: 'GET' }, (res) => {
      let size = 0;
      res.on('data', (chunk: Buffer) => (size += chunk.length));
      res.on('end', () => {
        const ms = Number(process.hrtime.bigint() - start) / 1e6;
        if ((res.statusCode ?? 0) >= 300) reject(new Error(`GET ${url} answered ${res.statusCode}`));
        else if (size === 0) reject(new Error(`GET ${url} answered an empty body`));
        else resolve(ms);
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Summary of a latency sample, in milliseconds. */
export interface LatencySummary {
  n: number;
  p50: number;
  p99: number;
  mean: number;
  max: number;
}

/** Nearest-rank quantile of `values` (0 < q ≤ 1). */
export function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export function summarize(samples: number[]): LatencySummary {
  if (samples.length === 0) return { n: 0, p50: NaN, p99: NaN, mean: NaN, max: NaN };
  return {
    n: samples.length,
    p50: quantile(samples, 0.5),
    p99: quantile(samples, 0.99),
    mean: samples.reduce((a, b) => a + b, 0) / samples.length,
    max: Math.max(...samples),
  };
}

/** Milliseconds with three decimals. */
export const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(3) : '–');

/** One line naming the machine the figures come from. */
export function machineLine(): string {
  const cpu = cpus();
  return `${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.version}, ${process.platform}, load average ${loadavg()[0].toFixed(2)} at the end`;
}

/** Rejects after `ms` with a message, so a bench never hangs; `cancel()` when done. */
export function deadline(limitMs: number, what: string): { promise: Promise<never>; cancel(): void } {
  let timer: NodeJS.Timeout;
  const promise = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${limitMs / 1000} s`)), limitMs);
  });
  return { promise, cancel: () => clearTimeout(timer) };
}
