// The inventory formats (src/lab/inventory/): each against its golden file in test/fixtures/inventory/
// (UPDATE_GOLDEN=1 rewrites them), and each read back by the real tool that consumes it:
// ansible-inventory for the Ansible YAML, ssh -G for the ssh config.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Node } from '../../../../src/client/nodes.js';
import { buildInventory, imageGroup, networkOsOf, unlistableNodes } from '../../../../src/lab/inventory/hosts.js';
import { ansibleInventory, hostsFile, jsonInventory, nornirInventory, sshConfig } from '../../../../src/lab/inventory/formats.js';
import { inventoryText, writeInventory } from '../../../../src/lab/inventory/write.js';

const GOLDEN = fileURLToPath(new URL('../../../../../test/fixtures/inventory/', import.meta.url));

function node(name: string, type: string, properties: Record<string, unknown>): Node {
  return { node_id: `id-${name}`, project_id: 'p', compute_id: 'local', name, node_type: type, status: 'started', console: null, console_type: 'none', console_host: '', properties, ports: [] };
}

const NODES: Node[] = [
  node('R10', 'docker', { image: 'emuctl-test/frr:a124b22166a5', mgmt_ipv4: '198.19.130.12/24', mgmt_ipv6: 'fd00:c613:8200::c/64' }),
  node('R2', 'docker', { image: 'frrouting/frr:v8.4.0', mgmt_ipv4: '198.19.130.3/24', mgmt_ipv6: 'fd00:c613:8200::3/64' }),
  node('H1', 'docker', { image: 'emuctl-test/ssh:68af27c7a581', mgmt_ipv4: '198.19.130.2/24', mgmt_ipv6: null }),
  node('Q1', 'qemu', { hda_disk_image: 'guest.qcow2', mgmt_ipv4: '198.19.130.4/24', mgmt_ipv6: null }),
  // No management address: not in any inventory.
  node('SW1', 'ethernet_switch', {}),
  node('PC1', 'vpcs', {}),
  node('D0', 'docker', { image: 'emuctl-test/ssh:68af27c7a581', mgmt_ipv4: null }),
];
const SSH = { privateKey: '/home/user/.local/share/emuctl/labs/demo-0123456789ab/id_ed25519', knownHosts: '/home/user/.local/share/emuctl/labs/demo-0123456789ab/known_hosts' };
const INVENTORY = buildInventory({ name: 'demo', project_id: '5b9a3c1e-0000-4000-8000-000000000001' }, NODES, SSH);

function golden(file: string, text: string): void {
  const path = join(GOLDEN, file);
  if (process.env.UPDATE_GOLDEN) writeFileSync(path, text);
  assert.equal(text, readFileSync(path, 'utf8'), `${file} differs from its golden file (UPDATE_GOLDEN=1 rewrites it)`);
}

const work = mkdtempSync(join(tmpdir(), 'emuctl-inventory-'));
after(() => rmSync(work, { recursive: true, force: true }));

describe('lab inventory hosts', () => {
  it('lists the nodes with a management address, in name order, with kind and image groups', () => {
    assert.deepEqual(INVENTORY.hosts.map((h) => h.name), ['H1', 'Q1', 'R2', 'R10']);
    assert.deepEqual(INVENTORY.hosts.find((h) => h.name === 'Q1')!.groups, ['qemu', 'image_guest_qcow2']);
    assert.equal(INVENTORY.hosts.find((h) => h.name === 'R2')!.ipv6, 'fd00:c613:8200::3');
  });
  it('takes the network OS from the image name', () => {
    assert.equal(networkOsOf('emuctl-test/frr:a124b22166a5'), 'frr');
    assert.equal(networkOsOf('frrouting/frr:v8.4.0'), 'frr');
    assert.equal(networkOsOf('quay.io/frrouting/frr@sha256:0123'), 'frr');
    assert.equal(networkOsOf('frr'), 'frr');
    assert.equal(networkOsOf('emuctl-test/ssh:68af27c7a581'), null);
    assert.equal(networkOsOf('notfrr:1'), null);
    assert.equal(networkOsOf(null), null);
  });
  it('leaves out a node whose name or address would add lines of its own to ssh-config or /etc/hosts', () => {
    const hostile = [
      node('R1\n  ProxyCommand touch x', 'docker', { mgmt_ipv4: '198.19.130.9/24', image: 'busybox' }),
      node('R 2', 'docker', { mgmt_ipv4: '198.19.130.10/24', image: 'busybox' }),
      node('R3', 'docker', { mgmt_ipv4: '198.19.130.11/24\n  ProxyCommand touch x', image: 'busybox' }),
    ];
    const inventory = buildInventory({ name: 'demo', project_id: 'p' }, [...NODES, ...hostile], SSH);
    assert.deepEqual(inventory.hosts.map((h) => h.name), INVENTORY.hosts.map((h) => h.name));
    assert.deepEqual(unlistableNodes([...NODES, ...hostile]), ['R1\n  ProxyCommand touch x', 'R 2']);
    assert.doesNotMatch(sshConfig(inventory) + hostsFile(inventory), /ProxyCommand|R 2/);
  });

  it('makes group names Ansible takes', () => {
    assert.equal(imageGroup('emuctl-test/frr:a1'), 'image_emuctl_test_frr_a1');
  });
});

