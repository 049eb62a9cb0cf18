import { cpus, freemem, totalmem } from 'node:os';

let last = snapshot();

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

/** CPU use since the previous call and memory use of the host, in percent (as GNS3 reports them). */
export function hostUsage(): { cpu_usage_percent: number; memory_usage_percent: number } {
  const now = snapshot();
  const total = now.total - last.total;
  const cpu = total > 0 ? 100 * (1 - (now.idle - last.idle) / total) : 0;
  last = now;
  return {
    cpu_usage_percent: Math.round(cpu * 10) / 10,
    memory_usage_percent: Math.round((1000 * (totalmem() - freemem())) / totalmem()) / 10,
  };
}
