#!/usr/bin/env node
// Builds the docker images the tests, benchmarks and examples use, offline, from Debian packages,
// and loads them into the local Docker engine under a tag that names their recipe:
//   node scripts/build-docker-images.mjs host frr
// prints {"host": "emuctl-test/host:<recipe>", "frr": "emuctl-test/frr:<recipe>"} on stdout.
// An image whose tag is already in the engine is not built again.
// The recipes and the build are src/offline-images/ (shared with `emuctl image build`, which also
// tags them emuctl/NAME:latest); this script needs `npm run build` first.
import { OFFLINE_IMAGE_NAMES } from '../dist/src/offline-images/names.js';
import { buildOfflineImages } from '../dist/src/offline-images/build.js';

const names = process.argv.slice(2);
if (!names.length || names.some((n) => !OFFLINE_IMAGE_NAMES.includes(n))) {
  process.stderr.write(`usage: build-docker-images.mjs ${OFFLINE_IMAGE_NAMES.join('|')}...\n`);
  process.exit(2);
}
try {
  const images = await buildOfflineImages(names, { log: (line) => process.stderr.write(`${line}\n`) });
  process.stdout.write(JSON.stringify(Object.fromEntries(images.map((i) => [i.name, i.tag]))) + '\n');
} catch (err) {
  process.stderr.write(`build-docker-images: ${err.message}\n`);
  process.exit(1);
}
