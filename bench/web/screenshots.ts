// Makes the README's screenshots of the lab page (docs/lab-page*.png): a small lab of real VPCS
// behind a switch, started, pinging, one link captured and a console open.
// Usage: npm run build && node dist/bench/web/screenshots.js [output directory, default docs]
import { join, resolve } from 'node:path';
import { launchBrowser, type TestBrowser } from '../../test/helpers/browser.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../../test/helpers/daemon.js';
import { runBench } from '../lib/run-bench.js';

const OUT = resolve(process.argv[2] ?? 'docs');
let daemon: TestDaemon | undefined;
let browser: TestBrowser | undefined;

async function call(method: string, path: string, body?: unknown): Promise<any> {
  const r = await daemon!.api(method, path, body);
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
  return r.body;
}

async function main(): Promise<void> {
  daemon = await startTestDaemon({ env: { EMUCTL_UDP_PORT_RANGE: '36300-36349', EMUCTL_CONSOLE_PORT_RANGE: '22350-22359' } });
  const pid = (await call('POST', '/v2/projects', { name: 'demo' })).project_id;
  const sw = await call('POST', `/v2/projects/${pid}/nodes`, { name: 'SW1', node_type: 'ethernet_switch' });
  const pcs = [];
  for (let i = 1; i <= 3; i++) pcs.push(await call('POST', `/v2/projects/${pid}/nodes`, { name: `PC${i}`, node_type: 'vpcs' }));
  const links = [];
  for (const [i, pc] of pcs.entries()) {
    links.push(await call('POST', `/v2/projects/${pid}/links`, { nodes: [{ node_id: pc.node_id, adapter_number: 0, port_number: 0 }, { node_id: sw.node_id, adapter_number: 0, port_number: i }] }));
  }
  await call('PUT', `/v2/projects/${pid}/links/${links[2].link_id}`, { filters: { delay: [20, 5] } });
  browser = await launchBrowser();
  const page = await browser.newPage();
  await page.setViewportSize({ width: 1200, height: 720 });
  await page.goto(`${daemon.url}/ui/?project=${pid}`);
  await page.waitForSelector('#topology[data-drawn="true"]');
  await page.click('#lab-start');
  await page.waitForFunction(() => [...document.querySelectorAll('g.node')].every((g) => g.classList.contains('status-started')), undefined, { timeout: 60_000 });
  const type = async (line: string) => page.locator('#console .xterm-helper-textarea').pressSequentially(`${line}\r`);
  for (const [i, name] of ['PC2', 'PC1'].entries()) {
    await page.click(`g.node[data-name="${name}"]`);
    await page.click('#node-console');
    await page.waitForSelector('#console[data-state="open"]');
    await new Promise((r) => setTimeout(r, 1500));
    await type(`ip 198.18.21.${2 - i}/24`);
    await new Promise((r) => setTimeout(r, 500));
  }
  await page.click(`g.link[data-link-id="${links[0].link_id}"] line.hit`, { force: true });
  await page.click('#capture-start');
  await page.waitForSelector('#capture-download');
  await type('ping 198.18.21.2 -c 100 -i 0.2');
  await page.waitForFunction(() => document.querySelectorAll('#packets tbody tr').length >= 8, undefined, { timeout: 30_000 });
  await new Promise((r) => setTimeout(r, 2500));
  await page.screenshot({ path: join(OUT, 'lab-page.png') });
  await page.click('#lab-file-show');
  await page.waitForFunction(() => document.getElementById('lab-file')!.textContent !== '');
  await page.click(`g.link[data-link-id="${links[2].link_id}"] line.hit`, { force: true });
  await page.waitForSelector('#filters');
  await page.screenshot({ path: join(OUT, 'lab-page-filters.png') });
  console.log(`wrote ${join(OUT, 'lab-page.png')} and ${join(OUT, 'lab-page-filters.png')}`);
}

await runBench('lab page screenshots', 300_000, main, async () => {
  await browser?.close();
  await daemon?.stop();
  if (daemon) removeHome(daemon.home);
});
