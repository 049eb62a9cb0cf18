import type { FilterDescription, Link } from '../client/links.js';
import type { BrowserApi } from './api.js';

/** A form of the link's filters built from GET …/available_filters, folded unless the link has filters; saving PUTs the link with the filled ones (an empty filter is off). */
export async function filtersForm(api: BrowserApi, projectId: string, link: Link, onError: (err: unknown) => void): Promise<HTMLDetailsElement> {
  const available = await api.get<FilterDescription[]>(`projects/${projectId}/links/${link.link_id}/available_filters`);
  const form = document.createElement('form');
  form.id = 'filters';
  for (const def of available) {
    const set = document.createElement('fieldset');
    const legend = document.createElement('legend');
    legend.textContent = def.name;
    legend.title = def.description;
    set.append(legend);
    def.parameters.forEach((p, i) => {
      const label = document.createElement('label');
      const input = document.createElement('input');
      input.name = `${def.type}.${i}`;
      input.type = p.type === 'int' ? 'number' : 'text';
      if (p.minimum !== undefined) input.min = String(p.minimum);
      if (p.maximum !== undefined) input.max = String(p.maximum);
      const current = (link.filters as Record<string, unknown[] | undefined>)[def.type]?.[i];
      if (current !== undefined) input.value = String(current);
      label.append(`${p.name}${p.unit ? ` (${p.unit})` : ''} `, input);
      set.append(label);
    });
    form.append(set);
  }
  const save = document.createElement('button');
  save.type = 'submit';
  save.textContent = 'Set filters';
  form.append(save);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const filters: Record<string, (number | string)[]> = {};
    for (const def of available) {
      const values = def.parameters.map((p, i) => {
        const raw = (form.elements.namedItem(`${def.type}.${i}`) as HTMLInputElement).value.trim();
        return raw === '' ? undefined : p.type === 'int' ? Number(raw) : raw;
      });
      if (values.some((v) => v !== undefined)) filters[def.type] = values.map((v, i) => v ?? (def.parameters[i].type === 'int' ? 0 : ''));
    }
    api.put(`projects/${projectId}/links/${link.link_id}`, { filters }).catch(onError);
  });
  const folded = document.createElement('details');
  folded.open = Object.keys(link.filters ?? {}).length > 0;
  const summary = document.createElement('summary');
  summary.textContent = 'Filters';
  folded.append(summary, form);
  return folded;
}
