import type { Readable, Transform } from 'node:stream';
import { stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import yazl from 'yazl';
import { ByteLimit } from '../../util/byte-limit.js';
import { ZIP_METHOD_ZSTD, zstdDecompressor } from '../../util/zstd-stream.js';
import { ConflictError, DomainError, InvalidError } from '../errors.js';
import { quoteName } from '../file-names.js';
import { EntryChecks, type CheckedEntry, type ExtractLimits } from './archive-entries.js';
import { overLimit } from './import-limits.js';
import { makeDirs, openForWrite, openNew } from '../safe-fs.js';

/** One file of an archive to write: from a file on disk, from memory, or from a stream opened when its turn comes. */
export type ZipSource = { name: string; path: string } | { name: string; data: Buffer } | { name: string; open: () => Promise<Readable> };

/** ZIP dates start in 1980: older files get that date (GNS3 patches mtimes the same way). */
const EARLIEST = new Date('1980-01-02T00:00:00Z');

/** Streams a ZIP archive of `sources` (yazl), deflated or stored. */
export function zipStream(sources: ZipSource[], compress: boolean, mtimeOf: (source: ZipSource) => Date = () => new Date()): Readable {
  const zip = new yazl.ZipFile();
  for (const source of sources) {
    const mtime = new Date(Math.max(mtimeOf(source).getTime(), EARLIEST.getTime()));
    if ('path' in source) zip.addFile(source.path, source.name, { compress, mtime });
    else if ('open' in source) zip.addReadStreamLazy(source.name, { compress, mtime }, (done) => void source.open().then((s) => done(null, s), (err: Error) => done(err, undefined as never)));
    else zip.addBuffer(source.data, source.name, { compress, mtime });
  }
  // yazl reports a source that cannot be read on the ZipFile, not on its stream: pass it on, so readers end.
  zip.on('error', (err: Error) => (zip.outputStream as Readable).destroy(err));
  zip.end();
  return zip.outputStream as Readable;
}

/**
 * Extracts a ZIP file into `dir`. An archive with more entries than allowed is refused (413) before
 * its entries are read; every entry is checked before anything is written (see EntryChecks), the
 * sizes they declare against the expanded and ratio limits among them. yauzl stops an entry's data at the size
 * its header declares (400 here), so the declared total bounds what is written; the bytes written
 * are counted against the limit all the same. Existing files are replaced only with `overwrite`.
 */
export async function extractZip(file: string, dir: string, limits: ExtractLimits, { overwrite = false } = {}): Promise<void> {
  const zip = await openZip(file);
  try {
    if (zip.entryCount > limits.entries.value) throw overLimit(`The archive (${zip.entryCount} entries)`, limits.entries);
    const checks = new EntryChecks(dir, limits, (await stat(file)).size);
    const entries: CheckedEntry[] = [];
    for await (const entry of zip.eachEntry()) {
      const checked = checks.check(entry);
      if (checked) entries.push(checked);
    }
    let written = 0;
    for (const checked of entries) {
      const budget = limits.expandedBytes.value - written;
      written += await writeEntry(zip, checked, dir, budget, () => overLimit('The extracted archive', limits.expandedBytes), overwrite).catch((err: NodeJS.ErrnoException) => {
        if (LYING_SIZE.test(err.message)) throw new InvalidError(`archive entry '${quoteName(checked.name)}' inflates to another size than its header declares (${checked.entry.uncompressedSize} bytes)`);
        if (err.code && NAME_REFUSED.includes(err.code)) throw new InvalidError(`archive entry '${quoteName(checked.name)}' cannot be created on this file system (${err.code})`);
        throw err;
      });
    }
  } catch (err) {
    // Errors of our own or of the file system (disk full…) stay as they are; the rest come from a broken archive.
    if (err instanceof DomainError || (err as NodeJS.ErrnoException).syscall) throw err;
    throw new ConflictError(`Cannot extract files from the archive (invalid zip): ${(err as Error).message}`);
  } finally {
    zip.close();
  }
}

/** Writes one checked entry under `dir`, at most `budget` bytes (then `tooLarge()`); returns the bytes written. */
async function writeEntry(zip: yauzl.ZipFile, { name, directory, entry }: CheckedEntry, dir: string, budget: number, tooLarge: () => Error, overwrite: boolean): Promise<number> {
  // Written below `dir` with no link followed (403), private (0700 / 0600).
  if (directory) {
    await makeDirs(dir, name);
    return 0;
  }
  const meter = new ByteLimit(budget, tooLarge);
  const target = overwrite ? await openForWrite(dir, name) : await openNew(dir, name);
  // The write stream closes the file when the pipeline ends, finished or failed.
  const source = await openEntry(zip, entry).catch(async (err) => {
    await target.close().catch(() => undefined);
    throw err;
  });
  if (source.length === 2) await pipeline(source[0], source[1], meter, target.createWriteStream());
  else await pipeline(source[0], meter, target.createWriteStream());
  if (entry.compressionMethod === ZIP_METHOD_ZSTD && meter.bytes !== entry.uncompressedSize) throw new Error('not enough bytes in the stream');
  return meter.bytes;
}

/**
 * An entry's data as streams to pipe: yauzl inflates stored and deflated entries and checks their
 * size; a zstd entry is read as stored and decompressed here, stopped as soon as it passes the size
 * its header declares (the size the limits were checked against).
 */
async function openEntry(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<[Readable] | [Readable, Transform]> {
  if (entry.compressionMethod !== ZIP_METHOD_ZSTD) return [await zip.openReadStreamPromise(entry)];
  const raw = await zip.openReadStreamPromise(entry, { decodeFileData: false } as Parameters<typeof zip.openReadStreamPromise>[1]);
  return [raw, await zstdDecompressor(entry.uncompressedSize, () => new Error('too many bytes in the stream'))];
}

/** Errors of a name the file system will not take although it passed the checks (a case-insensitive clash, a shorter NAME_MAX). */
const NAME_REFUSED = ['EEXIST', 'ENOTDIR', 'EISDIR', 'ENAMETOOLONG', 'EILSEQ'];

/** yauzl's words for inflated data that does not match the size in the entry's header. */
const LYING_SIZE = /too many bytes in the stream|not enough bytes in the stream/;

/** Opens a ZIP file for reading entry by entry; a file that is not a ZIP is a 409 (as GNS3 answers). */
async function openZip(file: string): Promise<yauzl.ZipFile> {
  try {
    return await yauzl.openPromise(file, { decodeStrings: false, strictFileNames: false, autoClose: false, validateEntrySizes: true });
  } catch (err) {
    throw new ConflictError(`Cannot import project, not a GNS3 project (invalid zip): ${(err as Error).message}`);
  }
}
