// Lab page bench (issue 21), in headless Chromium against a real daemon:
// 1. page load → topology drawn, for a 200-node / 250-link lab with no positions (dagre lays it
//    out): from navigation start to the moment the SVG holds every node and link (target ≤ 2 s);
// 2. API event → visible change: a node renamed through the API, from the call to the next frame
//    painted after the page's SVG changed (target: median ≤ 200 ms);
// 3. console keystroke → echo: a key typed in a VPCS console in the page, from the key press to the
//    frame painted after xterm.js shows the echo (target: median ≤ 50 ms);
// 4. the traffic poller's load: the page's requests for counters per second with the lab open (every
//    hub is always started), and how long the daemon takes to answer one.
// Usage: npm run build && node dist/bench/web/run.js [--nodes 200] [--links 250] [--loads 5] [--events 30] [--keys 40] [--poll-seconds 10]
import { connect } from 'node:net';
import type { Page, Request } from 'playwright-core';
import { launchBrowser, type TestBrowser } from '../../test/helpers/browser.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../../test/helpers/daemon.js';
import { machineLine } from '../forward/latency.js';
import { numberArg } from '../lib/args.js';
import { runBench } from '../lib/run-bench.js';
import { median, spread } from '../lib/stats.js';

const NODES = numberArg('nodes', 200);
const LINKS = numberArg('links', 250);
const LOADS = numberArg('loads', 5);
const EVENTS = numberArg('events', 30);
const KEYS = numberArg('keys', 40);
const POLL_SECONDS = numberArg('poll-seconds', 10);

let daemon: TestDaemon | undefined;
let browser: TestBrowser | undefined;

async function call(d: TestDaemon, method: string, path: string, body?: unknown): Promise<any> {
  const r = await d.api(method, path, body);
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
  return r.body;
}

/** NODES hubs (8 ports each) in a chain, plus links from hub i to hub i+2 until there are LINKS. */
async function buildLab(d: TestDaemon): Promise<{ projectId: string; hubs: string[] }> {
  const projectId = (await call(d, 'POST', '/v2/projects', { name: 'web-bench' })).project_id as string;
  const hubs: string[] = [];
  for (let i = 0; i < NODES; i++) hubs.push((await call(d, 'POST', `/v2/projects/${projectId}/nodes`, { name: `H${i}`, node_type: 'ethernet_hub' })).node_id);
  const link = (a: string, ap: number, b: string, bp: number) =>
    call(d, 'POST', `/v2/projects/${projectId}/links`, { nodes: [{ node_id: a, adapter_number: 0, port_number: ap }, { node_id: b, adapter_number: 0, port_number: bp }] });
  let made = 0;
  for (let i = 0; i + 1 < NODES && made < LINKS; i++, made++) await link(hubs[i], 1, hubs[i + 1], 0);
  for (let i = 0; i + 2 < NODES && made < LINKS; i += 2, made++) await link(hubs[i], 3, hubs[i + 2], 2);
  if (made < LINKS) throw new Error(`only ${made} links fit ${NODES} hubs`);
  return { projectId, hubs };
}

/** Milliseconds from navigation start to every node and link drawn. */
async function loadTime(page: Page, url: string): Promise<number> {
  await page.goto(url, { waitUntil: 'commit' });
  const handle = await page.waitForFunction(([nodes, links]) => {
    const drawn = document.querySelector('#topology[data-drawn="true"]') && document.querySelectorAll('g.node').length === nodes && document.querySelectorAll('g.link').length === links;
    return drawn ? performance.now() : false;
  }, [NODES, LINKS] as const, { polling: 'raf', timeout: 60_000 });
  return (await handle.jsonValue()) as number;
}

/** Arms a watcher in the page: resolves with Date.now() at the first frame painted after `selector`'s subtree changes. */
async function armChangeWatch(page: Page, selector: string): Promise<void> {
  await page.evaluate((sel) => {
    const target = document.querySelector(sel)!;
    (window as any).__changed = new Promise<number>((resolve) => {
      const observer = new MutationObserver(() => {
        observer.disconnect();
        requestAnimationFrame(() => resolve(Date.now()));
      });
      observer.observe(target, { subtree: true, childList: true, characterData: true, attributes: true });
    });
  }, selector);
}

