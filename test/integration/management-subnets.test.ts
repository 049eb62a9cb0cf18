// Management subnets chosen at the same time for several projects never collide: each `auto` choice
// avoids the subnets recorded before it, one choice at a time across projects. The range holds exactly
// four /24s; four projects asking at once get all four, a fifth is a 409 naming the setting.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { createProject } from '../helpers/lab.js';

// A range no other test file uses, inside 198.18.0.0/15.
const ENV = { EMUCTL_MGMT_RANGE: '198.18.252.0/22', EMUCTL_UDP_PORT_RANGE: '27640-27659', EMUCTL_CONSOLE_PORT_RANGE: '27660-27679' };

describe('management subnets chosen at once for several projects', () => {
  let d: TestDaemon;
  before(async () => {
    d = await startTestDaemon({ env: ENV });
  });
  after(async () => {
    await d?.stop();
    if (d) removeHome(d.home);
  });

  it('four projects at once get the range\'s four /24s, one each; a fifth is a 409 naming mgmt_range', async () => {
    const projects = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((n) => createProject(d, `mgmt-subnets-${n}`)));
    const answers = await Promise.all(projects.slice(0, 4).map((p) => d.api('PUT', `/v2/projects/${p}/management`, { ipv6: false })));
    for (const a of answers) assert.equal(a.status, 200, a.text);
    const subnets = answers.map((a) => a.body.ipv4.subnet as string).sort();
    assert.deepEqual(subnets, ['198.18.252.0/24', '198.18.253.0/24', '198.18.254.0/24', '198.18.255.0/24']);
    const fifth = await d.api('PUT', `/v2/projects/${projects[4]}/management`, { ipv6: false });
    assert.equal(fifth.status, 409, fifth.text);
    assert.match(fifth.body.message, /no free IPv4 management subnet is left in 198\.18\.252\.0\/22 \(set mgmt_range/);
    for (const p of projects) assert.equal((await d.api('DELETE', `/v2/projects/${p}`)).status, 204);
  });
});
