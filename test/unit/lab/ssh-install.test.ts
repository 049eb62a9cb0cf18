// The lab's public key among each docker node's startup files (src/lab/ssh-install.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseLab } from '../../../src/lab/parse.js';
import { nodeCreateProperties } from '../../../src/lab/node-bodies.js';
import { AUTHORIZED_KEYS, withAuthorizedKey } from '../../../src/lab/ssh-install.js';
import type { LabSpec } from '../../../src/lab/model.js';

const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExample emuctl lab t';

function lab(mgmt: LabSpec['mgmt']): LabSpec {
  const spec = parseLab(`name: t
nodes:
  R1: {type: docker, image: frr}
  H1: {type: docker, image: ssh, files: {/root/.ssh/authorized_keys: keys}}
  PC1: {type: vpcs}
`, 'lab.yml');
  spec.nodes[1].files![0].text = 'ssh-ed25519 AAAAmine me@example';
  return { ...spec, ...(mgmt ? { mgmt } : {}) };
}
const MGMT = { ipv4: 'auto', ipv6: false as const, interface: 'mgmt0', ssh: true, nat: false, pos: { line: 1, col: 1 } };

describe('lab SSH key install', () => {
  it("gives each docker node root's authorized_keys, in a volume, and leaves other kinds alone", () => {
    const spec = withAuthorizedKey(lab(MGMT), KEY);
    const r1 = spec.nodes.find((n) => n.name === 'R1')!;
    assert.deepEqual(r1.files?.map((f) => [f.path, f.text]), [[AUTHORIZED_KEYS, `${KEY}\n`]]);
    assert.deepEqual(nodeCreateProperties(r1).extra_volumes, ['/root/.ssh']);
    assert.equal(spec.nodes.find((n) => n.name === 'PC1')!.files, undefined);
  });
  it("adds the lab's key after the lines of an authorized_keys the file gives", () => {
    const h1 = withAuthorizedKey(lab(MGMT), KEY).nodes.find((n) => n.name === 'H1')!;
    assert.equal(h1.files!.length, 1);
    assert.equal(h1.files![0].text, `ssh-ed25519 AAAAmine me@example\n${KEY}\n`);
  });
  it('does nothing without mgmt, or with ssh off', () => {
    const plain = lab(undefined);
    assert.equal(withAuthorizedKey(plain, KEY), plain);
    const off = lab({ ...MGMT, ssh: false });
    assert.equal(withAuthorizedKey(off, KEY), off);
  });
});
