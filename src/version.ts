import { readFileSync } from 'node:fs';

/**
 * The package root. Compiled to dist/src/version.js, two levels below it; the CLI
 * bundle (dist/src/emuctl.js) sits at the same depth, so this holds in both.
 */
export const PACKAGE_ROOT: URL = new URL('../../', import.meta.url);

/** The package version, read once from package.json. */
export const PACKAGE_VERSION: string = (JSON.parse(readFileSync(new URL('package.json', PACKAGE_ROOT), 'utf8')) as { version: string }).version;
