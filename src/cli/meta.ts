import { fileURLToPath } from 'node:url';
import { PACKAGE_VERSION } from '../version.js';

/** The emuctl package version. */
export function clientVersion(): string {
  return PACKAGE_VERSION;
}

/** Absolute path of bin/emuctl.js (compiled to dist/src/cli/meta.js: the package root is three levels up). */
export function cliEntryPath(): string {
  return fileURLToPath(new URL('../../../bin/emuctl.js', import.meta.url));
}
