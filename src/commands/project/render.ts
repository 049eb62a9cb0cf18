import type { Project } from '../../client/projects.js';
import type { Style } from '../../render/style.js';
import { renderFields, renderTable, type Column } from '../../render/table.js';

/** Colours a project status: opened green, closed dim, anything else (e.g. an error) red. */
function statusColor(cell: string, project: Project, style: Style): string {
  if (project.status === 'opened') return style.green(cell);
  if (project.status === 'closed') return style.dim(cell);
  return style.red(cell);
}

/** The projects as a table; the profile's default project (`defaultRef`, a name or UUID) is marked with `*`. */
export function projectTable(projects: readonly Project[], style: Style, defaultRef?: string): string {
  const isDefault = (p: Project) => defaultRef !== undefined && (p.project_id === defaultRef || p.name === defaultRef);
  const columns: Column<Project>[] = [
    { header: '', value: (p) => (isDefault(p) ? '*' : ' ') },
    { header: 'name', value: (p) => p.name },
    { header: 'status', value: (p) => String(p.status), color: statusColor },
    { header: 'id', value: (p) => p.project_id },
  ];
  return renderTable(projects, columns, style);
}

/** One project as aligned fields. */
export function projectDetails(project: Project, style: Style): string {
  const flag = (value: unknown) => (value === undefined ? '-' : value ? 'yes' : 'no');
  return renderFields([
    ['name', project.name],
    ['id', project.project_id],
    ['status', statusColor(String(project.status), project, style)],
    ['path', project.path ?? '-'],
    ['file', project.filename ?? '-'],
    ['auto start', flag(project.auto_start)],
    ['auto open', flag(project.auto_open)],
    ['auto close', flag(project.auto_close)],
  ], style);
}

/** "lab1 (1a2b3c4d)": a project named for messages. */
export function projectLabel(project: Project): string {
  return `${project.name} (${project.project_id})`;
}
