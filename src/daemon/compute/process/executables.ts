import { accessSync, constants, readdirSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The absolute path of an executable: `name` itself when it names a path (relative to the cwd),
 * else its first match on the PATH of `env` (the daemon's environment, not necessarily process.env).
 */
export function findExecutable(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (name.includes('/')) {
    const path = isAbsolute(name) ? name : resolve(name);
    return isExecutable(path) ? path : undefined;
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && isExecutable(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/** Every executable on PATH whose name matches `pattern`, first match of each name. */
export function findExecutables(pattern: RegExp, env: NodeJS.ProcessEnv = process.env): string[] {
  const seen = new Map<string, string>();
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) if (pattern.test(name) && !seen.has(name) && isExecutable(join(dir, name))) seen.set(name, join(dir, name));
  }
  return [...seen.values()];
}
