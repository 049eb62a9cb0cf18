/**
 * Runs the bundled CLI core (one CommonJS file, see scripts/bundle-cli.mjs) through
 * V8's code cache: the functions compiled when the cache was made are reused, so a
 * command does not pay for compiling them again. Node 20 has no code cache for ES
 * modules, hence CommonJS text run by vm.Script. A cache that V8 rejects (another
 * Node version, other flags, a changed bundle) only costs the compilation.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Script } from 'node:vm';

/** How the bundle's dynamic imports of files left out of it (conf, ora, the daemon) are made. */
export type HostImport = (specifier: string) => Promise<unknown>;

/** The function a CommonJS file's text is wrapped in, plus the import function of the host. */
const WRAPPER_PARAMS = ['exports', 'require', 'module', '__filename', '__dirname', '__emuctlImport'] as const;

/** A bundle compiled (with or without a cache), ready to run once. */
export interface CompiledBundle {
  script: Script;
  /** True when a cache was given and V8 refused it. */
  cacheRejected: boolean;
  run(hostImport: HostImport): Record<string, unknown>;
}

/** Compiles `file` (CommonJS text), with the cache in `cacheFile` when it exists. */
export function compileBundle(file: string, cacheFile?: string): CompiledBundle {
  const source = readFileSync(file, 'utf8');
  let cachedData: Buffer | undefined;
  if (cacheFile) {
    try {
      cachedData = readFileSync(cacheFile);
    } catch {
      cachedData = undefined;
    }
  }
  const script = new Script(`(function (${WRAPPER_PARAMS.join(', ')}) {${source}\n})`, { filename: file, cachedData });
  return {
    script,
    cacheRejected: cachedData !== undefined && script.cachedDataRejected === true,
    run(hostImport) {
      const module = { exports: {} as Record<string, unknown> };
      const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
      wrapper(module.exports, createRequire(file), module, file, dirname(file), hostImport);
      return module.exports;
    },
  };
}

/** Writes the code V8 has compiled so far for `script` (call it after a warm-up run), atomically. */
export function saveCodeCache(script: Script, cacheFile: string): number {
  const data = script.createCachedData();
  const temp = `${cacheFile}.${process.pid}.tmp`;
  writeFileSync(temp, data);
  renameSync(temp, cacheFile);
  return data.length;
}

/** An import function that resolves relative specifiers against `base` (the bundle's URL). */
export function importRelativeTo(base: URL, importer: HostImport): HostImport {
  return (specifier) => importer(specifier.startsWith('.') ? new URL(specifier, base).href : specifier);
}

/** Loads the bundle at `url` with its cache (`<file>.cache`); `importer` is the host's own import(). */
export function loadBundle(url: URL, importer: HostImport): Record<string, unknown> {
  const file = fileURLToPath(url);
  return compileBundle(file, `${file}.cache`).run(importRelativeTo(pathToFileURL(file), importer));
}
