import type { Writable } from 'node:stream';
import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { OperationError } from '../../cli/errors.js';
import { openLinkPcap } from '../../client/captures.js';
import { readPcapStream, type PcapHeader } from '../../client/pcap-stream.js';
import { frameJson, frameLine } from '../../render/frame-summary.js';
import { projectOption } from '../shared/project.js';
import { LINK_ARGUMENT, resolveCaptureLink } from './shared.js';
import { streamServer, withInterrupt } from '../shared/streams.js';
import { parsePositiveInt } from '../shared/options.js';

/** Options of `capture watch`. */
export interface CaptureWatchOptions {
  link: string;
  /** Stop after this many frames. */
  count?: number;
  /** Skip the frames captured before the command started. */
  sinceNow: boolean;
  project?: string;
}

/** The stream whose broken pipe (`| head`) ends the watch quietly. */
export interface WatchSink {
  stdout: Pick<Writable, 'on' | 'off'>;
}

/** LINKTYPE names for the opening note. */
const LINK_TYPE_NAMES: Record<number, string> = { 1: 'Ethernet', 50: 'PPP', 104: 'Cisco HDLC', 107: 'Frame Relay', 11: 'ATM RFC 1483' };

/** `emuctl capture watch LINK [-c N] [--since-now] [-p P]`. */
export function captureWatchCommand(f: Factory, run = runCaptureWatch): Command {
  return new Command('watch')
    .description('print one line per frame crossing a link while it is captured (like tcpdump); --json: one object per line')
    .argument(...LINK_ARGUMENT)
    .option('-c, --count <n>', 'stop after this many frames', (v) => parsePositiveInt(v))
    .option('--since-now', 'skip the frames captured before now (default: from the start of the capture)')
    .addOption(projectOption())
    .action(async (link: string, flags: { count?: number; sinceNow?: boolean; project?: string }, cmd: Command) =>
      run({ link, count: flags.count, sinceNow: flags.sinceNow === true, project: flags.project }, await f.context(cmd)));
}

/** Streams the capture and prints each frame until the capture stops, the count is reached, or Ctrl-C. */
export async function runCaptureWatch(opts: CaptureWatchOptions, ctx: Context, sink: WatchSink = { stdout: process.stdout }): Promise<void> {
  const { project, link, name } = await resolveCaptureLink(ctx, opts.project, opts.link);
  if (!link.capturing) throw new OperationError(`${name} is not capturing: start a capture with 'emuctl capture start ${name}'`, 409);
  let frames = 0;
  let ending: 'count' | 'pipe' | undefined;
  await withInterrupt(async (signal, interrupted) => {
    const response = await openLinkPcap(streamServer(ctx), project.project_id, link.link_id, signal);
    const onPipeError = () => {
      ending = 'pipe';
      response.body.destroy();
    };
    sink.stdout.on('error', onPipeError);
    const since = opts.sinceNow ? Math.floor((response.serverDate?.getTime() ?? Date.now()) / 1000) : 0;
    let header: PcapHeader | undefined;
    try {
      for await (const event of readPcapStream(response.body)) {
        if (event.kind === 'header') {
          header = event.header;
          if (!ctx.out.json) ctx.out.note(`watching ${name} (${LINK_TYPE_NAMES[header.linkType] ?? `link type ${header.linkType}`}); Ctrl-C to stop`);
          continue;
        }
        if (event.record.seconds < since) continue;
        frames++;
        const { linkType, nanoseconds } = header!;
        if (ctx.out.json) ctx.out.writeOut(`${JSON.stringify(frameJson(event.record, linkType, frames, nanoseconds))}\n`);
        else ctx.out.writeOut(`${frameLine(event.record, linkType, { nanoseconds, style: ctx.out.style })}\n`);
        if (opts.count !== undefined && frames >= opts.count) {
          ending = 'count';
          break;
        }
      }
    } catch (err) {
      if (!interrupted() && !ending) throw err instanceof OperationError ? err : new OperationError(`the capture stream broke off: ${(err as Error).message}`);
    } finally {
      response.body.destroy();
      if (ending !== 'pipe') sink.stdout.off('error', onPipeError);
    }
    if (ending === 'pipe') return;
    const why = ending === 'count' ? '' : interrupted() ? '' : `; the capture on ${name} stopped`;
    ctx.out.note(`${frames} frame${frames === 1 ? '' : 's'}${why}`);
  });
}
