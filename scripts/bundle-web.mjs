// Bundles the lab page (src/web/, TypeScript for the browser) into dist/web/, which the daemon
// serves at /ui/ (src/daemon/http/lab-page.ts). Everything the page runs is in these files:
// no network access at run time. The page reuses the CLI's pcap reader, frame decoder and lab
// writer; they use Node's Buffer, which the `buffer` package stands in for here.
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const source = join(root, 'src/web');
const outdir = join(root, 'dist/web');

rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });
await build({
  entryPoints: { 'lab-page': join(source, 'main.ts') },
  outdir,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'chrome110',
  minify: true,
  sourcemap: 'linked',
  legalComments: 'linked',
  inject: [join(source, 'buffer-global.ts')],
  loader: { '.css': 'css' },
  tsconfig: join(source, 'tsconfig.json'),
  logLevel: 'warning',
});
for (const file of ['index.html']) copyFileSync(join(source, file), join(outdir, file));
