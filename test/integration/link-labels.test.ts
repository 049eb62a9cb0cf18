import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { startTestDaemon, removeHome, type TestDaemon } from '../helpers/daemon.js';
import { openWebSocket } from '../helpers/notifications.js';

/** The style GNS3 2.2's controller gives the link labels it makes. */
const GNS3_STYLE = 'font-family: TypeWriter;font-size: 10.0;font-weight: bold;fill: #000000;fill-opacity: 1.0;';

describe('link end labels, as GNS3 makes and keeps them', () => {
  let d: TestDaemon;
  let pid: string;
  let base: string;
  const nodes: string[] = [];

  const topologyFile = async () => {
    const project = (await d.api('GET', `/v2/projects/${pid}`)).body;
    return JSON.parse(readFileSync(`${project.path}/${project.filename}`, 'utf8'));
  };
  const savedLink = async (linkId: string) => (await topologyFile()).topology.links.find((l: any) => l.link_id === linkId);

  before(async () => {
    d = await startTestDaemon();
    pid = (await d.api('POST', '/v2/projects', { name: 'labels' })).body.project_id;
    base = `/v2/projects/${pid}`;
    for (const name of ['SW1', 'SW2', 'SW3']) nodes.push((await d.api('POST', `${base}/nodes`, { name, node_type: 'ethernet_switch' })).body.node_id);
  });
  after(async () => {
    await d.stop();
    removeHome(d.home);
  });

  it('a link made without labels gets GNS3\'s default ones, in its JSON, its link.created notification and the .gns3 file', async () => {
    const ws = await openWebSocket(d.url, `${base}/notifications/ws`);
    try {
      const r = await d.api('POST', `${base}/links`, { nodes: [
        { node_id: nodes[0], adapter_number: 0, port_number: 2 },
        { node_id: nodes[1], adapter_number: 0, port_number: 5 },
      ] });
      assert.equal(r.status, 201, r.text);
      const expected = [{ text: '0/2', style: GNS3_STYLE }, { text: '0/5', style: GNS3_STYLE }];
      assert.deepEqual(r.body.nodes.map((e: any) => e.label), expected);
      const created = await ws.next('link.created');
      assert.deepEqual(created.event.nodes.map((e: any) => e.label), expected);
      assert.deepEqual((await d.api('GET', `${base}/links/${r.body.link_id}`)).body.nodes.map((e: any) => e.label), expected);
      assert.deepEqual((await savedLink(r.body.link_id)).nodes.map((e: any) => e.label), expected);
    } finally {
      ws.socket.close();
    }
  });

  it('a label a client sends is kept; an update replaces only the end it names, and null changes nothing', async () => {
    const mine = { text: 'e1', style: 'fill: #ff0000;', x: 12, y: -4, rotation: 90 };
    const r = await d.api('POST', `${base}/links`, { nodes: [
      { node_id: nodes[0], adapter_number: 0, port_number: 1, label: mine },
      { node_id: nodes[2], adapter_number: 0, port_number: 1, label: null },
    ] });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.body.nodes[0].label, mine);
    assert.deepEqual(r.body.nodes[1].label, { text: '0/1', style: GNS3_STYLE });
    const ws = await openWebSocket(d.url, `${base}/notifications/ws`);
    try {
      const moved = { ...mine, x: 30 };
      // The end is named by its node, whatever the order of the list (GNS3 matches by node_id).
      const u = await d.api('PUT', `${base}/links/${r.body.link_id}`, { nodes: [
        { node_id: nodes[2], adapter_number: 0, port_number: 1, label: null },
        { node_id: nodes[0], adapter_number: 0, port_number: 1, label: moved },
      ] });
      assert.equal(u.status, 201, u.text);
      assert.deepEqual(u.body.nodes.map((e: any) => e.label), [moved, { text: '0/1', style: GNS3_STYLE }]);
      const updated = await ws.next('link.updated');
      assert.deepEqual(updated.event.nodes.map((e: any) => e.label), [moved, { text: '0/1', style: GNS3_STYLE }]);
      assert.deepEqual((await savedLink(r.body.link_id)).nodes.map((e: any) => e.label), [moved, { text: '0/1', style: GNS3_STYLE }]);
    } finally {
      ws.socket.close();
    }
  });

  it('a label that is not GNS3\'s label object is a 400 naming the field', async () => {
    for (const label of [{ style: 'x' }, { text: 'a', colour: 'red' }, { text: 'a', rotation: 400 }, 'e0']) {
      const r = await d.api('POST', `${base}/links`, { nodes: [
        { node_id: nodes[1], adapter_number: 0, port_number: 7, label },
        { node_id: nodes[2], adapter_number: 0, port_number: 7 },
      ] });
      assert.equal(r.status, 400, JSON.stringify(label));
      assert.match(r.body.message, /label/);
    }
  });

  it('links saved with "label": null (older emuctl) get the default labels when the project is read again', async () => {
    const file = await topologyFile();
    const linkId = file.topology.links[0].link_id;
    await d.api('POST', `${base}/close`, {});
    const project = (await d.api('GET', `/v2/projects/${pid}`)).body;
    for (const link of file.topology.links) for (const end of link.nodes) end.label = null;
    writeFileSync(`${project.path}/${project.filename}`, JSON.stringify(file));
    await d.stop();
    d = await startTestDaemon({ home: d.home });
    assert.equal((await d.api('POST', `${base}/open`, {})).status, 201);
    const link = (await d.api('GET', `${base}/links/${linkId}`)).body;
    assert.deepEqual(link.nodes.map((e: any) => e.label), [{ text: '0/2', style: GNS3_STYLE }, { text: '0/5', style: GNS3_STYLE }]);
  });
});
