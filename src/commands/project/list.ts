import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { listProjects } from '../../client/projects.js';
import { projectTable } from './render.js';
import { sortedByName } from '../../render/sort.js';

/** Options of `project list` (none of its own). */
export type ProjectListOptions = Record<string, never>;

/** `emuctl project list`. */
export function projectListCommand(f: Factory, run = runProjectList): Command {
  return new Command('list')
    .alias('ls')
    .description('list the projects on the server (* marks the default project)')
    .action(async (_flags: object, cmd: Command) => run({}, await f.context(cmd)));
}

/** Lists the projects: a table sorted by name, or the server's JSON array as it came with --json. */
export async function runProjectList(_opts: ProjectListOptions, ctx: Context): Promise<void> {
  const projects = await listProjects(await ctx.api());
  const byName = sortedByName(projects, (p) => p.name);
  ctx.out.result(projects, () =>
    byName.length ? projectTable(byName, ctx.out.style, ctx.profile().defaultProject) : 'no projects\n');
}
