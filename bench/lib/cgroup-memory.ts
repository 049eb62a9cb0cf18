import { existsSync, readFileSync } from 'node:fs';

/** The container's memory cgroup directory and the file of its current usage: cgroup v2, else v1's memory controller. */
export function memoryCgroup(pid: string): { dir: string; usage: string } {
  const lines = readFileSync(`/proc/${pid}/cgroup`, 'utf8').split('\n');
  const v1 = lines.find((l) => /^\d+:memory:/.test(l));
  if (v1) return { dir: `/sys/fs/cgroup/memory${v1.slice(v1.indexOf(':memory:') + 8)}`, usage: 'memory.usage_in_bytes' };
  const v2 = lines.find((l) => l.startsWith('0::'));
  if (v2 && existsSync(`/sys/fs/cgroup${v2.slice(3)}/memory.current`)) return { dir: `/sys/fs/cgroup${v2.slice(3)}`, usage: 'memory.current' };
  throw new Error(`no memory cgroup for process ${pid}`);
}
