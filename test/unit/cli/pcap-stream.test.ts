import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { PcapFormatError, PcapStreamParser, readPcapStream, recordIsoTime, type PcapRecord } from '../../../src/client/pcap-stream.js';
import { echo, eth, ipv4, pcapHeader, pcapRecord } from './frames.js';

const frameA = eth(0x0800, ipv4('10.0.0.1', '10.0.0.2', 1, echo(8, 1, 1)));
const frameB = eth(0x0800, ipv4('10.0.0.2', '10.0.0.1', 1, echo(0, 1, 1)));

/** Feeds `bytes` to a parser in pieces of `size` bytes; returns every record. */
function parseInPieces(bytes: Buffer, size: number): { parser: PcapStreamParser; records: PcapRecord[] } {
  const parser = new PcapStreamParser();
  const records: PcapRecord[] = [];
  for (let i = 0; i < bytes.length; i += size) records.push(...parser.push(bytes.subarray(i, i + size)).map((r) => ({ ...r, data: Buffer.from(r.data) })));
  return { parser, records };
}

describe('PcapStreamParser', () => {
  const stream = Buffer.concat([pcapHeader(), pcapRecord(frameA, 1_700_000_000, 123_456), pcapRecord(frameB, 1_700_000_001, 999_999)]);

  it('reads the global header and the records of a little-endian microsecond stream', () => {
    const { parser, records } = parseInPieces(stream, stream.length);
    assert.deepEqual(parser.header, { littleEndian: true, nanoseconds: false, versionMajor: 2, versionMinor: 4, snaplen: 65535, linkType: 1 });
    assert.equal(records.length, 2);
    assert.deepEqual([records[0].seconds, records[0].nanos, records[0].originalLength], [1_700_000_000, 123_456_000, frameA.length]);
    assert.deepEqual(records[0].data, frameA);
    assert.deepEqual(records[1].data, frameB);
    assert.equal(parser.completeBytes, stream.length);
    assert.equal(parser.pendingBytes, 0);
  });

  it('gives the same records whatever the chunking (every chunk size from 1 byte up)', () => {
    for (const size of [1, 2, 3, 7, 15, 16, 17, 23, 24, 25, 39, 40, 41, 100]) {
      const { records } = parseInPieces(stream, size);
      assert.deepEqual(records.map((r) => r.data), [frameA, frameB], `chunks of ${size}`);
    }
  });

  it('reads big-endian files and the nanosecond magic', () => {
    const be = Buffer.concat([pcapHeader({ bigEndian: true }), pcapRecord(frameA, 5, 7, { bigEndian: true })]);
    const { parser, records } = parseInPieces(be, 5);
    assert.equal(parser.header!.littleEndian, false);
    assert.deepEqual([records[0].seconds, records[0].nanos, records[0].data], [5, 7000, frameA]);

    const ns = Buffer.concat([pcapHeader({ nanoseconds: true, bigEndian: true }), pcapRecord(frameA, 5, 123_456_789, { bigEndian: true })]);
    const nsParsed = parseInPieces(ns, ns.length);
    assert.equal(nsParsed.parser.header!.nanoseconds, true);
    assert.equal(nsParsed.records[0].nanos, 123_456_789);
    assert.equal(recordIsoTime(nsParsed.records[0], true), '1970-01-01T00:00:05.123456789Z');
    assert.equal(recordIsoTime({ ...nsParsed.records[0], nanos: 1000 }), '1970-01-01T00:00:05.000001Z');
  });

  it('keeps a record cut by the end of the data pending, outside completeBytes', () => {
    const cut = stream.subarray(0, stream.length - 10);
    const { parser, records } = parseInPieces(cut, 33);
    assert.equal(records.length, 1);
    assert.equal(parser.completeBytes, 24 + 16 + frameA.length);
    assert.equal(parser.pendingBytes, cut.length - parser.completeBytes);
  });

  it('reads records the capture truncated (incl_len < orig_len)', () => {
    const snapped = Buffer.concat([pcapHeader(), pcapRecord(frameA, 1, 0, { caplen: 20 })]);
    const { records } = parseInPieces(snapped, 9);
    assert.equal(records[0].data.length, 20);
    assert.equal(records[0].originalLength, frameA.length);
  });

  it('rejects what is not pcap: another magic, pcapng, an absurd record length', () => {
    assert.throws(() => new PcapStreamParser().push(Buffer.alloc(24, 0x41)), (err: Error) => err instanceof PcapFormatError && /not a pcap stream \(magic 0x41414141\)/.test(err.message));
    const ng = Buffer.alloc(24);
    ng.writeUInt32LE(0x0a0d0d0a, 0);
    assert.throws(() => new PcapStreamParser().push(ng), /pcapng/);
    const bad = Buffer.concat([pcapHeader(), Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0])]);
    assert.throws(() => new PcapStreamParser().push(bad), /record 1 claims 2147483647 bytes/);
  });

  it('ignores the FCS bits in the upper link-type field', () => {
    const header = pcapHeader();
    header.writeUInt32LE(0x10000001, 20);
    const parser = new PcapStreamParser();
    parser.push(header);
    assert.equal(parser.header!.linkType, 1);
  });
});

describe('readPcapStream', () => {
  it('yields the header, then the records, from a chunked byte stream; a truncated tail is dropped', async () => {
    const bytes = Buffer.concat([pcapHeader({ linkType: 104 }), pcapRecord(frameA, 1, 2), pcapRecord(frameB, 3, 4)]);
    const pieces = [bytes.subarray(0, 10), bytes.subarray(10, 50), bytes.subarray(50, bytes.length - 1)];
    const events = [];
    for await (const event of readPcapStream(Readable.from(pieces))) events.push(event);
    assert.deepEqual(events.map((e) => e.kind), ['header', 'record']);
    assert.equal(events[0].kind === 'header' && events[0].header.linkType, 104);
  });

  it('fails when the stream ends before the global header', async () => {
    const consume = async () => {
      for await (const _ of readPcapStream(Readable.from([Buffer.alloc(10)]))) void _;
    };
    await assert.rejects(consume, /ended before its global header/);
  });
});
