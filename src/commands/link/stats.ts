import { setTimeout as sleep } from 'node:timers/promises';
import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import type { ApiClient } from '../../client/api.js';
import { UsageError } from '../../client/errors.js';
import { LinkRateTracker, readLinkTraffic, type LinkRates, type LinkTraffic } from '../../client/link-traffic.js';
import { findLink, linkName, listLinks, type Link } from '../../client/links.js';
import { listNodes } from '../../client/nodes.js';
import { sortedByName } from '../../render/sort.js';
import { parseSeconds } from '../shared/options.js';
import { projectOption, resolveProject } from '../shared/project.js';
import { withInterrupt } from '../shared/streams.js';
import { linkRatesTable, linkStatsTable, type LinkStatsRow } from './render.js';
import { LINK_ARGUMENT_HELP } from './show.js';

/** Options of `link stats`. */
export interface LinkStatsOptions {
  /** One link (as `link show` takes it); all of the project's links when absent. */
  link?: string;
  project?: string;
  /** Redraw every this many seconds with rates, until Ctrl-C. */
  watch?: number;
}

/** `emuctl link stats [LINK] [-p P] [--watch [SECONDS]]`. */
export function linkStatsCommand(f: Factory, run = runLinkStats): Command {
  return new Command('stats')
    .description("show the links' frame and byte counters, drops and errors (emuctl daemon only); --watch: rates, redrawn every period")
    .argument('[link]', LINK_ARGUMENT_HELP)
    .option('-w, --watch [seconds]', 'redraw every SECONDS (default 1) with frames/s and bytes/s, until Ctrl-C; with --json one line per period', watchValue)
    .addOption(projectOption())
    .action(async (link: string | undefined, flags: { project?: string; watch?: WatchValue | true }, cmd: Command) => {
      const watch = flags.watch;
      // `link stats --watch L1`: what follows --watch is the link when it is not a number of seconds.
      if (typeof watch === 'object' && link !== undefined) throw new UsageError(`--watch takes a number of seconds, not '${watch.link}'`);
      const given = typeof watch === 'object' ? { link: watch.link, watch: 1 } : { link, watch: watch === true ? 1 : watch };
      await run({ ...given, project: flags.project }, await f.context(cmd));
    });
}

/** What follows --watch: seconds, or (not a number) the link argument that came after it. */
type WatchValue = number | { link: string };

function watchValue(value: string): WatchValue {
  return /^-?[\d.]+$/.test(value) ? parseSeconds(value) : { link: value };
}

/** One reading of the links (named as `link list` names them) and their counters. */
interface Sample {
  links: Array<{ link: Link; name: string }>;
  traffic: LinkTraffic[];
}

/** Reads the project's links and their counters; `only` narrows them to one link. */
async function readSample(api: ApiClient, projectId: string, only: string | undefined): Promise<Sample> {
  const [links, nodes, traffic] = await Promise.all([listLinks(api, projectId), listNodes(api, projectId), readLinkTraffic(api, projectId)]);
  const chosen = only === undefined ? sortedByName(links, (link) => linkName(link, nodes)) : [findLink(links, nodes, only)];
  const ids = new Set(chosen.map((link) => link.link_id));
  return {
    links: chosen.map((link) => ({ link, name: linkName(link, nodes) })),
    traffic: traffic.filter((t) => ids.has(t.link_id)),
  };
}

function rowsOf(sample: Sample, rates?: Map<string, LinkRates>): LinkStatsRow[] {
  return sample.links.map(({ link, name }) => ({
    name,
    traffic: sample.traffic.find((t) => t.link_id === link.link_id),
    rates: rates?.get(link.link_id),
  }));
}

/** The links' counters once (the route's array as it came with --json), or their rates every period with --watch. */
export async function runLinkStats(opts: LinkStatsOptions, ctx: Context): Promise<void> {
  const { project_id, name } = await resolveProject(ctx, opts.project);
  const api = await ctx.api();
  if (opts.watch === undefined) {
    const sample = await readSample(api, project_id, opts.link);
    ctx.out.result(sample.traffic, () => (sample.links.length ? linkStatsTable(rowsOf(sample), ctx.out.style) : `no links in project ${name}\n`));
    return;
  }
  await watchLinkStats(api, project_id, opts.link, opts.watch * 1000, ctx);
}

/** One NDJSON line of `--json --watch`: each link's rates (null until it has two samples) and fault totals. */
function rateLine(rows: readonly LinkStatsRow[], sample: Sample): string {
  const links = rows.map((row, i) => ({
    link_id: sample.links[i].link.link_id,
    name: row.name,
    ...(row.rates ?? { framesInPerSecond: null, framesOutPerSecond: null, bytesInPerSecond: null, bytesOutPerSecond: null }),
    drops: row.traffic?.drops ?? null,
    errors: row.traffic?.errors ?? null,
    timestamp: row.traffic?.timestamp ?? null,
  }));
  return `${JSON.stringify({ time: new Date().toISOString(), links })}\n`;
}

/**
 * Samples every `periodMs` until Ctrl-C: on a terminal the table is redrawn in place; piped, each
 * period prints a block (a time line, the table, a blank line); with --json one line per period.
 */
async function watchLinkStats(api: ApiClient, projectId: string, only: string | undefined, periodMs: number, ctx: Context): Promise<void> {
  const tracker = new LinkRateTracker();
  await withInterrupt(async (signal, interrupted) => {
    while (!interrupted()) {
      const started = Date.now();
      const sample = await readSample(api, projectId, only);
      if (interrupted()) break;
      const rows = rowsOf(sample, tracker.sample(sample.traffic));
      if (ctx.out.json) ctx.out.writeOut(rateLine(rows, sample));
      else {
        const block = `${new Date().toISOString()}  every ${periodMs / 1000}s, Ctrl-C to stop\n${linkRatesTable(rows, ctx.out.style)}`;
        if (ctx.out.stdoutIsTerminal) ctx.out.redrawScreen(block);
        else ctx.out.writeOut(`${block}\n`);
      }
      await sleep(Math.max(0, started + periodMs - Date.now()), undefined, { signal }).catch(() => undefined);
    }
  });
}
