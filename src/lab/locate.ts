import { isMap, isNode, isPair, isScalar, isSeq, type Document, type LineCounter } from 'yaml';
import { UsageError } from '../client/errors.js';
import type { Pos } from './file-position.js';

/** A mistake in a lab file, reported as `FILE:LINE:COL: reason` (exit 2). */
export class LabFileError extends UsageError {
  constructor(readonly file: string, readonly pos: Pos, readonly reason: string) {
    super(`${file}:${pos.line}:${pos.col}: ${reason}`);
  }
}

export type YamlPath = readonly (string | number)[];

/** Finds where things are in the parsed YAML document, for error messages. */
export class Locator {
  constructor(readonly file: string, private readonly doc: Document, private readonly lines: LineCounter) {}

  /** The place of the value at `path`, or of its nearest ancestor that exists. */
  at(path: YamlPath): Pos {
    for (let n = path.length; n >= 0; n--) {
      const node = this.doc.getIn(path.slice(0, n), true);
      if (isNode(node) && node.range) return this.pos(node.range[0]);
    }
    return { line: 1, col: 1 };
  }

  /** The place of the key `key` in the map at `path` (the value's place if the key is not found). */
  key(path: YamlPath, key: string): Pos {
    const map = path.length ? this.doc.getIn(path, true) : this.doc.contents;
    if (isMap(map)) {
      for (const item of map.items) {
        if (isPair(item) && isScalar(item.key) && String(item.key.value) === key && item.key.range) return this.pos(item.key.range[0]);
      }
    }
    return this.at([...path, key]);
  }

  /** The keys of the map at `path`, in file order. */
  keys(path: YamlPath): string[] {
    const map = path.length ? this.doc.getIn(path, true) : this.doc.contents;
    if (!isMap(map)) return [];
    return map.items.flatMap((item) => (isPair(item) && isScalar(item.key) ? [String(item.key.value)] : []));
  }

  /** The value at `path`, as plain data. */
  value(path: YamlPath): unknown {
    return this.doc.getIn(path);
  }

  /** Whether the value at `path` is a sequence (a link written as `[A, B]`). */
  isSeq(path: YamlPath): boolean {
    return isSeq(this.doc.getIn(path, true));
  }

  /** An error at the value at `path`. */
  error(path: YamlPath, reason: string): LabFileError {
    return new LabFileError(this.file, this.at(path), reason);
  }

  /** An error at the key `key` of the map at `path`. */
  keyError(path: YamlPath, key: string, reason: string): LabFileError {
    return new LabFileError(this.file, this.key(path, key), reason);
  }

  pos(offset: number): Pos {
    const { line, col } = this.lines.linePos(offset);
    return { line, col };
  }
}
