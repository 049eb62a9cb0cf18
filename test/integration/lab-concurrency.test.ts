// Topology changes in one project are coordinated by its lab: concurrent creates never share a name,
// a node being deleted takes no new link, and a slow compute delays only the changes that wait for it.
// The slow compute is a second real daemon held at a failpoint (EMUCTL_FAILPOINTS_FILE) until released.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestDaemon, removeHome, type ApiAnswer, type TestDaemon } from '../helpers/daemon.js';
import { createLink, createNode, createProject } from '../helpers/lab.js';
import { eventually } from '../kinds/vpcs/vpcs-helpers.js';

const CONTROLLER_ENV = { EMUCTL_UDP_PORT_RANGE: '21600-21699', EMUCTL_CONSOLE_PORT_RANGE: '27700-27719' };
const COMPUTE_ENV = { EMUCTL_UDP_PORT_RANGE: '21700-21749', EMUCTL_CONSOLE_PORT_RANGE: '27720-27739' };
const HOLD = 'compute.request.hold';

/** Resolves once the daemon logs a line matching `pattern` after the call (earlier lines do not count). */
async function nextLog(d: TestDaemon, pattern: RegExp): Promise<void> {
  const from = d.log().length;
  while (!pattern.test(d.log().slice(from))) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** A request whose settling the test can observe without waiting for it. */
function watch(request: Promise<ApiAnswer>) {
  const state = { settled: false };
  const done = request.finally(() => (state.settled = true));
  return { state, done };
}

const linkBody = (a: string, pa: number, b: string, pb: number) => ({
  nodes: [{ node_id: a, adapter_number: 0, port_number: pa }, { node_id: b, adapter_number: 0, port_number: pb }],
});

describe('topology changes coordinated by the lab', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'emuctl-lab-concurrency-'));
  const holdFile = join(tmp, 'compute-failpoints');
  let controller: TestDaemon;
  let remote: TestDaemon;
  let computeId: string;
  const hold = () => writeFileSync(holdFile, HOLD);
  const release = () => writeFileSync(holdFile, '');

  before(async () => {
    release();
    controller = await startTestDaemon({ home: join(tmp, 'controller'), env: CONTROLLER_ENV });
    remote = await startTestDaemon({ home: join(tmp, 'compute'), flags: { role: 'compute' }, env: { ...COMPUTE_ENV, EMUCTL_FAILPOINTS_FILE: holdFile } });
    const r = await controller.api('POST', '/v2/computes', { name: 'slow', protocol: 'http', host: '127.0.0.1', port: remote.port });
    assert.equal(r.status, 201, r.text);
    computeId = r.body.compute_id;
  });
  after(async () => {
    release();
    await controller?.stop();
    await remote?.stop();
    removeHome(tmp);
  });

  it('concurrent creates of SW1: every node gets its own name, as GNS3 allocates them (one SW1, the others renamed)', async () => {
    const pid = await createProject(controller, 'names');
    const answers = await Promise.all(Array.from({ length: 3 }, () => controller.api('POST', `/v2/projects/${pid}/nodes`, { name: 'SW1', node_type: 'ethernet_switch' })));
    assert.deepEqual(answers.map((a) => a.status), [201, 201, 201], answers.map((a) => a.text).join('\n'));
    const names = answers.map((a) => a.body.name);
    assert.equal(names.filter((n) => n === 'SW1').length, 1, `exactly one SW1: ${names}`);
    assert.deepEqual([...names].sort(), ['SW1', 'SW2', 'SW3']);
    const more = await Promise.all(Array.from({ length: 8 }, () => controller.api('POST', `/v2/projects/${pid}/nodes`, { name: 'SW1', node_type: 'ethernet_hub' })));
    assert.ok(more.every((a) => a.status === 201));
    const listed = (await controller.api('GET', `/v2/projects/${pid}/nodes`)).body.map((n: any) => n.name);
    assert.equal(listed.length, 11);
    assert.equal(new Set(listed).size, 11, `no two nodes share a name: ${listed}`);
    const hub = more[0].body;
    const renames = await Promise.all(more.slice(1, 5).map((a) => controller.api('PUT', `/v2/projects/${pid}/nodes/${a.body.node_id}`, { name: hub.name })));
    assert.ok(renames.every((a) => a.status === 200));
    const after = (await controller.api('GET', `/v2/projects/${pid}/nodes`)).body.map((n: any) => n.name);
    assert.equal(new Set(after).size, 11, `concurrent renames to a taken name give distinct names: ${after}`);
  });

  it('a node being deleted takes no new link (it is gone once its delete is on disk, while its NIOs are removed); when the delete is done no link names it', async () => {
    const pid = await createProject(controller, 'cascade');
    const far = await createNode(controller, pid, 'FAR', 'ethernet_switch', { compute_id: computeId });
    const near = await createNode(controller, pid, 'NEAR', 'ethernet_switch');
    await createLink(controller, pid, [far.node_id, 0], [near.node_id, 0]);
    hold();
    const held = nextLog(remote, /failpoint compute\.request\.hold: holding DELETE .*\/nio/);
    const deletion = watch(controller.api('DELETE', `/v2/projects/${pid}/nodes/${far.node_id}`));
    await held;
    // The delete is on disk before the NIOs go (so a failed write leaves them untouched): FAR is already gone.
    const link = await controller.api('POST', `/v2/projects/${pid}/links`, linkBody(far.node_id, 1, near.node_id, 1));
    assert.equal(link.status, 404, link.text);
    assert.match(link.body.message, new RegExp(`Node ID ${far.node_id} doesn't exist`));
    assert.equal((await controller.api('GET', `/v2/projects/${pid}/nodes/${far.node_id}`)).status, 404);
    assert.equal(deletion.state.settled, false, 'the delete was still under way');
    release();
    assert.equal((await deletion.done).status, 204);
    const links = (await controller.api('GET', `/v2/projects/${pid}/links`)).body;
    assert.deepEqual(links.filter((l: any) => l.nodes.some((e: any) => e.node_id === far.node_id)), []);
    assert.equal((await controller.api('GET', `/v2/projects/${pid}/nodes/${far.node_id}`)).status, 404);
    const near2 = await createNode(controller, pid, 'NEAR2', 'ethernet_switch');
    await createLink(controller, pid, [near.node_id, 0], [near2.node_id, 0]);
  });

  it('a VPCS created while another is being deleted does not get its MAC: the compute holds it until the delete reaches it', async () => {
    const pid = await createProject(controller, 'macs');
    const leaving = await createNode(controller, pid, 'PC1', 'vpcs', { compute_id: computeId });
    hold();
    const held = nextLog(remote, /failpoint compute\.request\.hold: holding DELETE \/v2\/compute\/projects\/.*\/vpcs\/nodes\//);
    const deletion = watch(controller.api('DELETE', `/v2/projects/${pid}/nodes/${leaving.node_id}`));
    await held;
    const arriving = await createNode(controller, pid, 'PC2', 'vpcs');
    assert.notEqual(arriving.properties.mac_address, leaving.properties.mac_address, 'two VPCS of one lab with one MAC');
    assert.equal(deletion.state.settled, false, 'the delete was still under way');
    release();
    assert.equal((await deletion.done).status, 204);
    const again = await createNode(controller, pid, 'PC3', 'vpcs', { compute_id: computeId });
    assert.equal(again.properties.mac_address, leaving.properties.mac_address, 'once the delete is done its MAC is free again');
  });

  it('a slow compute delays only the changes that wait for it: its own project goes on with other nodes, other projects are untouched', async () => {
    const slowProject = await createProject(controller, 'slow-one');
    const fastProject = await createProject(controller, 'fast-one');
    const localInSlow = await createNode(controller, slowProject, 'LOCAL', 'ethernet_switch');
    hold();
    const held = nextLog(remote, /failpoint compute\.request\.hold: holding POST \/v2\/compute\/projects/);
    const slowCreate = watch(controller.api('POST', `/v2/projects/${slowProject}/nodes`, { name: 'FAR', node_type: 'ethernet_switch', compute_id: computeId }));
    await held;

    // The other project: node create, link create, rename, drawing, link delete, node delete.
    const a = await createNode(controller, fastProject, 'A', 'ethernet_switch');
    const b = await createNode(controller, fastProject, 'B', 'ethernet_hub');
    const link = await createLink(controller, fastProject, [a.node_id, 0], [b.node_id, 0]);
    assert.equal((await controller.api('PUT', `/v2/projects/${fastProject}/nodes/${a.node_id}`, { name: 'A2' })).status, 200);
    assert.equal((await controller.api('POST', `/v2/projects/${fastProject}/drawings`, { svg: '<svg></svg>' })).status, 201);
    assert.equal((await controller.api('DELETE', `/v2/projects/${fastProject}/links/${link.link_id}`)).status, 204);
    assert.equal((await controller.api('DELETE', `/v2/projects/${fastProject}/nodes/${b.node_id}`)).status, 204);
    // The slow compute's own project: changes to its local nodes go on too.
    const other = await createNode(controller, slowProject, 'LOCAL2', 'ethernet_switch');
    await createLink(controller, slowProject, [localInSlow.node_id, 0], [other.node_id, 0]);
    assert.equal((await controller.api('PUT', `/v2/projects/${slowProject}/nodes/${other.node_id}`, { name: 'FAR' })).body.name, 'FAR1', 'the name the held create reserved stays taken');

    assert.equal(slowCreate.state.settled, false, 'the create on the slow compute was still waiting after all of them');
    release();
    const created = await slowCreate.done;
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.name, 'FAR');
  });
});

