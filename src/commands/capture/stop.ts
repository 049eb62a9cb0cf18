import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { stopCapture } from '../../client/captures.js';
import { projectOption } from '../shared/project.js';
import { captureRecord, LINK_ARGUMENT, resolveCaptureLink } from './shared.js';

/** Options of `capture stop`. */
export interface CaptureStopOptions {
  link: string;
  project?: string;
}

/** `emuctl capture stop LINK [-p P]`. */
export function captureStopCommand(f: Factory, run = runCaptureStop): Command {
  return new Command('stop')
    .description('stop the capture on a link (the pcap file stays)')
    .argument(...LINK_ARGUMENT)
    .addOption(projectOption())
    .action(async (link: string, flags: { project?: string }, cmd: Command) => run({ link, project: flags.project }, await f.context(cmd)));
}

/** Stops the capture and says where the file is; a link that was not capturing is no error. */
export async function runCaptureStop(opts: CaptureStopOptions, ctx: Context): Promise<void> {
  const { project, link, name } = await resolveCaptureLink(ctx, opts.project, opts.link);
  const stopped = await stopCapture(await ctx.api(), project.project_id, link.link_id);
  ctx.out.result(captureRecord(stopped, name, link));
  if (!link.capturing) {
    ctx.out.success(`${name} was not capturing`);
    return;
  }
  ctx.out.success(`Stopped the capture on ${name}: ${link.capture_file_path}`);
}
