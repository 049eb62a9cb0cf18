import type { Template } from '../../client/templates.js';
import type { Style } from '../../render/style.js';
import { renderFields, renderTable, type Column } from '../../render/table.js';

/** Fields of a template that the details list on their own lines; the rest is shown as JSON. */
const COMMON = ['name', 'template_id', 'template_type', 'category', 'builtin', 'compute_id', 'default_name_format', 'symbol'];

/** The templates as a table; built-in ones are marked. */
export function templateTable(templates: readonly Template[], style: Style): string {
  const columns: Column<Template>[] = [
    { header: 'name', value: (t) => t.name },
    { header: 'type', value: (t) => t.template_type },
    { header: 'category', value: (t) => t.category ?? '-' },
    { header: 'builtin', value: (t) => (t.builtin ? 'yes' : 'no'), color: (cell, t, s) => (t.builtin ? s.dim(cell) : cell) },
    { header: 'names', value: (t) => t.default_name_format ?? '-' },
    { header: 'compute', value: (t) => t.compute_id ?? '(any)' },
    { header: 'id', value: (t) => t.template_id },
  ];
  return renderTable(templates, columns, style);
}

/** One template as aligned fields, its type's own fields as JSON values. */
export function templateDetails(template: Template, style: Style): string {
  const own = Object.entries(template).filter(([key]) => !COMMON.includes(key)).map(([key, value]): [string, string] => [key, JSON.stringify(value)]);
  return renderFields([
    ['name', template.name],
    ['id', template.template_id],
    ['type', template.template_type],
    ['category', template.category ?? '-'],
    ['builtin', template.builtin ? 'yes' : 'no'],
    ['compute', template.compute_id ?? '(chosen per node)'],
    ['node names', template.default_name_format ?? '-'],
    ['symbol', template.symbol ?? '-'],
    ...own,
  ], style);
}

/** "VPCS (19021f99-…)": a template named for messages. */
export function templateLabel(template: Template): string {
  return `${template.name} (${template.template_id})`;
}