describe('calls to a compute are bounded by compute_timeout_ms', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'emuctl-compute-timeout-'));
  const holdFile = join(tmp, 'compute-failpoints');
  let controller: TestDaemon;
  let remote: TestDaemon;
  let computeId: string;

  before(async () => {
    writeFileSync(holdFile, '');
    controller = await startTestDaemon({ home: join(tmp, 'controller'), env: { EMUCTL_UDP_PORT_RANGE: '21750-21774', EMUCTL_COMPUTE_TIMEOUT_MS: '1000' } });
    remote = await startTestDaemon({ home: join(tmp, 'compute'), flags: { role: 'compute' }, env: { EMUCTL_UDP_PORT_RANGE: '21775-21799', EMUCTL_FAILPOINTS_FILE: holdFile } });
    const r = await controller.api('POST', '/v2/computes', { name: 'stuck', protocol: 'http', host: '127.0.0.1', port: remote.port });
    assert.equal(r.status, 201, r.text);
    computeId = r.body.compute_id;
  });
  after(async () => {
    writeFileSync(holdFile, '');
    await controller?.stop();
    await remote?.stop();
    removeHome(tmp);
  });

  it('a compute that does not answer gives a 504 naming it, and leaves nothing reserved in the lab', async () => {
    const pid = await createProject(controller, 'timeouts');
    writeFileSync(holdFile, HOLD);
    const started = Date.now();
    const create = await controller.api('POST', `/v2/projects/${pid}/nodes`, { name: 'SW1', node_type: 'ethernet_switch', compute_id: computeId });
    assert.equal(create.status, 504, create.text);
    assert.match(create.body.message, /compute 'stuck'.*did not answer/);
    assert.ok(Date.now() - started >= 900, 'the timeout is honoured');
    const local = await createNode(controller, pid, 'SW1', 'ethernet_switch');
    assert.equal(local.name, 'SW1', 'the failed create gave its name back');
    writeFileSync(holdFile, '');
  });

  it('a node create the compute finishes after the time-out leaves no orphan: the controller deletes it there', async () => {
    const pid = await createProject(controller, 'late-create');
    const kept = await createNode(controller, pid, 'SW1', 'ethernet_switch', { compute_id: computeId });
    const onCompute = (nodeId: string) => remote.api('GET', `/v2/compute/projects/${pid}/ethernet_switch/nodes/${nodeId}`);
    const nodeId = randomUUID();
    writeFileSync(holdFile, HOLD);
    const create = await controller.api('POST', `/v2/projects/${pid}/nodes`, { name: 'SW2', node_type: 'ethernet_switch', compute_id: computeId, node_id: nodeId });
    assert.equal(create.status, 504, create.text);
    assert.equal((await controller.api('GET', `/v2/projects/${pid}/nodes/${nodeId}`)).status, 404);
    const cleaned = /removed node [0-9a-f-]+ .*created after the controller gave up/;
    writeFileSync(holdFile, '');
    // The held create goes on once released: wait until it is done (the node shows) or already cleaned up.
    assert.ok(await eventually(async () => cleaned.test(controller.log()) || (await onCompute(nodeId)).status === 200), 'the late create completed');
    assert.ok(await eventually(async () => (await onCompute(nodeId)).status === 404, 10_000), 'the late node is gone from the compute');
    // The controller logs once the compute has answered its delete, which the GET above may beat.
    const removed = new RegExp(`removed node ${nodeId} .*created after the controller gave up`);
    await eventually(async () => removed.test(controller.log()), 10_000);
    assert.match(controller.log(), removed);
    assert.equal((await onCompute(kept.node_id)).status, 200, 'the other node stays');
    const again = await createNode(controller, pid, 'SW2', 'ethernet_switch', { compute_id: computeId, node_id: nodeId });
    assert.equal(again.node_id, nodeId, 'the id is free again on the compute');
  });
});
