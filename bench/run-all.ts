// Runs every benchmark one after the other (each prints its own markdown table).
// Usage: node dist/bench/run-all.js [name ...]   names: cli-startup forward api switch capture-filters events dataplane tap tap-ubridge nat qemu lab-up persistence api-under-traffic docker-start docker-ring docker-mgmt web soak
// With no name, every benchmark but the soak (11 minutes) runs.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const benches = ['cli-startup', 'forward', 'api', 'switch', 'capture-filters', 'events', 'dataplane', 'tap', 'tap-ubridge', 'nat', 'qemu', 'lab-up', 'persistence', 'api-under-traffic', 'docker-start', 'docker-ring', 'docker-mgmt', 'web', 'soak'];
/** Benchmarks whose script is not NAME/run.js. */
const scripts: Record<string, string> = { 'docker-start': 'docker/start.js', 'docker-ring': 'docker/ring.js', 'docker-mgmt': 'docker/mgmt.js' };
const chosen = process.argv.slice(2).length ? process.argv.slice(2) : benches.filter((name) => name !== 'soak');
const unknown = chosen.filter((name) => !benches.includes(name));
if (unknown.length) {
  console.error(`unknown benchmark ${unknown.join(', ')} (known: ${benches.join(', ')})`);
  process.exit(2);
}
let failed = 0;
for (const name of chosen) {
  console.log(`\n### ${name}\n`);
  const result = spawnSync(process.execPath, [join(here, scripts[name] ?? join(name, 'run.js'))], { stdio: 'inherit' });
  if (result.status !== 0) {
    failed++;
    console.error(`bench ${name} exited with ${result.status ?? result.signal}`);
  }
}
process.exit(failed ? 1 : 0);
