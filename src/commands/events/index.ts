import type { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { Command, Option } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { UnreachableError, UsageError } from '../../cli/errors.js';
import { notificationsPath, openNotifications, type NotificationConnection, type ReceivedNotification } from '../../client/notifications.js';
import { parsePositiveInt } from '../shared/options.js';
import { projectOption, resolveProject } from '../shared/project.js';
import { streamServer, withInterrupt } from '../shared/streams.js';
import { EventDescriber } from './describe.js';
import { EventGate, parseTypes, parseUntil, type UntilSpec } from './filters.js';
import { seedDescriber } from './seed.js';

/** Options of `events`. */
export interface EventsOptions {
  project?: string;
  /** The controller's stream even when the profile has a default project. */
  controller: boolean;
  types?: string[];
  count?: number;
  until?: UntilSpec;
  pings: boolean;
  reconnect: boolean;
}

/** Where events are printed; a broken pipe (`| head`) ends the command quietly. */
export interface EventsSink {
  stdout: Pick<Writable, 'on' | 'off'>;
}

/** `emuctl events [-p P | --controller] [--type T,…] [-c N] [--until ACTION[:NAME]] [--pings] [--no-reconnect]`. */
export function eventsCommand(f: Factory, run = runEvents): Command {
  return new Command('events')
    .description("print the server's notifications as they happen (a project's, else the controller's), like docker events")
    .addOption(projectOption())
    .option('--controller', "the controller's stream (computes, projects) even when the profile has a default project")
    .option('--type <actions>', 'only these actions, separated by commas; * matches anything (e.g. node.updated,link.*)', parseTypes)
    .option('-c, --count <n>', 'exit after this many events (pings do not count)', (v) => parsePositiveInt(v))
    .option('--until <action[:name]>', 'exit after the first event of that action (and object name), e.g. node.updated:PC1', parseUntil)
    .option('--pings', 'show the pings the server sends while idle')
    .addOption(new Option('--no-reconnect', 'exit 3 when the stream ends instead of reconnecting'))
    .action(async (flags: { project?: string; controller?: boolean; type?: string[]; count?: number; until?: UntilSpec; pings?: boolean; reconnect: boolean }, cmd: Command) =>
      run({ project: flags.project, controller: flags.controller === true, types: flags.type, count: flags.count, until: flags.until, pings: flags.pings === true, reconnect: flags.reconnect }, await f.context(cmd)));
}

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5000;

/** Streams events until -c/--until is met, Ctrl-C, or (with --no-reconnect) the stream ends. */
export async function runEvents(opts: EventsOptions, ctx: Context, sink: EventsSink = { stdout: process.stdout }): Promise<void> {
  if (opts.controller && opts.project) throw new UsageError('--controller and --project name different streams: give one');
  const project = opts.controller || !(opts.project ?? ctx.profile().defaultProject) ? undefined : await resolveProject(ctx, opts.project);
  const where = project ? `project ${project.name}` : 'the controller';
  const server = streamServer(ctx);
  const path = notificationsPath(project?.project_id);
  const gate = new EventGate(opts);
  const describer = new EventDescriber();
  let current: NotificationConnection | undefined;
  let brokenPipe = false;
  const onPipeError = () => {
    brokenPipe = true;
    current?.close();
  };
  sink.stdout.on('error', onPipeError);
  try {
    await withInterrupt(async (signal) => {
      signal.addEventListener('abort', () => current?.close());
      current = await openNotifications(server, path);
      for (let again = false; ; again = true) {
        if (!ctx.out.json) await seedDescriber(ctx, describer, project);
        ctx.out.note(`${again ? 'reconnected to' : 'listening to'} ${where} at ${server.url}; Ctrl-C to stop`);
        for await (const n of current.messages()) {
          if (print(ctx, describer, gate, n)) return current.close();
        }
        if (signal.aborted || brokenPipe) return;
        const why = current.endReason();
        if (!opts.reconnect) throw new UnreachableError(`the notification stream of ${where} ended: ${why}`);
        ctx.out.note(`the notification stream ended (${why}); reconnecting`);
        current = await reconnect(server, path, signal);
        if (!current) return;
      }
    });
  } finally {
    if (!brokenPipe) sink.stdout.off('error', onPipeError);
  }
}

/** Prints an event if it is selected; true when the command is done. */
function print(ctx: Context, describer: EventDescriber, gate: EventGate, n: ReceivedNotification): boolean {
  const shown = gate.shows(n.action);
  const { name, change } = describer.describe(n);
  if (shown) {
    if (ctx.out.json) ctx.out.writeOut(`${n.text}\n`);
    else {
      const { style } = ctx.out;
      const time = new Date().toTimeString().slice(0, 8);
      ctx.out.writeOut(`${[style.dim(time), n.action === 'ping' ? style.dim(n.action) : style.cyan(n.action), name && style.bold(name), change].filter(Boolean).join(' ')}\n`);
    }
  }
  return gate.done(n.action, name, shown);
}

/** Opens the stream again, with backoff, until it works, Ctrl-C, or the server refuses it (e.g. the project is gone). */
async function reconnect(server: ReturnType<typeof streamServer>, path: string, signal: AbortSignal): Promise<NotificationConnection | undefined> {
  for (let delay = FIRST_RETRY_MS; ; delay = Math.min(MAX_RETRY_MS, delay * 2)) {
    try {
      await sleep(delay, undefined, { signal });
    } catch {
      return undefined;
    }
    try {
      return await openNotifications(server, path);
    } catch (err) {
      if (!(err instanceof UnreachableError)) throw err;
    }
  }
}
