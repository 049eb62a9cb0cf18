// Runs the real daemon in its own process for tests: argv[2] holds the flags as JSON.
import { startDaemon } from '../../src/daemon/main.js';

if (!process.argv[2]) {
  console.error('usage: daemon-main.js FLAGS_JSON (a test helper, started by startTestDaemon)');
  process.exit(2);
}
const daemon = await startDaemon(JSON.parse(process.argv[2]));
await daemon.closed;
