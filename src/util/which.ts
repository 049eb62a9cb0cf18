import { accessSync, constants, readdirSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';

/**
 * The executable `name` as a path: a name holding a slash is checked as it is (relative to the
 * working directory), a bare name is looked up on the PATH of `env` (the caller's environment,
 * which for the daemon is not necessarily process.env). Undefined when there is none.
 */
export function findExecutable(name: string, env: NodeJS.ProcessEnv): string | undefined {
  const candidates = name.includes('/') ? [resolve(name)] : pathDirs(env).map((dir) => join(dir, name));
  return candidates.find(isExecutable);
}

/** Every executable on the PATH of `env` whose name matches `pattern`, the first match of each name. */
export function findExecutables(pattern: RegExp, env: NodeJS.ProcessEnv): string[] {
  const seen = new Map<string, string>();
  for (const dir of pathDirs(env)) {
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

function pathDirs(env: NodeJS.ProcessEnv): string[] {
  return (env.PATH ?? '').split(delimiter).filter(Boolean);
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
