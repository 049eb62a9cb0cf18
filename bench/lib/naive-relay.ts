// The "naive Node relay" baseline: two dgram sockets, on('message') → send(msg, port, host),
// unconnected and with default buffers, as a first attempt in Node would be written.
// Usage: node dist/bench/lib/naive-relay.js LPORT_A RPORT_A LPORT_B RPORT_B
import dgram from 'node:dgram';

const [la, ra, lb, rb] = process.argv.slice(2).map(Number);
const a = dgram.createSocket('udp4');
const b = dgram.createSocket('udp4');
a.on('error', () => undefined);
b.on('error', () => undefined);
a.on('message', (m) => b.send(m, rb, '127.0.0.1'));
b.on('message', (m) => a.send(m, ra, '127.0.0.1'));
a.bind(la, '127.0.0.1', () => b.bind(lb, '127.0.0.1', () => console.log('ready')));
process.on('SIGTERM', () => process.exit(0));
