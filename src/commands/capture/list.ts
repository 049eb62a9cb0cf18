import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { localCaptureSize } from '../../client/captures.js';
import { linkName, listLinks } from '../../client/links.js';
import { listNodes } from '../../client/nodes.js';
import { renderTable, type Column } from '../../render/table.js';
import { projectOption, resolveProject } from '../shared/project.js';
import { captureRecord, type CaptureRecord } from './shared.js';
import { compareNames } from '../../render/sort.js';

/** Options of `capture list`. */
export interface CaptureListOptions {
  project?: string;
}

/** A running capture with its file's size (null when the file cannot be seen from here). */
export type CaptureListRow = CaptureRecord & { size: number | null };

/** `emuctl capture list [-p P]`. */
export function captureListCommand(f: Factory, run = runCaptureList): Command {
  return new Command('list')
    .alias('ls')
    .description("list the links of a project that are capturing, with each capture file and its size")
    .addOption(projectOption())
    .action(async (flags: { project?: string }, cmd: Command) => run({ project: flags.project }, await f.context(cmd)));
}

/** Lists the running captures: a table, or an array of capture objects with --json. */
export async function runCaptureList(opts: CaptureListOptions, ctx: Context): Promise<void> {
  const project = await resolveProject(ctx, opts.project);
  const api = await ctx.api();
  const [links, nodes] = await Promise.all([listLinks(api, project.project_id), listNodes(api, project.project_id)]);
  const rows: CaptureListRow[] = await Promise.all(links.filter((l) => l.capturing).map(async (link) => ({
    ...captureRecord(link, linkName(link, nodes)),
    size: (await localCaptureSize(api.url, link.capture_file_path)) ?? null,
  })));
  rows.sort((a, b) => compareNames(a.link, b.link));
  const columns: Column<CaptureListRow>[] = [
    { header: 'link', value: (r) => r.link },
    { header: 'file', value: (r) => r.capture_file_name ?? '-' },
    { header: 'size', value: (r) => (r.size === null ? '?' : String(r.size)) },
    { header: 'path', value: (r) => r.capture_file_path ?? '-' },
  ];
  ctx.out.result(rows, () => (rows.length ? renderTable(rows, columns, ctx.out.style) : `no captures running in project ${project.name}\n`));
}
