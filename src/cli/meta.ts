import { fileURLToPath } from 'node:url';
import { PACKAGE_ROOT, PACKAGE_VERSION } from '../version.js';

/** The emuctl package version. */
export function clientVersion(): string {
  return PACKAGE_VERSION;
}

/** Absolute path of bin/emuctl.js. */
export function cliEntryPath(): string {
  return fileURLToPath(new URL('bin/emuctl.js', PACKAGE_ROOT));
}
