// A topology write that fails (full disk, quota, read-only file system: a failpoint stands for the
// failing system call) undoes the change: 507 naming the problem, the state unchanged in memory and on disk.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestDaemon, removeHome, type TestDaemon } from '../helpers/daemon.js';
import { createLink, createNode, createProject } from '../helpers/lab.js';
import { ethernetFrame, udpEndpoint, type UdpEndpoint } from '../helpers/udp.js';
import { eventually } from '../kinds/vpcs/vpcs-helpers.js';

const ENV = { EMUCTL_UDP_PORT_RANGE: '21500-21599' };

describe('failed topology writes are rolled back', () => {
  let d: TestDaemon;
  let failpoints: string;
  let pid: string;
  let sw1: any;
  let sw2: any;
  const arm = (spec: string) => writeFileSync(failpoints, spec);
  const disarm = () => writeFileSync(failpoints, '');
  const start = async (home?: string) => {
    d = await startTestDaemon({ home, env: { ...ENV, EMUCTL_FAILPOINTS_FILE: failpoints } });
  };
  const state = async () => {
    const nodes = (await d.api('GET', `/v2/projects/${pid}/nodes`)).body.map((n: any) => n.name).sort();
    const links = (await d.api('GET', `/v2/projects/${pid}/links`)).body.map((l: any) => l.nodes.map((e: any) => `${e.node_id}/${e.port_number}`).join('-')).sort();
    const project = (await d.api('GET', `/v2/projects/${pid}`)).body.name;
    return { nodes, links, project };
  };
  const onDisk = () => {
    const topology = JSON.parse(readFileSync(join(d.home, 'projects', pid, 'lab.gns3'), 'utf8'));
    return { nodes: topology.topology.nodes.map((n: any) => n.name).sort(), links: topology.topology.links.length, name: topology.name };
  };

  before(async () => {
    const home = mkdtempSync(join(tmpdir(), 'emuctl-write-failures-'));
    failpoints = join(home, 'failpoints');
    disarm();
    await start(home);
    pid = await createProject(d, 'lab');
    sw1 = await createNode(d, pid, 'SW1', 'ethernet_switch');
    sw2 = await createNode(d, pid, 'SW2', 'ethernet_switch');
    await createLink(d, pid, [sw1.node_id, 0], [sw2.node_id, 0]);
  });
  after(async () => {
    await d.stop();
    removeHome(d.home);
  });

  it('node create, rename, link create and project rename answer 507 naming the disk problem, and change nothing in memory', async () => {
    const before = await state();
    arm('topology.write:ENOSPC');
    const create = await d.api('POST', `/v2/projects/${pid}/nodes`, { name: 'SW3', node_type: 'ethernet_switch' });
    assert.equal(create.status, 507, create.text);
    assert.match(create.body.message, /no space left on the device \(ENOSPC\)/);
    assert.match(create.body.message, /lab\.gns3/, 'the message names the file');
    const rename = await d.api('PUT', `/v2/projects/${pid}/nodes/${sw1.node_id}`, { name: 'core', x: 100 });
    assert.equal(rename.status, 507, rename.text);
    const link = await d.api('POST', `/v2/projects/${pid}/links`, {
      nodes: [{ node_id: sw1.node_id, adapter_number: 0, port_number: 1 }, { node_id: sw2.node_id, adapter_number: 0, port_number: 1 }],
    });
    assert.equal(link.status, 507, link.text);
    arm('topology.write:EROFS');
    const project = await d.api('PUT', `/v2/projects/${pid}`, { name: 'renamed' });
    assert.equal(project.status, 507, project.text);
    assert.match(project.body.message, /read-only \(EROFS\)/);
    arm('topology.write:EDQUOT');
    const drawing = await d.api('POST', `/v2/projects/${pid}/drawings`, { svg: '<svg></svg>' });
    assert.equal(drawing.status, 507);
    assert.match(drawing.body.message, /quota is exceeded \(EDQUOT\)/);

    assert.deepEqual(await state(), before, 'GET shows the state before the failed writes');
    assert.equal((await d.api('GET', `/v2/projects/${pid}/nodes/${sw1.node_id}`)).body.x, sw1.x, 'the move in the failed update is undone too');
    assert.deepEqual((await d.api('GET', `/v2/projects/${pid}/drawings`)).body, []);
    assert.equal((await d.api('GET', '/v2/projects')).body.filter((p: any) => p.name === 'renamed').length, 0);
  });

  it('concurrent changes in one failed write all get 507 and are all undone', async () => {
    const before = await state();
    arm('topology.write:EIO');
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => d.api('POST', `/v2/projects/${pid}/nodes`, { name: `burst${i}`, node_type: 'ethernet_hub' })));
    assert.deepEqual(answers.map((a) => a.status), Array(8).fill(507));
    assert.match(answers[0].body.message, /I\/O error on the disk \(EIO\)/);
    assert.deepEqual(await state(), before);
  });

  it('once the disk is back the same changes succeed: the failed ones left nothing taken (names, ports)', async () => {
    disarm();
    const sw3 = await createNode(d, pid, 'SW3', 'ethernet_switch');
    assert.equal(sw3.name, 'SW3', 'the name the failed create had is free');
    await createLink(d, pid, [sw1.node_id, 1], [sw2.node_id, 1]);
    assert.equal((await d.api('DELETE', `/v2/projects/${pid}/nodes/${sw3.node_id}`)).status, 204);
    const links = (await d.api('GET', `/v2/projects/${pid}/links`)).body;
    const second = links.find((l: any) => l.nodes[0].port_number === 1);
    assert.equal((await d.api('DELETE', `/v2/projects/${pid}/links/${second.link_id}`)).status, 204);
  });

  it('the disk holds the state before the failures: a restarted daemon shows it', async () => {
    const before = await state();
    arm('topology.write:ENOSPC');
    assert.equal((await d.api('POST', `/v2/projects/${pid}/nodes`, { name: 'ghost', node_type: 'ethernet_switch' })).status, 507);
    assert.equal((await d.api('PUT', `/v2/projects/${pid}/nodes/${sw2.node_id}`, { name: 'ghost2' })).status, 507);
    assert.deepEqual(onDisk(), { nodes: ['SW1', 'SW2'], links: 1, name: 'lab' });
    const home = d.home;
    await d.stop();
    disarm();
    await start(home);
    assert.equal((await d.api('POST', `/v2/projects/${pid}/open`)).status, 201);
    assert.deepEqual(await state(), before, 'the failed changes never reached the disk');
  });
});