const changedAt = (page: Page) => page.evaluate(() => (window as any).__changed as Promise<number>);

async function eventDelays(d: TestDaemon, page: Page, projectId: string, nodeId: string): Promise<number[]> {
  const delays: number[] = [];
  for (let i = 0; i < EVENTS; i++) {
    await armChangeWatch(page, `g.node[data-node-id="${nodeId}"]`);
    const sent = Date.now();
    await call(d, 'PUT', `/v2/projects/${projectId}/nodes/${nodeId}`, { name: `R${i}` });
    delays.push((await changedAt(page)) - sent);
  }
  return delays;
}

/** Where one key's time went: key press → the page's websocket send → the echo's frame arrives → painted. */
interface EchoSplit {
  total: number;
  toSend: number;
  roundTrip: number;
  toPaint: number;
}

/**
 * Records, in the page, when each console websocket frame is sent and when the next one arrives:
 * wraps WebSocket.prototype.send before the console opens (the page's code is untouched).
 */
async function armWebSocketClock(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as any;
    w.__wsClock = { sent: 0, received: 0 };
    const send = WebSocket.prototype.send;
    WebSocket.prototype.send = function (this: WebSocket, data: any) {
      if (!this.url.includes('/console/ws')) return send.call(this, data);
      if (!w.__wsClocked?.has(this)) {
        (w.__wsClocked ??= new WeakSet()).add(this);
        this.addEventListener('message', () => { if (w.__wsClock.received === 0) w.__wsClock.received = Date.now(); });
      }
      w.__wsClock.sent = Date.now();
      w.__wsClock.received = 0;
      return send.call(this, data);
    };
  });
}

async function echoDelays(page: Page): Promise<EchoSplit[]> {
  const splits: EchoSplit[] = [];
  for (let i = 0; i < KEYS; i++) {
    await armChangeWatch(page, '#console .xterm-rows');
    const pressed = Date.now();
    await page.keyboard.press('x');
    const painted = await changedAt(page);
    const { sent, received } = await page.evaluate(() => (window as any).__wsClock as { sent: number; received: number });
    splits.push({ total: painted - pressed, toSend: sent - pressed, roundTrip: received - sent, toPaint: painted - received });
  }
  await page.keyboard.press('Enter');
  return splits;
}

/**
 * The baseline: the same keystroke sent straight to the VPCS's telnet port (no page, no websocket),
 * to its echo: the floor of any client. (Bare VPCS 0.5b2 held a lone key ~100 ms on its terminal's
 * read timer; the confinement shim has it read each key at once, see native/vpcs-confine.c.)
 */
async function telnetEchoDelays(port: number): Promise<number[]> {
  const socket = connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  // The banner and the telnet negotiation first.
  await new Promise((resolve) => setTimeout(resolve, 2000));
  socket.on('data', () => undefined);
  const delays: number[] = [];
  for (let i = 0; i < KEYS; i++) {
    const pressed = performance.now();
    socket.write('x');
    await new Promise((resolve) => socket.once('data', resolve));
    delays.push(performance.now() - pressed);
  }
  socket.write('\r');
  await new Promise((resolve) => setTimeout(resolve, 300));
  socket.destroy();
  return delays;
}

/** What the page asks for counters over POLL_SECONDS: project-wide traffic requests, per-node stats requests, and their answer times. */
async function pollerLoad(page: Page): Promise<{ traffic: number; perNode: number; answers: number[] }> {
  let traffic = 0;
  let perNode = 0;
  const answers: number[] = [];
  const counters = (r: Request) => /\/traffic$|\/stats$/.test(new URL(r.url()).pathname);
  const onRequest = (r: Request) => {
    if (!counters(r)) return;
    if (new URL(r.url()).pathname.endsWith('/traffic')) traffic++;
    else perNode++;
  };
  const onFinished = (r: Request) => {
    if (counters(r)) answers.push(r.timing().responseEnd);
  };
  page.on('request', onRequest);
  page.on('requestfinished', onFinished);
  await page.waitForTimeout(POLL_SECONDS * 1000);
  page.off('request', onRequest);
  page.off('requestfinished', onFinished);
  return { traffic, perNode, answers };
}

