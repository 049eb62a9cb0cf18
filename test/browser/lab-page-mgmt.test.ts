// The lab page in real Chromium shows a node's management addresses in its panel: a lab brought up
// by `lab up` with `mgmt: {}` (real daemon, real Docker with the project's test image), its docker
// node's panel lists the node's IPv4 and IPv6 management addresses as the API has them, and a VPCS
// of the same lab (no management interface) has no such line.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { EMUCTL_BIN, cliEnv, removeTempHome, tempHome } from '../cli/helpers/cli.js';
import { launchBrowser, type TestBrowser } from '../helpers/browser.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { testImage } from '../helpers/docker-images.js';

const run = promisify(execFile);
const TIMEOUT = { timeout: 600_000 };
const ENV = { EMUCTL_MGMT_RANGE: '198.19.32.0/19', EMUCTL_UDP_PORT_RANGE: '21250-21274', EMUCTL_CONSOLE_PORT_RANGE: '21275-21299' };

describe('the lab page shows management addresses', () => {
  let d: TestDaemon;
  let browser: TestBrowser;
  let page: Page;
  const home = tempHome();
  let env: NodeJS.ProcessEnv;
  let up = false;

  const emuctl = (...argv: string[]) => run(process.execPath, [EMUCTL_BIN, '--url', d.url, ...argv], { env, timeout: 300_000 });

  before(async () => {
    d = await startTestDaemon({ env: ENV });
    env = cliEnv(home);
    browser = await launchBrowser();
    page = await browser.newPage();
    page.on('pageerror', (err) => console.error(`page error: ${err.message}`));
  });
  after(async () => {
    await browser?.close();
    if (up) await emuctl('lab', 'down', 'web-mgmt').catch((err: Error) => console.error(`lab down: ${err.message}`));
    await d?.stop();
    if (d) removeHome(d.home);
    removeTempHome(home);
  });

  it("a docker node's panel shows its management IPv4 and IPv6; a VPCS's shows none", TIMEOUT, async () => {
    const image = await testImage('host');
    const file = join(home, 'lab.yml');
    writeFileSync(file, `name: web-mgmt\nmgmt: {ssh: false}\nnodes:\n  R1: {type: docker, image: "${image}", cmd: "sleep 100000"}\n  PC1: {type: vpcs}\n`);
    const { stdout } = await emuctl('lab', 'up', file, '--json');
    up = true;
    const projectId = JSON.parse(stdout).project_id as string;
    const nodes = (await d.api('GET', `/v2/projects/${projectId}/nodes`)).body as { name: string; properties: Record<string, unknown> }[];
    const r1 = nodes.find((n) => n.name === 'R1')!;
    const v4 = String(r1.properties.mgmt_ipv4);
    const v6 = String(r1.properties.mgmt_ipv6);
    assert.match(v4, /^198\.19\.(3[2-9]|[4-5]\d|6[0-3])\.\d+\/24$/, 'an address of the configured range');
    assert.match(v6, /^[0-9a-f:]+\/64$/, 'and an IPv6 one (mgmt: {} has IPv6 on)');

    await page.goto(`${d.url}/ui/`);
    await page.waitForSelector('#project-list[data-loaded="true"]');
    await page.click(`#project-list a[data-project-id="${projectId}"]`);
    await page.waitForSelector('#topology[data-drawn="true"]');
    await page.click('g.node[data-name="R1"]');
    await page.waitForSelector('#node-mgmt');
    assert.equal(await page.textContent('#node-mgmt'), `Management: ${v4}, ${v6}`);

    await page.click('g.node[data-name="PC1"]');
    await page.waitForFunction(() => /^PC1 /.test(document.querySelector('#details h2')?.textContent ?? ''));
    assert.equal(await page.$('#node-mgmt'), null, 'a VPCS has no management address');
  });
});
