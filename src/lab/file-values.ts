// Values of a lab file that both parse.ts and generated/read.ts turn into what the planner knows.

/** The file's filters in GNS3's form: `delay: 20` → `delay: [20, 0]`; a 0 turns a filter off (left out). */
export function gns3Filters(filters: Record<string, unknown>): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const [type, value] of Object.entries(filters)) {
    if (type === 'delay') {
      const [latency, jitter = 0] = Array.isArray(value) ? (value as number[]) : [value as number];
      if (latency !== 0) out.delay = [latency, jitter];
    } else if (type === 'bpf') {
      const text = String(value).split('\n').map((line) => line.trim()).filter(Boolean).join('\n');
      if (text) out.bpf = [text];
    } else if (value !== 0) {
      out[type] = [value];
    }
  }
  return out;
}

/** `${NAME}` and `${NAME:-default}` replaced by the environment's values; an unset one without a default is an error. */
export function expandVariables(text: string, env: Readonly<Record<string, string | undefined>>, error: (reason: string) => Error): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_, name: string, fallback: string | undefined) => {
    const value = env[name] || fallback;
    if (value === undefined) throw error(`\${${name}} is not set in the environment and has no default (write \${${name}:-DEFAULT})`);
    return value;
  });
}
