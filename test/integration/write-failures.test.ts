// A topology write that fails (full disk, quota, read-only file system: a failpoint stands for the
// failing system call) undoes the change: 507 naming the problem, the state unchanged in memory and on disk.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestDaemon, removeHome, type TestDaemon } from '../helpers/daemon.js';
import { createLink, createNode, createProject } from '../helpers/lab.js';

const ENV = { EMUCTL_UDP_PORT_RANGE: '35500-35599' };

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