describe('lab inventory formats (golden files)', () => {
  it('ansible', () => golden('ansible.yml', ansibleInventory(INVENTORY)));
  it('nornir hosts.yaml and groups.yaml', () => {
    const files = nornirInventory(INVENTORY);
    golden('nornir-hosts.yaml', files['hosts.yaml']);
    golden('nornir-groups.yaml', files['groups.yaml']);
  });
  it('ssh-config', () => golden('ssh-config', sshConfig(INVENTORY)));
  it('hosts', () => golden('hosts', hostsFile(INVENTORY)));
  it('json', () => golden('inventory.json', jsonInventory(INVENTORY)));
  it('nornir on stdout: both files, each a YAML document named in a comment', () => {
    const text = inventoryText(INVENTORY, 'nornir');
    assert.match(text, /^--- # hosts\.yaml\n/);
    assert.match(text, /\n--- # groups\.yaml\n/);
  });
});

describe('lab inventory read by the tools that use it', () => {
  it('ansible-inventory reads the Ansible YAML: hosts, groups and connection variables', () => {
    const file = join(work, 'inventory.yml');
    writeFileSync(file, ansibleInventory(INVENTORY));
    const list = JSON.parse(execFileSync('ansible-inventory', ['-i', file, '--list'], { encoding: 'utf8', env: { ...process.env, ANSIBLE_INVENTORY_UNPARSED_FAILED: 'true', ANSIBLE_LOCAL_TEMP: work, ANSIBLE_HOME: work } }));
    assert.deepEqual([...list.docker.hosts].sort(), ['H1', 'R10', 'R2']);
    assert.deepEqual(list.qemu.hosts, ['Q1']);
    assert.deepEqual(list.image_emuctl_test_frr_a124b22166a5.hosts, ['R10']);
    const r10 = list._meta.hostvars.R10;
    assert.equal(r10.ansible_host, '198.19.130.12');
    assert.equal(r10.ansible_user, 'root');
    assert.equal(r10.ansible_network_os, 'frr');
    assert.equal(r10.ansible_ssh_private_key_file, SSH.privateKey);
    assert.match(r10.ansible_ssh_common_args, /UserKnownHostsFile=\/home\/user\/.*\/known_hosts/);
    assert.equal(list._meta.hostvars.H1.ansible_network_os, undefined);
  });
  it('ssh -G -F reads the ssh config: address, user, key, the lab known_hosts, accept-new', () => {
    const file = join(work, 'ssh-config');
    writeFileSync(file, sshConfig(INVENTORY));
    const config = execFileSync('ssh', ['-G', '-F', file, 'R2'], { encoding: 'utf8' });
    assert.match(config, /^hostname 198\.19\.130\.3$/m);
    assert.match(config, /^user root$/m);
    assert.match(config, new RegExp(`^identityfile ${SSH.privateKey}$`, 'm'));
    assert.match(config, new RegExp(`^userknownhostsfile ${SSH.knownHosts}$`, 'm'));
    assert.match(config, /^stricthostkeychecking accept-new$/m);
  });
  it('quotes a key path with a space for ssh and for Ansible', () => {
    const spaced = buildInventory({ name: 'x', project_id: 'p' }, NODES, { privateKey: '/tmp/my labs/id', knownHosts: "/tmp/my labs/it's" });
    const file = join(work, 'ssh-config-spaced');
    writeFileSync(file, sshConfig(spaced));
    assert.match(execFileSync('ssh', ['-G', '-F', file, 'H1'], { encoding: 'utf8' }), /^identityfile \/tmp\/my labs\/id$/m);
    assert.match(ansibleInventory(spaced), /UserKnownHostsFile=\/tmp\/my labs\/it'\\''s'/);
  });
});

describe('lab inventory -o', () => {
  it('writes one file owner-only, and Nornir to a directory', async () => {
    const file = join(work, 'out.yml');
    assert.deepEqual(await writeInventory(INVENTORY, 'ansible', file), [file]);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const dir = join(work, 'nornir');
    assert.deepEqual(await writeInventory(INVENTORY, 'nornir', dir), [join(dir, 'hosts.yaml'), join(dir, 'groups.yaml')]);
    assert.equal(readFileSync(join(dir, 'hosts.yaml'), 'utf8'), nornirInventory(INVENTORY)['hosts.yaml']);
  });
});
