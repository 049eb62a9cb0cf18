import { Command, Option } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { UsageError } from '../../cli/errors.js';
import { checkFiltersOffered, findLink, listLinks, updateLink } from '../../client/links.js';
import { listNodes } from '../../client/nodes.js';
import { projectOption, resolveProject } from '../shared/project.js';
import { filterTypesSet, integerIn, mergeFilters, noChanges, type FilterChanges } from './filter-values.js';
import { collect } from '../shared/options.js';
import { filtersSummary, linkLabel } from './render.js';
import { LINK_ARGUMENT_HELP } from './show.js';

/** Options of `link filter`. */
export interface LinkFilterOptions {
  link: string;
  changes: FilterChanges;
  /** Remove every filter first. */
  clear: boolean;
  project?: string;
}

/** `emuctl link filter L [--delay MS] [--jitter MS] [--loss PCT] … [--clear] [-p P]`. */
export function linkFilterCommand(f: Factory, run = runLinkFilter): Command {
  return new Command('filter')
    .description('change the filters of a link (merged with its current ones; 0 turns a filter off)')
    .argument('<link>', LINK_ARGUMENT_HELP)
    .addOption(new Option('--delay <ms>', 'delay every frame by MS milliseconds').argParser(integerIn('milliseconds', 0)))
    .addOption(new Option('--jitter <ms>', 'vary the delay by up to +/- MS milliseconds').argParser(integerIn('milliseconds', 0)))
    .addOption(new Option('--loss <percent>', 'drop this percentage of frames at random').argParser(integerIn('a percentage', 0, 100)))
    .addOption(new Option('--corrupt <percent>', 'corrupt this percentage of frames').argParser(integerIn('a percentage', 0, 100)))
    .addOption(new Option('--frequency-drop <n>', 'drop every Nth frame; -1 drops all').argParser(integerIn('a frequency', -1)))
    .addOption(new Option('--bpf <expression>', 'drop frames matching a pcap-filter expression (repeatable; "" turns it off)').argParser(collect))
    .addOption(new Option('--rate <kbps>', 'limit the bandwidth to KBPS kbit/s').argParser(integerIn('kbit/s', 0)))
    .addOption(new Option('--duplicate <percent>', 'send this percentage of frames twice').argParser(integerIn('a percentage', 0, 100)))
    .option('--clear', 'remove every filter (before applying any other option given)')
    .addOption(projectOption())
    .action(async (link: string, flags: FilterChanges & { clear?: boolean; project?: string }, cmd: Command) => {
      const { clear, project, ...changes } = flags;
      await run({ link, changes, clear: clear === true, project }, await f.context(cmd));
    });
}

/**
 * Merges the changes into the link's filters and sends the whole set (PUT …/links/{link_id}
 * {filters}), once the server has said it offers every filter being set (available_filters).
 */
export async function runLinkFilter(opts: LinkFilterOptions, ctx: Context): Promise<void> {
  if (!opts.clear && noChanges(opts.changes)) {
    throw new UsageError('nothing to change: give a filter option (--delay, --jitter, --loss, --corrupt, --frequency-drop, --bpf, --rate, --duplicate) or --clear');
  }
  const { project_id } = await resolveProject(ctx, opts.project);
  const api = await ctx.api();
  const [links, nodes] = await Promise.all([listLinks(api, project_id), listNodes(api, project_id)]);
  const current = findLink(links, nodes, opts.link);
  const filters = mergeFilters(current.filters ?? {}, opts.changes, opts.clear);
  await checkFiltersOffered(api, project_id, current.link_id, filterTypesSet(opts.changes));
  const link = await updateLink(api, project_id, current.link_id, { filters });
  ctx.out.result(link);
  ctx.out.success(`Filters of link ${linkLabel(link, nodes)}: ${filtersSummary(link.filters) === '-' ? 'none' : filtersSummary(link.filters)}`);
}