async function main(): Promise<void> {
  daemon = await startTestDaemon({ env: { EMUCTL_UDP_PORT_RANGE: '35600-36199', EMUCTL_CONSOLE_PORT_RANGE: '22200-22209' } });
  const built = Date.now();
  const { projectId, hubs } = await buildLab(daemon);
  console.log(`lab: ${NODES} hubs, ${LINKS} links, built through the API in ${((Date.now() - built) / 1000).toFixed(1)} s`);
  browser = await launchBrowser();
  const page = await browser.newPage();
  const url = `${daemon.url}/ui/?project=${projectId}`;
  await loadTime(page, url); // warm-up: caches the bundle as a user's second visit would
  const loads: number[] = [];
  for (let i = 0; i < LOADS; i++) loads.push(await loadTime(page, url));
  const events = await eventDelays(daemon, page, projectId, hubs[NODES >> 1]);
  const poller = await pollerLoad(page);

  const pc = await call(daemon, 'POST', `/v2/projects/${projectId}/nodes`, { name: 'PC1', node_type: 'vpcs' });
  await call(daemon, 'POST', `/v2/projects/${projectId}/nodes/${pc.node_id}/start`, {});
  const telnet = await telnetEchoDelays(pc.console);
  await armWebSocketClock(page);
  await page.click('g.node[data-name="PC1"]');
  await page.click('#node-console');
  await page.waitForSelector('#console[data-state="open"] .xterm-rows');
  await page.focus('#console .xterm-helper-textarea');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => /PC1>/.test(document.querySelector('#console .xterm-rows')!.textContent!), undefined, { timeout: 30_000 });
  const splits = await echoDelays(page);
  const echoes = splits.map((s) => s.total);

  const f = (n: number) => `${n.toFixed(0)} ms`;
  const fine = (n: number) => `${n.toFixed(1)} ms`;
  console.log('\n| figure | target | measured: median (min–max) | samples |');
  console.log('|---|---|---|---|');
  console.log(`| page load → topology drawn, ${NODES} nodes / ${LINKS} links | ≤ 2 s | ${spread(loads, f)} | ${loads.length} |`);
  console.log(`| API event → change visible | median ≤ 200 ms | ${spread(events, f)} | ${events.length} |`);
  console.log(`| console keystroke → echo (VPCS) | median ≤ 50 ms | ${spread(echoes, f)} | ${echoes.length} |`);
  console.log(`| of which: key press → the page's websocket send | – | ${spread(splits.map((s) => s.toSend), f)} | ${splits.length} |`);
  console.log(`| of which: websocket send → echo frame back (daemon, VPCS) | – | ${spread(splits.map((s) => s.roundTrip), f)} | ${splits.length} |`);
  console.log(`| of which: echo frame → painted (xterm.js, next frame) | – | ${spread(splits.map((s) => s.toPaint), f)} | ${splits.length} |`);
  console.log(`| baseline: keystroke → echo straight over telnet to the same VPCS | – | ${spread(telnet, fine)} | ${telnet.length} |`);
  const perSecond = (n: number) => (n / POLL_SECONDS).toFixed(1);
  console.log(`| traffic poller: requests/s for counters (project-wide + per node), ${NODES} nodes started | – | ${perSecond(poller.traffic + poller.perNode)} (${perSecond(poller.traffic)} + ${perSecond(poller.perNode)}) | ${POLL_SECONDS} s |`);
  console.log(`| traffic poller: one request's answer time | – | ${poller.answers.length ? spread(poller.answers, f) : 'none answered'} | ${poller.answers.length} |`);
  console.log(`\n${machineLine()}`);
  const met = median(loads) <= 2000 && median(events) <= 200 && median(echoes) <= 50;
  console.log(met ? 'all three targets met' : 'a target is not met');
}

await runBench('web bench', 600_000, main, async () => {
  await browser?.close();
  await daemon?.stop();
  if (daemon) removeHome(daemon.home);
});
