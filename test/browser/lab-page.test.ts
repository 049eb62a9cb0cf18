// The daemon's own lab page (/ui/) in real Chromium against a real daemon with real VPCS: every
// bullet of issue 21's proof, through the page only (the CLI adds one node from outside).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import type { Page, Request } from 'playwright-core';
import { EMUCTL_BIN, cliEnv } from '../cli/helpers/cli.js';
import { launchBrowser, type TestBrowser } from '../helpers/browser.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { createLink, createNode, createProject } from '../helpers/lab.js';
import { icmpPackets } from '../helpers/tshark.js';
import { openNodeConsole, trafficOnEveryLink, typeLine, typeUntilAnswer } from './lab-page-console.js';

const run = promisify(execFile);
const TIMEOUT = { timeout: 180_000 };

describe('the lab page at /ui/ in Chromium', () => {
  let d: TestDaemon;
  let browser: TestBrowser;
  let page: Page;
  let pid: string;
  let pc1: any;
  let pc2: any;
  let sw: any;
  let links: any[];
  let scratch: string;

  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'emuctl-lab-page-'));
    d = await startTestDaemon({ env: { EMUCTL_UDP_PORT_RANGE: '24200-24249', EMUCTL_CONSOLE_PORT_RANGE: '24250-24269' } });
    pid = await createProject(d, 'web-lab');
    pc1 = await createNode(d, pid, 'PC1', 'vpcs');
    pc2 = await createNode(d, pid, 'PC2', 'vpcs');
    sw = await createNode(d, pid, 'SW1', 'ethernet_switch');
    links = [await createLink(d, pid, [pc1.node_id, 0], [sw.node_id, 0]), await createLink(d, pid, [pc2.node_id, 0], [sw.node_id, 1])];
    browser = await launchBrowser();
    page = await browser.newPage();
    page.on('pageerror', (err) => console.error(`page error: ${err.message}`));
    page.on('console', (m) => { if (m.type() === 'error') console.error(`page console: ${m.text()}`); });
  });
  after(async () => {
    await browser?.close();
    await d?.stop();
    if (d) removeHome(d.home);
    rmSync(scratch, { recursive: true, force: true });
  });

  const nodeStatus = (name: string) => page.getAttribute(`g.node[data-name="${name}"]`, 'data-status');
  const typeInConsole = (line: string, answer: RegExp) => typeUntilAnswer(page, line, answer);
  const typeOnce = (line: string, answer: RegExp) => typeLine(page, line, answer);
  const openConsoleOf = (name: string) => openNodeConsole(page, name);

  it('lists the project and draws its nodes and links; the page has its own strict CSP', TIMEOUT, async () => {
    const answer = await page.goto(`${d.url}/ui/`);
    assert.equal(answer?.status(), 200);
    const csp = answer!.headers()['content-security-policy'];
    assert.match(csp, /script-src 'self';/);
    assert.match(csp, /connect-src 'self'/);
    await page.waitForSelector('#project-list[data-loaded="true"]');
    assert.match(await page.textContent('#project-list') ?? '', /web-lab/);
    await page.click('#project-list a[data-project-id]');
    await page.waitForSelector('#topology[data-drawn="true"]');
    assert.deepEqual((await page.$$eval('g.node', (els) => els.map((e) => (e as SVGGElement).dataset.name))).sort(), ['PC1', 'PC2', 'SW1']);
    assert.deepEqual((await page.$$eval('g.link', (els) => els.map((e) => (e as SVGGElement).dataset.linkId))).sort(), links.map((l) => l.link_id).sort());
    assert.equal(await nodeStatus('PC1'), 'stopped');
  });

  it('starting the lab from the page turns every node green', TIMEOUT, async () => {
    await page.click('#lab-start');
    await page.waitForFunction(() => [...document.querySelectorAll('g.node')].every((g) => g.classList.contains('status-started')), undefined, { timeout: 60_000 });
    const fill = await page.$eval('g.node[data-name="PC1"] circle', (c) => getComputedStyle(c).fill);
    assert.equal(fill, 'rgb(51, 204, 51)');
  });

  it('typing show ip in a VPCS console in the page shows its address', TIMEOUT, async () => {
    await openConsoleOf('PC2');
    await typeInConsole('ip 198.18.21.2/24', /198\.18\.21\.2 255\.255\.255\.0/);
    await openConsoleOf('PC1');
    await typeInConsole('ip 198.18.21.1/24', /198\.18\.21\.1 255\.255\.255\.0/);
    await typeInConsole('show ip', /IP\/MASK\s+: 198\.18\.21\.1\/24/);
  });

  it('a ping between the two VPCS shows traffic on their links within 2 s', TIMEOUT, async () => {
    // Quiet links first (setting an address sends ARP probes), so the traffic shown is the ping's.
    await page.waitForFunction(() => [...document.querySelectorAll('g.link')].every((g) => Number((g as SVGGElement).dataset.frames ?? 0) === 0), undefined, { timeout: 20_000 });
    await typeOnce('ping 198.18.21.2 -c 5', /198\.18\.21\.2 icmp_seq=1 ttl=/);
    const seen = Date.now();
    await trafficOnEveryLink(page, 2000);
    assert.ok(Date.now() - seen <= 2000);
    assert.match(await page.textContent(`g.link[data-link-id="${links[0].link_id}"] text.rate`) ?? '', /f\/s .*B\/s/);
    await page.waitForFunction(() => /icmp_seq=5 ttl=/.test(document.querySelector('#console .xterm-rows')?.textContent ?? ''), undefined, { timeout: 30_000 });
  });

  it('the traffic poller makes one request per period for the whole project, none per node', TIMEOUT, async () => {
    assert.equal((await d.api('GET', `/v2/projects/${pid}/nodes`)).body.filter((n: any) => n.status === 'started').length, 3);
    const traffic: string[] = [];
    const perNode: string[] = [];
    const count = (request: Request) => {
      const path = new URL(request.url()).pathname;
      if (path === `/v2/projects/${pid}/traffic`) traffic.push(path);
      else if (path.endsWith('/stats')) perNode.push(path);
    };
    page.on('request', count);
    await page.waitForTimeout(3000);
    page.off('request', count);
    // A 1 s period: three requests in 3 s, four at most if one falls on each edge (the per-node poller made six).
    assert.ok(traffic.length >= 1 && traffic.length <= 4, `${traffic.length} traffic requests in 3 s`);
    assert.deepEqual(perNode, []);
  });

  it('a node created from the CLI appears without a reload', TIMEOUT, async () => {
    const url = page.url();
    await run(process.execPath, [EMUCTL_BIN, 'node', 'create', 'PC3', '--type', 'vpcs', '--project', 'web-lab'], { env: cliEnv(scratch, { EMUCTL_URL: d.url }), timeout: 60_000 });
    await page.waitForSelector('g.node[data-name="PC3"]', { timeout: 10_000 });
    assert.equal(page.url(), url);
  });

  it('a capture started from the page lists ICMP packets live and downloads a pcap that tshark reads', TIMEOUT, async () => {
    await page.click(`g.link[data-link-id="${links[0].link_id}"] line.hit`, { force: true });
    await page.click('#capture-start');
    await page.waitForSelector('#capture-download', { timeout: 20_000 });
    await page.locator('#console .xterm-helper-textarea').pressSequentially('ping 198.18.21.2 -c 4\r');
    await page.waitForFunction(() => document.querySelectorAll('#packets tbody tr[data-protocol="ICMP"]').length >= 2, undefined, { timeout: 20_000 });
    const row = await page.$eval('#packets tbody tr[data-protocol="ICMP"]', (tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent));
    assert.ok(row.includes('198.18.21.1') && row.includes('198.18.21.2'), JSON.stringify(row));
    // More frames than the list keeps: it shows the last 200, numbered up to the count.
    await page.locator('#console .xterm-helper-textarea').pressSequentially('ping 198.18.21.2 -c 200 -i 5\r');
    await page.waitForFunction(() => Number(document.getElementById('packet-count')!.textContent) >= 400, undefined, { timeout: 60_000 });
    await page.waitForFunction(() => /icmp_seq=200 /.test(document.querySelector('#console .xterm-rows')?.textContent ?? ''), undefined, { timeout: 60_000 });
    await page.waitForTimeout(500);
    const list = await page.evaluate(() => ({
      rows: document.querySelectorAll('#packets tbody tr').length,
      last: Number(document.querySelector('#packets tbody tr:last-child td')!.textContent),
      count: Number(document.getElementById('packet-count')!.textContent),
    }));
    assert.equal(list.rows, 200);
    assert.equal(list.last, list.count);
    // The pcap streams until the capture stops: start the download, then stop the capture from the page.
    const download = page.waitForEvent('download', { timeout: 60_000 });
    await page.click('#capture-download');
    const file = await download;
    await page.click('#capture-stop');
    const path = join(scratch, 'page.pcap');
    await file.saveAs(path);
    const icmp = await icmpPackets(path);
    assert.ok(icmp.some((p) => p.src === '198.18.21.1' && p.dst === '198.18.21.2' && p.type === 8), JSON.stringify(icmp));
    // A second capture on the same link gets a list of its own.
    await page.waitForSelector('#capture-start', { timeout: 20_000 });
    await page.click('#capture-start');
    await page.waitForSelector('#capture-stop', { timeout: 20_000 });
    await page.waitForFunction(() => Number(document.getElementById('packet-count')!.textContent) < 400, undefined, { timeout: 20_000 });
    await page.locator('#console .xterm-helper-textarea').pressSequentially('ping 198.18.21.2 -c 2\r');
    await page.waitForFunction(() => document.querySelectorAll('#packets tbody tr[data-protocol="ICMP"]').length >= 2, undefined, { timeout: 20_000 });
    assert.ok(Number(await page.textContent('#packet-count')) < 50);
    await page.click('#capture-stop');
    await page.waitForSelector('#capture-start', { timeout: 20_000 });
  });

  it('sets a link filter from the form read from available_filters, and suspends the link', TIMEOUT, async () => {
    const link = links[1];
    await page.click(`g.link[data-link-id="${link.link_id}"] line.hit`, { force: true });
    await page.click('details:has(#filters) > summary');
    await page.fill('#filters input[name="delay.0"]', '25');
    await page.fill('#filters input[name="delay.1"]', '3');
    await page.click('#filters button[type="submit"]');
    await page.waitForSelector(`g.link.filtered[data-link-id="${link.link_id}"]`, { timeout: 20_000 });
    assert.deepEqual((await d.api('GET', `/v2/projects/${pid}/links/${link.link_id}`)).body.filters, { delay: [25, 3] });
    await page.click('#link-suspend');
    await page.waitForSelector(`g.link.suspended[data-link-id="${link.link_id}"]`, { timeout: 20_000 });
    assert.equal((await d.api('GET', `/v2/projects/${pid}/links/${link.link_id}`)).body.suspend, true);
  });

  it('stops one node from the page', TIMEOUT, async () => {
    await page.click('g.node[data-name="PC2"]');
    // A node of a lab without a management network has no management line in its panel.
    await page.waitForSelector('#node-stop');
    assert.equal(await page.$('#node-mgmt'), null);
    await page.click('#node-stop');
    await page.waitForSelector('g.node.status-stopped[data-name="PC2"]', { timeout: 30_000 });
    assert.equal((await d.api('GET', `/v2/projects/${pid}/nodes/${pc2.node_id}`)).body.status, 'stopped');
  });

  it('shows the project as lab save writes it, ready to copy', TIMEOUT, async () => {
    await page.click('#lab-file-show');
    await page.waitForFunction(() => /PC3:/.test(document.getElementById('lab-file')!.textContent!), undefined, { timeout: 20_000 }).catch(async (err) => {
      throw new Error(`no lab file; the page says: ${await page.textContent('#error')}`, { cause: err });
    });
    const text = await page.textContent('#lab-file') ?? '';
    assert.match(text, /^name: web-lab$/m);
    assert.match(text, /^ {2}PC1:\n {4}type: vpcs$/m);
    assert.match(text, /^ {2}SW1:\n {4}type: ethernet_switch/m);
    const { stdout } = await run(process.execPath, [EMUCTL_BIN, 'lab', 'save', 'web-lab'], { env: cliEnv(scratch, { EMUCTL_URL: d.url }), timeout: 60_000 });
    // The CLI adds its local schema's path for editors; the page has no such file to point at.
    assert.equal(text, stdout.replace(/^# yaml-language-server: .*\n/, ''), 'the page shows what lab save writes');
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: d.url });
    await page.click('#lab-file-copy');
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), text);
  });
});
