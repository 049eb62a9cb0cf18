// Runs the real daemon in its own process for tests: argv[2] holds the flags as JSON.
import { startDaemon } from '../../src/daemon/main.js';

const daemon = await startDaemon(JSON.parse(process.argv[2] ?? '{}'));
await daemon.closed;
