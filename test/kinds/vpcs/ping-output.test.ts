import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parsePingOutput } from '../../../src/client/vpcs-console.js';

// Lines as VPCS 0.5b2 prints them (captured from /usr/bin/vpcs), plus later versions' "84 bytes from".
describe('parsePingOutput', () => {
  test('replies carry their RTTs', () => {
    assert.deepEqual(parsePingOutput('10.0.0.2 icmp_seq=1 ttl=64 time=0.061 ms\n10.0.0.2 icmp_seq=2 ttl=64 time=0.159 ms'),
      { sent: 2, received: 2, rttsMs: [0.061, 0.159] });
    assert.deepEqual(parsePingOutput('84 bytes from 10.0.0.2 icmp_seq=1 ttl=64 time=0.123 ms'),
      { sent: 1, received: 1, rttsMs: [0.123] });
  });

  test('timeouts and ICMP errors count as sent, not received', () => {
    const output = [
      '10.0.0.3 icmp_seq=1 timeout',
      '*10.0.0.254 icmp_seq=2 ttl=255 time=1.200 ms (ICMP type:3, code:1, Destination host unreachable)',
      '10.0.0.3 icmp_seq=3 ttl=64 time=100.512 ms',
    ].join('\n');
    assert.deepEqual(parsePingOutput(output), { sent: 3, received: 1, rttsMs: [100.512] });
  });

  test('nothing sent: ARP failure or no route', () => {
    assert.deepEqual(parsePingOutput('host (10.0.0.9) not reachable'),
      { sent: 0, received: 0, rttsMs: [], error: 'host (10.0.0.9) not reachable' });
    assert.deepEqual(parsePingOutput('No gateway found'), { sent: 0, received: 0, rttsMs: [], error: 'No gateway found' });
  });
});
