import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const BUILDER = fileURLToPath(new URL('../../../scripts/build-docker-images.mjs', import.meta.url));

/** The images scripts/build-docker-images.mjs builds: a busybox host, an FRR router and a Debian host with sshd and Python. */
export type TestImageName = 'host' | 'frr' | 'ssh';

const building = new Map<TestImageName, Promise<string>>();

/** The tag of a test image in the local Docker engine, built offline from Debian packages the first time (cached by recipe). */
export function testImage(name: TestImageName): Promise<string> {
  let pending = building.get(name);
  if (!pending) {
    pending = run(process.execPath, [BUILDER, name], { timeout: 600_000, maxBuffer: 1024 * 1024 })
      .then(({ stdout }) => (JSON.parse(stdout.trim().split('\n').pop()!) as Record<TestImageName, string>)[name])
      .catch((err: Error & { stderr?: string }) => {
        throw new Error(`cannot build the ${name} test image: ${err.stderr?.trim() || err.message}`);
      });
    building.set(name, pending);
  }
  return pending;
}
