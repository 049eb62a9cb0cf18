// Runs the real daemon in its own process for tests: argv[2] holds the flags as JSON.
// EMUCTL_TEST_EXTRA_KINDS=1 adds the test kinds of test/fixtures/kinds/ (the toy kind the contract test runs).
import { startDaemon } from '../../src/daemon/main.js';
import { NODE_KINDS } from '../../src/daemon/kinds/index.js';

if (!process.argv[2]) {
  console.error('usage: daemon-main.js FLAGS_JSON (a test helper, started by startTestDaemon)');
  process.exit(2);
}
const extra = process.env.EMUCTL_TEST_EXTRA_KINDS === '1' ? (await import('../fixtures/kinds/index.js')).EXTRA_KINDS : [];
const daemon = await startDaemon(JSON.parse(process.argv[2]), process.env, { kinds: [...NODE_KINDS, ...extra] });
await daemon.closed;
