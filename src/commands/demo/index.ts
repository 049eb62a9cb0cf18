import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { OperationError } from '../../cli/errors.js';
import { buildDemoLab, demoProjectName, DEMO_PINGS, type DemoCapture, type DemoSummary, type StepReporter } from '../../client/demo-lab.js';
import { frameLine } from '../../render/frame-summary.js';

/** Options of `demo`. */
export interface DemoOptions {
  /** Name of the new project (default demo-yyyymmdd-hhmmss). */
  project?: string;
}

/** `emuctl demo [--project NAME]`. */
export function demoCommand(f: Factory, run = runDemo): Command {
  return new Command('demo')
    .description('build a two-PC lab on a switch in a new project, ping across it with a capture running, and show what happened')
    .option('-p, --project <name>', 'name of the new project (default: demo-<yyyymmdd-hhmmss>)')
    .action(async (flags: { project?: string }, cmd: Command) => run({ project: flags.project }, await f.context(cmd)));
}

/** Each step behind a spinner on a terminal, then a ✓ line (plain lines otherwise; nothing with --json). */
function reporter(ctx: Context): StepReporter {
  return {
    async step(doing, task, done) {
      const result = await ctx.out.spin(doing, task);
      ctx.out.success(done(result));
      return result;
    },
  };
}

/** Builds and exercises the demo lab; exit 1 when VPCS is missing or the pings fail. */
export async function runDemo(opts: DemoOptions, ctx: Context): Promise<void> {
  const name = opts.project ?? demoProjectName();
  const api = await ctx.api();
  let built: { summary: DemoSummary; capture?: DemoCapture };
  try {
    built = await buildDemoLab(api, name, reporter(ctx));
  } catch (err) {
    const removed = err instanceof OperationError && err.status === 409 && /removed the demo project/.test(err.message);
    const created = !(err instanceof OperationError && /already exists/i.test(err.message));
    if (!removed && created) ctx.out.note(`the lab built so far is in project ${name}; remove it with 'emuctl project delete ${name}'`);
    throw err;
  }
  const { summary, capture } = built;
  ctx.out.result(summary, () => humanEnd(summary, capture, ctx));
  if (!summary.ok) {
    throw new OperationError(`PC1 could not ping PC2 (${summary.ping.to}): ${summary.ping.received} of ${DEMO_PINGS} replies; `
      + `the lab is left in project ${name} to inspect`);
  }
}

/** The capture's frames (when readable here), where the pcap is, and what to try next. */
function humanEnd(summary: DemoSummary, capture: DemoCapture | undefined, ctx: Context): string {
  const { style } = ctx.out;
  const lines: string[] = [];
  if (capture) {
    lines.push('', style.bold(`Frames captured on ${summary.capture.link} (${capture.records.length}):`));
    for (const record of capture.records) lines.push(`  ${frameLine(record, capture.header.linkType, { nanoseconds: capture.header.nanoseconds, style })}`);
  }
  const path = summary.capture.capture_file_path;
  const project = summary.project.name;
  lines.push('', `${style.bold('pcap:')} ${path}`, `  read it with: tshark -r ${path}`, '',
    'Explore the lab, which keeps running:',
    `  emuctl project use ${project}`,
    '  emuctl node list; emuctl link list; emuctl node console PC1',
    `  emuctl capture start ${summary.capture.link}; emuctl capture watch ${summary.capture.link}`,
    `Remove it with: emuctl project delete ${project}`, '');
  return lines.join('\n');
}
