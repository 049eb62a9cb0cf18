import { computeUrl, type Compute } from '../../client/computes.js';
import type { Style } from '../../render/style.js';
import { renderFields, renderTable } from '../../render/table.js';
import { compareNames } from '../../render/sort.js';

/** "remote1 (3f2a…)": a compute named for messages. */
export function computeLabel(compute: Pick<Compute, 'name' | 'compute_id'>): string {
  return `${compute.name} (${compute.compute_id})`;
}

const percent = (value: number | null | undefined) => (typeof value === 'number' ? `${value.toFixed(1)}%` : '-');
const connectedText = (c: Compute) => (c.connected ? 'yes' : 'no');
const connectedColor = (cell: string, c: Compute, style: Style) => (c.connected ? style.green(cell) : style.red(cell));

/** The computes as a table (local first, then by name). */
export function computeTable(computes: readonly Compute[], style: Style): string {
  const sorted = [...computes].sort((a, b) => Number(b.compute_id === 'local') - Number(a.compute_id === 'local') || compareNames(a.name, b.name));
  return renderTable(sorted, [
    { header: 'name', value: (c) => c.name },
    { header: 'id', value: (c) => c.compute_id },
    { header: 'url', value: (c) => computeUrl(c) },
    { header: 'connected', value: connectedText, color: connectedColor },
    { header: 'cpu', value: (c) => percent(c.cpu_usage_percent) },
    { header: 'memory', value: (c) => percent(c.memory_usage_percent) },
    { header: 'last error', value: (c) => c.last_error ?? '-' },
  ], style);
}

/** How the controller trusts an https compute's certificate (emuctl's own fields; a GNS3 controller has neither). */
function tlsTrustText(c: Compute): string {
  if (typeof c.fingerprint === 'string') return `pinned SHA256 ${c.fingerprint}`;
  return typeof c.ca_cert === 'string' ? 'its own CA certificate' : 'system CAs';
}

/** One compute as aligned fields (no password: the server never sends it). */
export function computeDetails(c: Compute, style: Style): string {
  const caps = c.capabilities ?? {};
  return renderFields([
    ['name', c.name],
    ['id', c.compute_id],
    ['url', computeUrl(c)],
    ['user', c.user ?? '-'],
    ...(c.protocol === 'https' ? [['TLS trust', tlsTrustText(c)] as [string, string]] : []),
    ['connected', connectedColor(connectedText(c), c, style)],
    ['cpu', percent(c.cpu_usage_percent)],
    ['memory', percent(c.memory_usage_percent)],
    ['last error', c.last_error ?? '-'],
    ['version', caps.version ?? '-'],
    ['platform', caps.platform ?? '-'],
    ['node types', caps.node_types?.join(', ') || '-'],
  ], style);
}

type Scalar = string | number | boolean | null;
const isScalar = (value: unknown): value is Scalar => value === null || ['string', 'number', 'boolean'].includes(typeof value);
const isFlatObject = (value: unknown): value is Record<string, Scalar> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every(isScalar);
const cell = (value: Scalar | undefined) => (value === undefined || value === null ? '-' : String(value));

/**
 * A compute's answer for people: a list of flat objects as a table (columns in
 * first-seen key order), a flat object as fields, anything else as indented JSON.
 */
export function answerText(answer: unknown, style: Style): string {
  if (answer === undefined) return '';
  if (Array.isArray(answer) && answer.length > 0 && answer.every(isFlatObject)) {
    const keys = [...new Set(answer.flatMap((row) => Object.keys(row)))];
    return renderTable(answer, keys.map((key) => ({ header: key.replace(/_/g, ' '), value: (row: Record<string, Scalar>) => cell(row[key]) })), style);
  }
  if (isFlatObject(answer) && Object.keys(answer).length > 0) {
    return renderFields(Object.entries(answer).map(([key, value]) => [key, cell(value)] as const), style);
  }
  return `${JSON.stringify(answer, null, 2)}\n`;
}
