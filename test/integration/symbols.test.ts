// Symbols (src/daemon/controller/symbols.ts, symbol-drawings.ts): every classic GNS3 symbol name
// answers with one of emuctl's drawings, an unknown id with the computer (as GNS3), ids that
// could leave a directory are 404; the symbols_dir files are listed and served, links are not
// followed; every built-in template names a symbol that exists; the GNS3 VM settings carry
// every field GNS3 2.2.42 answers.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

/** The classic theme's file names in GNS3 2.2.42 (gns3server/symbols/classic/), plus emuctl's NAT. */
const CLASSIC = ['PBX', 'PIX_firewall', 'access_point', 'access_server', 'asa', 'atm_bridge', 'atm_switch', 'call_manager', 'cloud', 'computer', 'docker_guest', 'dslam',
  'edge_label_switch_router', 'ethernet_switch', 'firewall', 'frame_relay_switch', 'gateway', 'hub', 'ids', 'iosv_l2_virl', 'iosv_virl', 'ip_phone', 'label_switch_router',
  'lightweight_ap', 'multilayer_switch', 'optical_router', 'printer', 'qemu_guest', 'route_switch_processor', 'router.awp', 'router', 'router_firewall', 'router_netflow',
  'server', 'sip_server', 'traceng', 'vbox_guest', 'vmware_guest', 'voice_access_server', 'voice_router', 'vpcs_guest', 'wlan_controller', 'nat'];

describe('symbols and the GUI library routes', () => {
  let d: TestDaemon;
  const tmp = mkdtempSync(join(tmpdir(), 'emuctl-symbols-'));
  const dir = join(tmp, 'symbols');
  const raw = (id: string) => fetch(`${d.url}/v2/symbols/${encodeURIComponent(id)}/raw`);

  before(async () => {
    mkdirSync(join(dir, 'vendor'), { recursive: true });
    writeFileSync(join(dir, 'my-router.svg'), '<svg xmlns="http://www.w3.org/2000/svg" width="72" height="48"><rect width="72" height="48"/></svg>\n');
    writeFileSync(join(dir, 'vendor', 'box.svg'), '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 30 20"><rect width="30" height="20"/></svg>\n');
    writeFileSync(join(tmp, 'secret.txt'), 'not a symbol\n');
    symlinkSync(join(tmp, 'secret.txt'), join(dir, 'leak.svg'));
    d = await startTestDaemon({ env: { EMUCTL_SYMBOLS_DIR: dir } });
  });
  after(async () => {
    await d?.stop();
    if (d) removeHome(d.home);
    rmSync(tmp, { recursive: true, force: true });
  });

  it('every classic name answers an SVG of its own, by full id, short id and bare name; docker_guest and guest too', async () => {
    const listed = (await d.api('GET', '/v2/symbols')).body.filter((s: any) => s.builtin).map((s: any) => s.symbol_id);
    const bodies = new Set<string>();
    for (const name of CLASSIC) {
      assert.ok(listed.includes(`:/symbols/classic/${name}.svg`), `${name} listed`);
      const full = await raw(`:/symbols/classic/${name}.svg`);
      assert.equal(full.status, 200, name);
      assert.match(full.headers.get('content-type') ?? '', /^image\/svg\+xml/);
      const text = await full.text();
      assert.match(text, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="\d+" height="\d+"/);
      bodies.add(text);
      assert.equal(await (await raw(`:/symbols/${name}.svg`)).text(), text, `${name}: short id`);
    }
    assert.equal(bodies.size, CLASSIC.length, 'each name has a drawing of its own');
    assert.equal((await raw('guest.svg')).status, 200);
    assert.equal((await d.api('GET', '/v2/default_symbols')).body.Classic.docker_guest, ':/symbols/classic/docker_guest.svg');
  });

  it('an unknown id answers the computer as GNS3 does; .., NUL and backslash ids are a JSON 404', async () => {
    const computer = await (await raw(':/symbols/classic/computer.svg')).text();
    assert.equal(await (await raw('no-such-symbol.svg')).text(), computer);
    for (const id of ['../secret.txt', 'vendor/../../secret.txt', 'a\\b.svg', 'a\0b.svg']) {
      const r = await raw(id);
      assert.equal(r.status, 404, id);
      const body = await r.json();
      assert.equal(body.status, 404);
    }
  });

  it('symbols_dir: its files are listed as Custom symbols and served; a link is not followed', async () => {
    const custom = (await d.api('GET', '/v2/symbols')).body.filter((s: any) => !s.builtin);
    assert.deepEqual(custom.map((s: any) => [s.symbol_id, s.filename, s.theme]), [['my-router.svg', 'my-router.svg', 'Custom symbols'], ['vendor/box.svg', 'box.svg', 'Custom symbols']]);
    const mine = await raw('my-router.svg');
    assert.match(await mine.text(), /width="72" height="48"/);
    assert.deepEqual((await d.api('GET', `/v2/symbols/${encodeURIComponent('my-router.svg')}/dimensions`)).body, { width: 72, height: 48 });
    assert.deepEqual((await d.api('GET', `/v2/symbols/${encodeURIComponent('vendor/box.svg')}/dimensions`)).body, { width: 30, height: 20 });
    const leak = await (await raw('leak.svg')).text();
    assert.doesNotMatch(leak, /not a symbol/);
  });

  it('every built-in template names a symbol that has a drawing of its own', async () => {
    const computer = await (await raw(':/symbols/classic/computer.svg')).text();
    for (const t of (await d.api('GET', '/v2/templates')).body) {
      const text = await (await raw(t.symbol)).text();
      if (!/computer\.svg$/.test(t.symbol)) assert.notEqual(text, computer, `${t.name}: ${t.symbol} is drawn, not the fallback`);
    }
  });

  it('GET /v2/gns3vm answers every field GNS3 2.2.42 does, with its defaults', async () => {
    const vm = (await d.api('GET', '/v2/gns3vm')).body;
    assert.deepEqual(vm, { vmname: null, when_exit: 'stop', headless: false, enable: false, engine: 'vmware', allocate_vcpus_ram: true, ram: 2048, vcpus: 1, port: 80 });
    const set = await d.api('PUT', '/v2/gns3vm', { allocate_vcpus_ram: false, port: 3080 });
    assert.equal(set.status, 201);
    assert.deepEqual([set.body.allocate_vcpus_ram, set.body.port], [false, 3080]);
  });
});
