// The frr.conf files emuctl generates (the golden labs') are read without an error by FRR itself:
// `vtysh --dryrun` in the offline FRR image. A missing docker or image fails the test.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { generatedFiles } from '../../src/lab/generated/configs.js';
import { fixtureLab } from '../unit/lab/generated/golden.js';
import { testImage } from '../helpers/docker-images.js';

/** Runs vtysh --dryrun on `text` in a throw-away container of `image`; the container is removed by --rm. */
function dryRun(image: string, text: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = execFile('docker', ['run', '--rm', '-i', '--network', 'none', '--entrypoint', 'sh', image, '-c', 'cat > /tmp/frr.conf && vtysh --dryrun -f /tmp/frr.conf'],
      { timeout: 300_000 }, (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, output: stdout + stderr }));
    child.stdin!.end(text);
  });
}

describe('generated FRR configurations', () => {
  for (const lab of ['ospf-triangle', 'bgp-fabric', 'ibgp-rr-ipv6', 'vlan-stick', 'bgp-groups']) {
    it(`${lab}: FRR reads every router's frr.conf without an error`, async () => {
      const image = await testImage('frr');
      const confs = generatedFiles(fixtureLab(lab)).filter((f) => f.path === '/etc/frr/frr.conf');
      assert.ok(confs.length >= 2, `${lab} has routers`);
      for (const conf of confs) {
        const { code, output } = await dryRun(image, conf.text);
        assert.equal(code, 0, `${conf.node}: ${output}`);
      }
    });
  }
});
