import { execFileSync } from 'node:child_process';
import { crc32, deflateRawSync } from 'node:zlib';

/** One entry of a hand-made ZIP: a name (used as is, even a hostile one) and its bytes. */
export interface RawEntry {
  name: string;
  data?: Buffer | string;
  /** Unix mode in the external attributes (e.g. 0o120777 for a symbolic link). */
  mode?: number;
  /** Deflate the data (method 8); stored otherwise. */
  deflate?: boolean;
  /** Compress the data with the zstd command (method 93, GNS3 3.x's default). */
  zstd?: boolean;
  /** The uncompressed size the headers declare, when it should lie. */
  declaredSize?: number;
  /** The compression method the headers name, when it should not match the data (e.g. 12, bzip2). */
  method?: number;
  /** General purpose flags added to UTF-8 (e.g. 0x1: encrypted). */
  flags?: number;
}

/** How the whole archive is laid out. */
export interface RawZipOptions {
  /** ZIP64: sizes and offsets in zip64 extra fields, a zip64 end of central directory record. */
  zip64?: boolean;
  /** The entry count the end of central directory record declares, when it should lie. */
  declaredCount?: number;
}

const ZIP64_MARK = 0xffffffff;

/**
 * A ZIP built byte by byte, so that tests can make archives no zip library would write: zip-slip
 * names, symbolic links, sizes that lie, encrypted flags, ZIP64 records. Layout per APPNOTE 4.3.
 */
export function rawZip(entries: RawEntry[], opts: RawZipOptions = {}): Buffer {
  const parts: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const data = Buffer.from(entry.data ?? '');
    const stored = entry.zstd ? zstdCompress(data) : entry.deflate ? deflateRawSync(data) : data;
    const sizes = { crc: crc32(data), compressed: stored.length, uncompressed: entry.declaredSize ?? data.length };
    const method = entry.method ?? (entry.zstd ? 93 : entry.deflate ? 8 : 0);
    const flags = 0x0800 | (entry.flags ?? 0); // UTF-8 names
    const extra = opts.zip64 ? zip64Extra(sizes.uncompressed, sizes.compressed, offset) : Buffer.alloc(0);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(opts.zip64 ? 45 : 20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(sizes.crc, 14);
    local.writeUInt32LE(opts.zip64 ? ZIP64_MARK : sizes.compressed, 18);
    local.writeUInt32LE(opts.zip64 ? ZIP64_MARK : sizes.uncompressed, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(extra.length, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 45, 4); // made by Unix
    central.writeUInt16LE(opts.zip64 ? 45 : 20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(sizes.crc, 16);
    central.writeUInt32LE(opts.zip64 ? ZIP64_MARK : sizes.compressed, 20);
    central.writeUInt32LE(opts.zip64 ? ZIP64_MARK : sizes.uncompressed, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt16LE(extra.length, 30);
    central.writeUInt32LE(((entry.mode ?? 0o100644) << 16) >>> 0, 38);
    central.writeUInt32LE(opts.zip64 ? ZIP64_MARK : offset, 42);
    parts.push(local, name, extra, stored);
    centrals.push(central, name, extra);
    offset += local.length + name.length + extra.length + stored.length;
  }
  const directory = Buffer.concat(centrals);
  const count = opts.declaredCount ?? entries.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(opts.zip64 ? 0xffff : count, 8);
  end.writeUInt16LE(opts.zip64 ? 0xffff : count, 10);
  end.writeUInt32LE(opts.zip64 ? ZIP64_MARK : directory.length, 12);
  end.writeUInt32LE(opts.zip64 ? ZIP64_MARK : offset, 16);
  const zip64End = opts.zip64 ? zip64EndRecords(count, directory.length, offset) : [];
  return Buffer.concat([...parts, directory, ...zip64End, end]);
}

/** The Zip64 extended information extra field (id 1): uncompressed size, compressed size, local header offset. */
function zip64Extra(uncompressed: number, compressed: number, offset: number): Buffer {
  const extra = Buffer.alloc(4 + 24);
  extra.writeUInt16LE(0x0001, 0);
  extra.writeUInt16LE(24, 2);
  extra.writeBigUInt64LE(BigInt(uncompressed), 4);
  extra.writeBigUInt64LE(BigInt(compressed), 12);
  extra.writeBigUInt64LE(BigInt(offset), 20);
  return extra;
}

/** The zip64 end of central directory record and its locator, for a directory of `size` bytes at `offset`. */
function zip64EndRecords(count: number, size: number, offset: number): Buffer[] {
  const record = Buffer.alloc(56);
  record.writeUInt32LE(0x06064b50, 0);
  record.writeBigUInt64LE(44n, 4);
  record.writeUInt16LE((3 << 8) | 45, 12);
  record.writeUInt16LE(45, 14);
  record.writeBigUInt64LE(BigInt(count), 24);
  record.writeBigUInt64LE(BigInt(count), 32);
  record.writeBigUInt64LE(BigInt(size), 40);
  record.writeBigUInt64LE(BigInt(offset), 48);
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  locator.writeBigUInt64LE(BigInt(offset + size), 8);
  locator.writeUInt32LE(1, 16);
  return [record, locator];
}

/** `data` as one Zstandard frame, from Debian's zstd command (installed by scripts/setup.sh). */
function zstdCompress(data: Buffer): Buffer {
  return execFileSync('zstd', ['-q', '-c', '-19'], { input: data, maxBuffer: 1024 * 1024 * 1024 });
}
