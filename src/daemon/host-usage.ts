import { cpus, freemem, totalmem } from 'node:os';

/** Shortest interval CPU use is measured over; callers in between get the last figures. */
const MIN_SAMPLE_MS = 1000;

let last = snapshot();
let lastAt = 0;
let cached = { cpu_usage_percent: 0, memory_usage_percent: 0 };

function snapshot(): { idle: number; total: number } {
  let idle = 0;
  let total = 0;
  for (const cpu of cpus()) {
    const t = cpu.times;
    idle += t.idle;
    total += t.user + t.nice + t.sys + t.irq + t.idle;
  }
  return { idle, total };
}

/**
 * CPU use since the previous sample and memory use of the host, in percent (as GNS3 reports
 * them). Sampled at most once a second, so that many callers (one ping per stream client) share one figure.
 */
export function hostUsage(): { cpu_usage_percent: number; memory_usage_percent: number } {
  const at = Date.now();
  if (at - lastAt < MIN_SAMPLE_MS) return { ...cached };
  const now = snapshot();
  const total = now.total - last.total;
  const cpu = total > 0 ? 100 * (1 - (now.idle - last.idle) / total) : 0;
  last = now;
  lastAt = at;
  cached = {
    cpu_usage_percent: Math.round(cpu * 10) / 10,
    memory_usage_percent: Math.round((1000 * (totalmem() - freemem())) / totalmem()) / 10,
  };
  return { ...cached };
}
