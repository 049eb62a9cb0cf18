import yauzl from 'yauzl';
import { InvalidError } from '../errors.js';
import { pathNameProblem, quoteName } from '../file-names.js';
import { overLimit, RATIO_FREE_BYTES, type Limit } from './import-limits.js';
import { ZIP_METHOD_ZSTD } from '../../util/zstd-stream.js';

/** What an extraction may take: entries in the archive, bytes once extracted, and how many times its compressed size. */
export interface ExtractLimits {
  entries: Limit;
  expandedBytes: Limit;
  ratio: Limit;
}

/** An entry that passed every check: its relative path and whether it is a directory. */
export interface CheckedEntry {
  name: string;
  directory: boolean;
  entry: yauzl.Entry;
}

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
/** The compression methods yauzl inflates: stored and deflated. */
/** Stored, deflated, and Zstandard (GNS3 3.x's default for exports). */
const READABLE_METHODS = [0, 8, ZIP_METHOD_ZSTD];

/**
 * The entry name as a safe relative path: forward slashes, no absolute path, drive letter,
 * `..` segment or NUL (a zip-slip attempt is a 400). Directories end with `/`.
 */
export function safeEntryName(raw: string): string {
  const name = raw.replace(/\\/g, '/');
  const segments = name.split('/');
  if (name.includes('\0') || name.startsWith('/') || /^[A-Za-z]:/.test(name) || segments.includes('..')) {
    throw new InvalidError(`archive entry '${quoteName(raw)}' escapes the project directory`);
  }
  return segments.filter((s) => s !== '' && s !== '.').join('/') + (name.endsWith('/') ? '/' : '');
}

/** How names are compared for clashes: the way case-insensitive and normalising file systems (macOS, Windows) see them. */
const folded = (name: string) => name.normalize('NFC').toLowerCase();

/**
 * Checks an archive's entries one by one, before anything is written: names (safe, creatable,
 * no two the same, no file where a directory goes), kinds (no links, no encrypted or unreadable
 * data, no directory with data) and the sizes their headers declare against the expanded limit
 * and the ratio limit: past RATIO_FREE_BYTES, an entry may not expand to more than the ratio times
 * its compressed size, nor all entries together to more than the ratio times the archive's size
 * (entries that share their compressed data, the overlapping kind of bomb, count once per entry).
 */
export class EntryChecks {
  private readonly files = new Map<string, string>();
  private readonly dirs = new Map<string, string>();
  private declaredBytes = 0;

  /** `archiveBytes`: the size of the archive file, for the overall ratio. */
  constructor(private readonly dir: string, private readonly limits: ExtractLimits, private readonly archiveBytes: number) {}

  /** The entry checked, or undefined for one that names the archive's root itself. Throws InvalidError (400) or a 413. */
  check(entry: yauzl.Entry): CheckedEntry | undefined {
    const raw = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, false);
    const name = safeEntryName(raw);
    const refuse = (why: string) => new InvalidError(`archive entry '${quoteName(raw)}' ${why}`);
    const problem = pathNameProblem(name, this.dir);
    if (problem) throw refuse(problem);
    if (((entry.externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK) throw refuse('is a symbolic link');
    if (entry.isEncrypted()) throw refuse('is encrypted (emuctl imports unencrypted archives only)');
    if (!READABLE_METHODS.includes(entry.compressionMethod)) throw refuse(`uses compression method ${entry.compressionMethod} (only stored, deflated and zstd entries can be read)`);
    const path = name.replace(/\/$/, '');
    if (path === '') return undefined;
    const directory = name.endsWith('/');
    if (directory && (entry.uncompressedSize > 0 || entry.compressedSize > 0)) throw refuse('is a directory with data');
    if (directory) this.addDirectory(path, raw);
    else this.addFile(path, raw);
    this.declaredBytes += entry.uncompressedSize;
    if (this.declaredBytes > this.limits.expandedBytes.value) throw overLimit(`The archive (${this.declaredBytes} bytes once extracted, as its headers declare)`, this.limits.expandedBytes);
    this.checkRatio(entry, raw);
    return { name: path, directory, entry: withoutBuffers(entry) };
  }

  /** The entry's and the archive's expanded size so far against the ratio limit (413). */
  private checkRatio(entry: yauzl.Entry, raw: string): void {
    const { ratio } = this.limits;
    const times = (expanded: number, compressed: number) => `${Math.round(expanded / Math.max(1, compressed))} to 1`;
    if (entry.uncompressedSize > RATIO_FREE_BYTES && entry.uncompressedSize > ratio.value * entry.compressedSize) {
      throw overLimit(`Archive entry '${quoteName(raw)}' (${entry.uncompressedSize} bytes from ${entry.compressedSize}, ${times(entry.uncompressedSize, entry.compressedSize)})`, ratio);
    }
    if (this.declaredBytes > RATIO_FREE_BYTES && this.declaredBytes > ratio.value * this.archiveBytes) {
      throw overLimit(`The archive (${this.declaredBytes} bytes once extracted from ${this.archiveBytes}, ${times(this.declaredBytes, this.archiveBytes)})`, ratio);
    }
  }

  private addFile(path: string, raw: string): void {
    const key = folded(path);
    const same = this.files.get(key) ?? this.dirs.get(key);
    if (same !== undefined) throw new InvalidError(`archive entry '${quoteName(raw)}' clashes with the entry '${quoteName(same)}' (the same name, or one differing only by case or Unicode form)`);
    this.addParents(path, raw);
    this.files.set(key, raw);
  }

  private addDirectory(path: string, raw: string): void {
    const key = folded(path);
    const file = this.files.get(key);
    if (file !== undefined) throw new InvalidError(`archive entry '${quoteName(raw)}' is a directory where the entry '${quoteName(file)}' is a file`);
    this.addParents(path, raw);
    if (!this.dirs.has(key)) this.dirs.set(key, raw);
  }

  /** Records the directories above `path`; none of them may be a file. */
  private addParents(path: string, raw: string): void {
    const segments = path.split('/');
    for (let i = 1; i < segments.length; i++) {
      const key = folded(segments.slice(0, i).join('/'));
      const file = this.files.get(key);
      if (file !== undefined) throw new InvalidError(`archive entry '${quoteName(raw)}' goes inside the entry '${quoteName(file)}', which is a file`);
      if (!this.dirs.has(key)) this.dirs.set(key, raw);
    }
  }
}

/**
 * The entry with only what reading its data takes: yauzl's entry holds its name, extra field and
 * comment (up to 192 KiB), and kept for every entry until extraction they would hold the whole
 * central directory in memory.
 */
function withoutBuffers(entry: yauzl.Entry): yauzl.Entry {
  const { generalPurposeBitFlag, compressionMethod, compressedSize, uncompressedSize, relativeOffsetOfLocalHeader } = entry;
  return Object.assign(Object.create(Object.getPrototypeOf(entry) as object) as yauzl.Entry, { generalPurposeBitFlag, compressionMethod, compressedSize, uncompressedSize, relativeOffsetOfLocalHeader });
}
