// Issues 30 and 33: `lab up` and `lab down` of a long lab report progress. Off a terminal (a script's log),
// each tenth of the way (every 10 nodes at least) is a line on stderr: `started N/T nodes`, `stopped N/T nodes`.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cliEnv, removeTempHome, runInProcess, tempHome } from '../cli/helpers/cli.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

const ENV = { EMUCTL_CONSOLE_PORT_RANGE: '24530-24549', EMUCTL_UDP_PORT_RANGE: '24550-24639' };
const NODES = 12;

describe('lab up and lab down report progress on a long lab', () => {
  let d: TestDaemon;
  let home: string;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    d = await startTestDaemon({ env: ENV });
    home = tempHome();
    dir = mkdtempSync(join(tmpdir(), 'emuctl-lab-progress-'));
    env = cliEnv(home, { EMUCTL_URL: d.url });
    const nodes = Array.from({ length: NODES }, (_, i) => `  PC${i + 1}: {type: vpcs}`).join('\n');
    writeFileSync(join(dir, 'pcs.yml'), `name: progress\nnodes:\n${nodes}\n`);
  });
  after(async () => {
    if (d) {
      await runInProcess(['lab', 'down', 'progress'], env).catch(() => undefined);
      await d.stop();
      removeHome(d.home);
    }
    if (home) removeTempHome(home);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(`lab up of ${NODES} VPCS: "started 10/${NODES} nodes" on stderr, once, and every node started`, async () => {
    const r = await runInProcess(['lab', 'up', join(dir, 'pcs.yml')], env);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.stderr.match(/started \d+\/\d+ nodes/g), [`started 10/${NODES} nodes`], r.stderr);
    const nodes = (await d.api('GET', '/v2/projects')).body as { name: string; project_id: string }[];
    const pid = nodes.find((p) => p.name === 'progress')!.project_id;
    const statuses = ((await d.api('GET', `/v2/projects/${pid}/nodes`)).body as { status: string }[]).map((n) => n.status);
    assert.deepEqual(statuses, Array(NODES).fill('started'));
  });

  it(`lab down: "stopped 10/${NODES} nodes" on stderr, once, and the project is gone`, async () => {
    const r = await runInProcess(['lab', 'down', 'progress'], env);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.stderr.match(/stopped \d+\/\d+ nodes/g), [`stopped 10/${NODES} nodes`], r.stderr);
    const projects = (await d.api('GET', '/v2/projects')).body as { name: string }[];
    assert.ok(!projects.some((p) => p.name === 'progress'), 'the project is deleted');
  });
});