describe('a node delete whose write fails is undone whole: the node, its links, their NIOs, filters and capture', () => {
  const MAC_A = '02:00:00:00:11:0a';
  const MAC_B = '02:00:00:00:11:0b';
  let d: TestDaemon;
  let failpoints: string;
  let pid: string;
  let hub: any;
  let a: UdpEndpoint;
  let b: UdpEndpoint;
  let probe: { a: number; b: number };
  const arm = (spec: string) => writeFileSync(failpoints, spec);
  const disarm = () => writeFileSync(failpoints, '');
  const nodePath = (n: any) => `/v2/compute/projects/${pid}/${n.node_type}/nodes/${n.node_id}`;
  /** Everything the delete touches, as the controller and the compute show it. */
  const state = async () => {
    const nodes = (await d.api('GET', `/v2/projects/${pid}/nodes`)).body;
    const links = (await d.api('GET', `/v2/projects/${pid}/links`)).body;
    const nios = await Promise.all(nodes.map(async (n: any) => (await d.api('GET', `${nodePath(n)}/stats`)).body.map((p: any) => p.nio)));
    return { nodes, links, nios };
  };
  /** A frame sent into SW1 crosses both links (through the hub) and comes out of SW2. */
  const flows = async (text: string) => {
    const frame = ethernetFrame(MAC_B, MAC_A, 0x88b5, Buffer.from(text));
    await a.send(frame, probe.a);
    assert.deepEqual(await b.next(), frame, `frame "${text}" crossed the lab`);
  };

  before(async () => {
    const home = mkdtempSync(join(tmpdir(), 'emuctl-delete-failures-'));
    failpoints = join(home, 'failpoints');
    disarm();
    d = await startTestDaemon({ home, env: { EMUCTL_UDP_PORT_RANGE: '23050-23099', EMUCTL_FAILPOINTS_FILE: failpoints } });
    pid = await createProject(d, 'cascade');
    const sw1 = await createNode(d, pid, 'SW1', 'ethernet_switch');
    hub = await createNode(d, pid, 'HUB', 'ethernet_hub');
    const sw2 = await createNode(d, pid, 'SW2', 'ethernet_switch');
    const first = await createLink(d, pid, [sw1.node_id, 0], [hub.node_id, 0]);
    await createLink(d, pid, [hub.node_id, 1], [sw2.node_id, 0]);
    const filtered = await d.api('PUT', `/v2/projects/${pid}/links/${first.link_id}`, { filters: { frequency_drop: [1000] } });
    assert.equal(filtered.status, 201, filtered.text);
    const capture = await d.api('POST', `/v2/projects/${pid}/links/${first.link_id}/start_capture`, {});
    assert.equal(capture.status, 201, capture.text);
    // A tunnel into SW1 and one out of SW2, made on the compute: the probes the frames cross the lab between.
    a = await udpEndpoint();
    b = await udpEndpoint();
    const lport = async () => (await d.api('POST', `/v2/compute/projects/${pid}/ports/udp`, {})).body.udp_port as number;
    probe = { a: await lport(), b: await lport() };
    for (const [sw, local, far] of [[sw1, probe.a, a.port], [sw2, probe.b, b.port]] as const) {
      const nio = await d.api('POST', `${nodePath(sw)}/adapters/0/ports/7/nio`, { type: 'nio_udp', lport: local, rhost: '127.0.0.1', rport: far });
      assert.equal(nio.status, 201, nio.text);
    }
    await flows('before');
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await d.stop();
    removeHome(d.home);
  });

  it('507: GET shows the node and both links exactly as before, the compute keeps their NIOs, filters and capture, and traffic still flows', async () => {
    const before = await state();
    const pcap = before.links[0].capture_file_path;
    arm('topology.write:ENOSPC');
    const r = await d.api('DELETE', `/v2/projects/${pid}/nodes/${hub.node_id}`);
    assert.equal(r.status, 507, r.text);
    assert.match(r.body.message, /no space left on the device/);
    disarm();
    assert.deepEqual(await state(), before);
    const size = statSync(pcap).size;
    await flows('after the failed delete');
    assert.ok(await eventually(() => statSync(pcap).size > size), 'the capture still records the link');
  });

  it('whichever write fails, the delete is all or nothing', async () => {
    const before = await state();
    // `>N`: the first N writes succeed, later ones fail (the disk fills up during the delete).
    for (const passing of [1, 2]) {
      arm(`topology.write:ENOSPC>${passing}`);
      const r = await d.api('DELETE', `/v2/projects/${pid}/nodes/${hub.node_id}`);
      disarm();
      if (r.status === 204) break;
      assert.equal(r.status, 507, r.text);
      assert.deepEqual(await state(), before, `after a delete whose write ${passing + 1} failed`);
      await flows(`after write ${passing + 1} failed`);
    }
  });

  it('with the disk back the delete succeeds: the node, its links and their NIOs are gone', async () => {
    const r = await d.api('DELETE', `/v2/projects/${pid}/nodes/${hub.node_id}`);
    assert.ok(r.status === 204 || r.status === 404, r.text);
    const after = await state();
    assert.deepEqual(after.nodes.map((n: any) => n.name), ['SW1', 'SW2']);
    assert.deepEqual(after.links, []);
    assert.deepEqual(after.nios.map((ports: any[]) => ports.filter(Boolean).map((nio) => nio.lport)), [[probe.a], [probe.b]], 'only the probes\' NIOs are left');
    assert.equal((await d.api('GET', `${nodePath(hub)}/stats`)).status, 404);
  });
});
