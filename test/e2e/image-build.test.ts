// `emuctl image build` on the local Docker engine (the images are built offline from Debian
// packages, once per recipe: the test helper and this command share src/offline-images/), and the
// 409 a missing emuctl image gets at node creation, naming the command that builds it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { cliEnv, jsonOf, removeTempHome, runInProcess, tempHome } from '../cli/helpers/cli.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { testImage } from '../helpers/docker-images.js';
import { createProject } from '../helpers/lab.js';

const run = promisify(execFile);
const imageId = async (tag: string) => (await run('docker', ['image', 'inspect', '--format', '{{.Id}}', tag])).stdout.trim();

describe('emuctl image build', () => {
  let home: string;
  let d: TestDaemon | undefined;
  const extra = `emuctl-image-build-test/host:${process.pid}`;

  before(() => {
    home = tempHome();
  });
  after(async () => {
    await run('docker', ['rmi', extra]).catch(() => undefined);
    if (d) {
      await d.stop();
      removeHome(d.home);
    }
    removeTempHome(home);
  });

  it('tags the host image emuctl/host:latest and --tag, the same image as the tests\' content-hash tag', async () => {
    const hashTag = await testImage('host');
    const r = await runInProcess(['image', 'build', 'host', '--tag', extra, '--json'], cliEnv(home));
    assert.equal(r.code, 0, r.stderr);
    const [built] = jsonOf(r);
    assert.deepEqual({ ...built, built: undefined }, { name: 'host', tag: hashTag, tags: [hashTag, 'emuctl/host:latest', extra], built: undefined, compute_id: 'local' });
    assert.equal(built.built, false, 'the recipe was built already, by the test helper');
    const id = await imageId(hashTag);
    assert.equal(await imageId('emuctl/host:latest'), id);
    assert.equal(await imageId(extra), id);
    // The image works: its shell runs busybox.
    assert.match((await run('docker', ['run', '--rm', '--network', 'none', extra, 'sh', '-c', 'echo hi from $(busybox | head -1 | cut -d" " -f1)'])).stdout, /^hi from BusyBox/);
  });

  it('a name it does not build is a usage error on one line', async () => {
    const r = await runInProcess(['image', 'build', 'vyos'], cliEnv(home));
    assert.equal(r.code, 2);
    assert.equal(r.stderr.trim(), 'emuctl: unknown image vyos: emuctl builds frr, host, ssh');
  });

  it('a docker node of a missing emuctl/frr tag is a 409 naming emuctl image build frr', async () => {
    d = await startTestDaemon({ env: { EMUCTL_CONSOLE_PORT_RANGE: '28950-28969', EMUCTL_UDP_PORT_RANGE: '28970-28989' } });
    const pid = await createProject(d, 'missing-image');
    const r = await d.api('POST', `/v2/projects/${pid}/nodes`, { name: 'R1', node_type: 'docker', compute_id: 'local', properties: { image: `emuctl/frr:absent-${process.pid}` } });
    assert.equal(r.status, 409, r.text);
    assert.match(r.body.message, /is not on this compute and could not be pulled \(.*\): build it with emuctl image build frr/);
  });
});
