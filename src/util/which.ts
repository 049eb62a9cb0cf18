import { accessSync, constants } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';

/**
 * The executable `name` as a path: a name holding a slash is checked as it is (relative to the
 * working directory), a bare name is looked up on the PATH of `env` (the caller's environment,
 * which for the daemon is not necessarily process.env). Undefined when there is none.
 */
export function findExecutable(name: string, env: NodeJS.ProcessEnv): string | undefined {
  const candidates = name.includes('/') ? [resolve(name)] : (env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, name));
  return candidates.find(isExecutable);
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
