// The lab page's traffic for nodes on a remote compute: a compute-only daemon registered with the
// controller runs PC2 and the switch, so the PC2–switch link's counters are only on the remote
// compute; the page reads them through the controller's traffic route, which asks that compute.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { launchBrowser, type TestBrowser } from '../helpers/browser.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { createLink, createNode, createProject } from '../helpers/lab.js';
import { openNodeConsole, trafficOnEveryLink, typeLine, typeUntilAnswer } from './lab-page-console.js';

const TIMEOUT = { timeout: 180_000 };

describe('the lab page with nodes on a remote compute', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'emuctl-lab-page-remote-'));
  let controller: TestDaemon;
  let remote: TestDaemon;
  let browser: TestBrowser;
  let page: Page;
  let pid: string;

  before(async () => {
    controller = await startTestDaemon({ home: join(tmp, 'controller'), env: { EMUCTL_UDP_PORT_RANGE: '24300-24349', EMUCTL_CONSOLE_PORT_RANGE: '24350-24359' } });
    remote = await startTestDaemon({ home: join(tmp, 'compute'), flags: { role: 'compute' }, env: { EMUCTL_UDP_PORT_RANGE: '24360-24409', EMUCTL_CONSOLE_PORT_RANGE: '24410-24419' } });
    const compute = await controller.api('POST', '/v2/computes', { name: 'remote', protocol: 'http', host: '127.0.0.1', port: remote.port });
    assert.equal(compute.status, 201, compute.text);
    const computeId = compute.body.compute_id;
    pid = await createProject(controller, 'remote-lab');
    // Placed nodes: the page keeps the project's positions instead of laying them out.
    const sw = await createNode(controller, pid, 'SW1', 'ethernet_switch', { compute_id: computeId, x: 0, y: 0 });
    const pc1 = await createNode(controller, pid, 'PC1', 'vpcs', { compute_id: 'local', x: -200, y: 100 });
    const pc2 = await createNode(controller, pid, 'PC2', 'vpcs', { compute_id: computeId, x: 200, y: 100 });
    await createLink(controller, pid, [pc1.node_id, 0], [sw.node_id, 0]);
    await createLink(controller, pid, [pc2.node_id, 0], [sw.node_id, 1]);
    browser = await launchBrowser();
    page = await browser.newPage();
  });
  after(async () => {
    await browser?.close();
    await controller?.stop();
    await remote?.stop();
    removeHome(tmp);
  });

  it('draws the nodes where the project placed them and shows traffic on the link whose counters are on the remote compute', TIMEOUT, async () => {
    await page.goto(`${controller.url}/ui/?project=${pid}`);
    await page.waitForSelector('#topology[data-drawn="true"]');
    assert.deepEqual(await page.$$eval('g.node', (els) => els.map((g) => `${(g as SVGGElement).dataset.name} ${g.getAttribute('transform')}`).sort()),
      ['PC1 translate(-200 100)', 'PC2 translate(200 100)', 'SW1 translate(0 0)']);
    await page.click('#lab-start');
    await page.waitForFunction(() => [...document.querySelectorAll('g.node')].every((g) => g.classList.contains('status-started')), undefined, { timeout: 60_000 });
    await openNodeConsole(page, 'PC2');
    await typeUntilAnswer(page, 'ip 198.18.22.2/24', /198\.18\.22\.2 255\.255\.255\.0/);
    await openNodeConsole(page, 'PC1');
    await typeUntilAnswer(page, 'ip 198.18.22.1/24', /198\.18\.22\.1 255\.255\.255\.0/);
    await typeLine(page, 'ping 198.18.22.2 -c 5', /198\.18\.22\.2 icmp_seq=1 ttl=/);
    await trafficOnEveryLink(page, 10_000);
    assert.equal(await page.locator('g.link').count(), 2);
  });
});
