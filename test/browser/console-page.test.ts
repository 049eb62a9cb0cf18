// The console websocket from a real browser: a small page of this test, served by the daemon itself
// with --web-ui (so it is the daemon's own origin), opens the console of a real VPCS, types into it
// and shows what comes back.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { launchBrowser, type TestBrowser } from '../helpers/browser.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { createNode, createProject } from '../helpers/lab.js';

const TIMEOUT = { timeout: 120_000 };

/** The page: ?project=…&node=… names the console; typed lines go out as binary frames, output shows in #out. */
const CONSOLE_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>console</title></head>
<body>
<pre id="out"></pre>
<form id="line"><input id="command" autocomplete="off"></form>
<p id="state">connecting</p><p id="text-frames">0</p>
<script>
  const params = new URLSearchParams(location.search);
  const url = location.origin.replace(/^http/, 'ws') + '/v2/projects/' + params.get('project') + '/nodes/' + params.get('node') + '/console/ws';
  const ws = new WebSocket(url);
  ws.binaryType = 'arraybuffer';
  const decoder = new TextDecoder('latin1');
  let textFrames = 0;
  ws.onopen = () => (document.getElementById('state').textContent = 'open');
  ws.onclose = () => (document.getElementById('state').textContent = 'closed');
  ws.onmessage = (event) => {
    if (typeof event.data === 'string') document.getElementById('text-frames').textContent = String(++textFrames);
    const text = typeof event.data === 'string' ? event.data : decoder.decode(event.data);
    document.getElementById('out').textContent += text.replace(/[\\r\\xff\\xfb\\xfd\\x01\\x03]/g, '');
  };
  document.getElementById('line').onsubmit = (event) => {
    event.preventDefault();
    const input = document.getElementById('command');
    ws.send(new TextEncoder().encode(input.value + '\\n'));
    input.value = '';
  };
</script>
</body></html>
`;

describe('the console websocket from a page in Chromium', () => {
  let d: TestDaemon;
  let browser: TestBrowser;
  let pageDir: string;
  let pid: string;
  let pc: any;

  before(async () => {
    pageDir = mkdtempSync(join(tmpdir(), 'emuctl-console-page-'));
    writeFileSync(join(pageDir, 'index.html'), CONSOLE_PAGE);
    d = await startTestDaemon({ flags: { webUi: pageDir }, env: { EMUCTL_UDP_PORT_RANGE: '23350-23399', EMUCTL_CONSOLE_PORT_RANGE: '23440-23449' } });
    pid = await createProject(d, 'browser-console');
    pc = await createNode(d, pid, 'PC1', 'vpcs');
    const started = await d.api('POST', `/v2/projects/${pid}/nodes/${pc.node_id}/start`, {});
    assert.equal(started.status, 200, started.text);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await d?.stop();
    if (d) removeHome(d.home);
    rmSync(pageDir, { recursive: true, force: true });
  });

  it('the page served by --web-ui opens the console, sends a command and shows its answer (binary frames)', TIMEOUT, async () => {
    const page = await browser.newPage();
    await page.goto(`${d.url}/static/web-ui/index.html?project=${pid}&node=${pc.node_id}`);
    await page.waitForFunction(() => document.getElementById('state')!.textContent === 'open', undefined, { timeout: 30_000 });
    // VPCS drops what is typed while it still prints its banner: type until the answer shows.
    for (let attempt = 1; ; attempt++) {
      await page.fill('#command', 'ip 198.18.3.1/24');
      await page.press('#command', 'Enter');
      try {
        await page.waitForFunction(() => / : 198\.18\.3\.1 255\.255\.255\.0\n[\s\S]*PC1> $/.test(document.getElementById('out')!.textContent!), undefined, { timeout: 5000 });
        break;
      } catch (err) {
        if (attempt === 5) throw new Error(`the page shows no answer: ${JSON.stringify(await page.textContent('#out'))}`, { cause: err });
      }
    }
    await page.fill('#command', 'show ip');
    await page.press('#command', 'Enter');
    await page.waitForFunction(() => /IP\/MASK +: 198\.18\.3\.1\/24/.test(document.getElementById('out')!.textContent!), undefined, { timeout: 20_000 });
    assert.equal(await page.textContent('#text-frames'), '0', 'the console answers in binary frames');
    await page.close();
    // Closing the page closed the socket, so VPCS's one console client slot is free for a second page.
    const check = await browser.newPage();
    await check.goto(`${d.url}/static/web-ui/index.html?project=${pid}&node=${pc.node_id}`);
    await check.waitForFunction(() => document.getElementById('state')!.textContent === 'open', undefined, { timeout: 30_000 });
    await check.fill('#command', 'show ip');
    await check.press('#command', 'Enter');
    await check.waitForFunction(() => /IP\/MASK +: 198\.18\.3\.1\/24/.test(document.getElementById('out')!.textContent!), undefined, { timeout: 20_000 });
    await check.close();
  });
});
