// Issue 33: a port range that runs out is one clear error naming the setting. `lab up` checks the
// computes' free console and UDP ports before it creates anything; the API's own refusal (409)
// names the setting too.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cliEnv, removeTempHome, runInProcess, tempHome } from '../cli/helpers/cli.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { createProject } from '../helpers/lab.js';

// Four console ports: two docker nodes' worth (a console and an aux port each).
const ENV = { EMUCTL_CONSOLE_PORT_RANGE: '26900-26903', EMUCTL_UDP_PORT_RANGE: '26920-26999' };

describe('port ranges: a lab that does not fit is refused before anything is created', () => {
  let d: TestDaemon;
  let home: string;
  let dir: string;
  before(async () => {
    d = await startTestDaemon({ env: ENV });
    home = tempHome();
    dir = mkdtempSync(join(tmpdir(), 'emuctl-port-capacity-'));
  });
  after(async () => {
    await d?.stop();
    if (d) removeHome(d.home);
    if (home) removeTempHome(home);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('lab up of three docker nodes on a range of four console ports: one line naming console_port_range, no project', async () => {
    const nodes = ['A', 'B', 'C'].map((n) => `  ${n}: {type: docker, image: "emuctl-test/never-pulled:1", adapters: 1}`);
    const file = join(dir, 'too-big.yml');
    writeFileSync(file, ['name: too-big', 'nodes:', ...nodes, 'links:', '  - [A:eth0, B:eth0]', ''].join('\n'));
    const r = await runInProcess(['lab', 'up', file], cliEnv(home, { EMUCTL_URL: d.url }));
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /not enough ports, nothing was created: console ports: the lab needs 6, compute \S+ has 4 free in 26900-26903 \(widen its console_port_range setting \(EMUCTL_CONSOLE_PORT_RANGE\)\)/);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    const projects = (await d.api('GET', '/v2/projects')).body as { name: string }[];
    assert.ok(!projects.some((p) => p.name === 'too-big'), 'no project was created');
  });

  it('the API refuses the node past the range with a 409 naming the setting', async () => {
    const pid = await createProject(d, 'full');
    const made: number[] = [];
    let refusal: { status: number; message: string } | undefined;
    for (let i = 0; i < 6 && !refusal; i++) {
      const r = await d.api('POST', `/v2/projects/${pid}/nodes`, { name: `PC${i}`, node_type: 'vpcs', compute_id: 'local' });
      if (r.status === 201) made.push(i);
      else refusal = { status: r.status, message: r.body.message };
    }
    assert.ok(made.length >= 1 && made.length < 6, `${made.length} made, refusal: ${JSON.stringify(refusal)}`);
    assert.equal(refusal?.status, 409);
    assert.match(refusal!.message, /No free console port left in 26900-26903: widen the console_port_range setting \(EMUCTL_CONSOLE_PORT_RANGE\)/);
  });
});
