// Checks a command's output and exit status against a test's expectations. Every expectation is
// required; each one that does not hold is reported as what was expected against what was seen.
import type { Expectations, JsonExpectation } from './model.js';

/** One expectation that did not hold. */
export interface Mismatch {
  expected: string;
  seen: string;
}

/** The expectations that do not hold for this output and exit status (none: the test passes). */
export function checkOutput(expect: Expectations, output: string, exitCode: number): Mismatch[] {
  const misses: Mismatch[] = [];
  if (expect.exit !== undefined && exitCode !== expect.exit) misses.push({ expected: `exit ${expect.exit}`, seen: `exit ${exitCode}` });
  for (const text of expect.contains) if (!output.includes(text)) misses.push({ expected: `output contains ${JSON.stringify(text)}`, seen: output });
  for (const text of expect.notContains) if (output.includes(text)) misses.push({ expected: `output does not contain ${JSON.stringify(text)}`, seen: output });
  if (expect.regex && !expect.regex.test(output)) misses.push({ expected: `output matches /${expect.regex.source}/`, seen: output });
  if (expect.json) {
    const miss = checkJson(expect.json, output);
    if (miss) misses.push(miss);
  }
  return misses;
}

function checkJson(expect: JsonExpectation, output: string): Mismatch | undefined {
  let document: unknown;
  try {
    document = JSON.parse(output);
  } catch {
    return { expected: `JSON output (for json: ${expect.path})`, seen: output };
  }
  const found = valueAt(document, expect.path);
  if (!found.ok) return { expected: `a value at ${expect.path}`, seen: found.reason };
  const value = found.value;
  if (Object.prototype.hasOwnProperty.call(expect, 'equals')) {
    return deepEqual(value, expect.equals) ? undefined : { expected: `${expect.path} equals ${JSON.stringify(expect.equals)}`, seen: JSON.stringify(value) };
  }
  const measured = measure(value);
  if (measured === undefined) return { expected: `${expect.path} is a number, a list or an object`, seen: JSON.stringify(value) };
  const bounds = [expect.min !== undefined ? `>= ${expect.min}` : '', expect.max !== undefined ? `<= ${expect.max}` : ''].filter(Boolean).join(' and ');
  const inRange = (expect.min === undefined || measured.n >= expect.min) && (expect.max === undefined || measured.n <= expect.max);
  return inRange ? undefined : { expected: `${measured.what} of ${expect.path} ${bounds}`, seen: `${measured.n}: ${JSON.stringify(value)}` };
}

/** A number as it is; a list by its entries; an object by its keys (FRR keys OSPF neighbours by router id). */
function measure(value: unknown): { n: number; what: string } | undefined {
  if (typeof value === 'number') return { n: value, what: 'value' };
  if (Array.isArray(value)) return { n: value.length, what: 'entries' };
  if (value !== null && typeof value === 'object') return { n: Object.keys(value).length, what: 'keys' };
  return undefined;
}

/**
 * The path's segments: `a.b`, `a[0]`, `a["198.18.0.1"]` (a key holding dots), `$` or an empty path for the whole document.
 * Undefined when the path is not well formed.
 */
export function pathSegments(path: string): (string | number)[] | undefined {
  const segments: (string | number)[] = [];
  let rest = path.trim().replace(/^\$\.?/, '');
  const re = /^(?:\.?([^.[\]"]+)|\[(\d+)\]|\[\s*"((?:[^"\\]|\\.)*)"\s*\]|\[\s*'([^']*)'\s*\])/;
  while (rest.length) {
    const m = re.exec(rest);
    if (!m) return undefined;
    segments.push(m[1] ?? (m[2] !== undefined ? Number(m[2]) : m[3] !== undefined ? JSON.parse(`"${m[3]}"`) : m[4]));
    rest = rest.slice(m[0].length);
  }
  return segments;
}

function valueAt(document: unknown, path: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  const segments = pathSegments(path);
  if (!segments) return { ok: false, reason: `bad path ${path}` };
  let value = document;
  for (const [i, segment] of segments.entries()) {
    const container = value as Record<string | number, unknown> | null;
    if (container === null || typeof container !== 'object' || !Object.prototype.hasOwnProperty.call(container, segment)) {
      const where = segments.slice(0, i).join('.') || 'the document';
      const keys = container !== null && typeof container === 'object' ? Object.keys(container).slice(0, 10).join(', ') : typeof container;
      return { ok: false, reason: `no ${JSON.stringify(segment)} in ${where} (it has: ${keys || 'nothing'})` };
    }
    value = container[segment];
  }
  return { ok: true, value };
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const [ka, kb] = [Object.keys(a), Object.keys(b)];
  return ka.length === kb.length && ka.every((k) => deepEqual((a as any)[k], (b as any)[k]));
}
