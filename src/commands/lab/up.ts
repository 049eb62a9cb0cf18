import { Command, InvalidArgumentError, Option } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { UsageError } from '../../cli/errors.js';
import type { Plan } from '../../lab/plan.js';
import { streamServer } from '../shared/streams.js';
import { spinWithProgress } from '../../render/output.js';
import { nodeProgress } from '../../lab/progress.js';
import type { ApiClient } from '../../client/api.js';
import type { LabSshFiles } from '../../lab/ssh-keys.js';
import { labSshFilesOf } from '../shared/lab-ssh.js';
import { readLabFile } from './shared.js';
import { runAndReport, selectTests, testReportOptions, withTestReportOptions, type TestReportOptions } from './test.js';

/** Options of `lab up`. */
export interface LabUpOptions {
  file: string;
  /** Print the plan only. */
  dryRun: boolean;
  /** Only these nodes (and the links between them). */
  nodes?: string[];
  /** Run the file's tests once the lab is up, reported as these options say. */
  test?: TestReportOptions;
  /** Nodes started at once (default: 4 per core). */
  concurrency?: number;
}

interface LabUpFlags {
  dryRun?: boolean;
  nodes?: string;
  test?: boolean;
  only?: string[];
  junit?: string;
  tap?: boolean;
  concurrency?: number;
}

/** `emuctl lab up FILE [--dry-run] [--nodes A,B…] [--test [--only NAME…] [--junit FILE] [--tap]]`. */
export function labUpCommand(f: Factory, run = runLabUp): Command {
  return withTestReportOptions(new Command('up')
    .description('create or update the lab of a topology file (plan, then apply it step by step), start its nodes and wait for them')
    .argument('<file>', 'lab file (YAML)')
    .option('--dry-run', 'print the plan, change nothing')
    .option('--nodes <names>', 'only these nodes (comma-separated) and the links between them')
    .option('--test', "run the file's tests once the lab is up and exit with their code")
    .addOption(new Option('--concurrency <n>', 'nodes started at once, 1-256 (default 4 per core)').env(CONCURRENCY_ENV).argParser(parseConcurrency)))
    .action(async (file: string, flags: LabUpFlags, cmd: Command) => {
      if (!flags.test && (flags.only || flags.junit !== undefined || flags.tap)) throw new UsageError('--only, --junit and --tap go with --test');
      const nodes = flags.nodes?.split(',').map((n) => n.trim()).filter(Boolean);
      return run({ file, dryRun: flags.dryRun === true, ...(nodes ? { nodes } : {}), ...(flags.test ? { test: testReportOptions(flags) } : {}),
        ...(flags.concurrency ? { concurrency: flags.concurrency } : {}) }, await f.context(cmd));
    });
}

/** The environment variable that sets `lab up --concurrency` when the flag is not given. */
export const CONCURRENCY_ENV = 'EMUCTL_LAB_CONCURRENCY';

function parseConcurrency(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 256) throw new InvalidArgumentError('expected a whole number 1-256.');
  return n;
}

/** `+ 3 to add, ~ 1 to change, - 0 to delete`. */
export function planSummary(plan: Plan): string {
  const count = (mark: string) => plan.steps.filter((s) => s.text.startsWith(mark)).length;
  const starts = plan.steps.find((s) => s.kind === 'start-nodes');
  const parts = [`${count('+')} to add`, `${count('~')} to change`, `${count('-')} to delete`];
  if (starts && starts.kind === 'start-nodes') parts.push(`${starts.names.length} to start`);
  return parts.join(', ');
}

/** Reads the file and the server, prints the plan, then (unless --dry-run) applies it with a line per step. */
export async function runLabUp(opts: LabUpOptions, ctx: Context): Promise<void> {
  const { readStartupFiles } = await import('../../lab/startup-files.js');
  // The tests run against the whole file: those that need a node left out by --nodes are skipped.
  const file = await readLabFile(opts.file, ctx.env);
  let spec = file;
  if (opts.nodes) {
    const { labSubset } = await import('../../lab/subset.js');
    const subset = labSubset(file, opts.nodes);
    spec = subset.spec;
    if (subset.droppedNodes.length) ctx.out.note(`--nodes: leaving out ${subset.droppedNodes.join(', ')} and ${subset.droppedLinks} link${subset.droppedLinks === 1 ? '' : 's'}`);
  }
  if (opts.test) selectTests(file, opts.test, ctx.out.json);
  spec = await readStartupFiles(spec);
  const api = await ctx.api();
  const ssh = spec.mgmt?.ssh ? await labSshFilesOf(ctx, spec.name) : undefined;
  if (ssh) {
    const { ensureLabKey } = await import('../../lab/ssh-keys.js');
    const { withAuthorizedKey } = await import('../../lab/ssh-install.js');
    spec = withAuthorizedKey(spec, await ensureLabKey(ssh, spec.name));
  }
  const { readLabState, readStartupFileState } = await import('../../lab/state.js');
  const { planLab } = await import('../../lab/plan.js');
  const state = await readStartupFileState(api, await readLabState(api, spec.name), spec);
  const plan = planLab(spec, state);
  const lines = plan.steps.map((s) => s.text);
  const result = (applied: boolean, projectId?: string) => ({ lab: spec.name, project_id: projectId ?? null, changed: lines.length > 0, applied, plan: lines });
  if (!lines.length) {
    if (!opts.test) ctx.out.result(result(false, state.project?.project_id), () => '');
    ctx.out.success(`No changes: lab ${spec.name} is up to date`);
    if (opts.test && !opts.dryRun) await runAndReport(file, opts.test, ctx);
    return;
  }
  if (!ctx.out.json) ctx.out.writeOut(`Plan for lab ${spec.name} (${planSummary(plan)}):\n${lines.map((l) => `  ${l}`).join('\n')}\n`);
  if (opts.dryRun) {
    ctx.out.result(result(false, state.project?.project_id));
    ctx.out.note('dry run: nothing was changed');
    return;
  }
  const { checkPortCapacity } = await import('../../lab/port-capacity.js');
  await checkPortCapacity(api, plan, state);
  const { applyPlan } = await import('../../lab/apply.js');
  const project = await applyPlan(plan, { api, server: streamServer(ctx), project: state.project, ...(spec.mgmt ? { mgmt: spec.mgmt } : {}), ...(opts.concurrency ? { startConcurrency: opts.concurrency } : {}) }, {
    async step(text, task) {
      const value = await spinWithProgress(ctx.out, text, (update) => task(nodeProgress(ctx.out, update, 'Starting', 'started')));
      ctx.out.success(text);
      return value;
    },
  });
  if (ssh) await forgetRemadeHosts(api, project.project_id, plan, ssh);
  if (!opts.test) ctx.out.result(result(true, project.project_id));
  ctx.out.success(`Lab ${spec.name} is up (project ${project.project_id})`);
  if (opts.test) await runAndReport(file, opts.test, ctx);
}

/** A node made or changed by the plan may have a new container, so a new host key at its old address: the lab's known_hosts forgets it. */
async function forgetRemadeHosts(api: ApiClient, projectId: string, plan: Plan, ssh: LabSshFiles): Promise<void> {
  const names = new Set(plan.steps.flatMap((s) => (s.kind === 'create-node' ? [s.spec.name] : [])));
  const ids = new Set(plan.steps.flatMap((s) => (s.kind === 'update-node' ? [s.nodeId] : [])));
  if (!names.size && !ids.size) return;
  const { listNodes } = await import('../../client/nodes.js');
  const { bareAddress } = await import('../../lab/ssh-args.js');
  const { forgetHostKeys } = await import('../../lab/ssh-keys.js');
  const remade = (await listNodes(api, projectId)).filter((n) => names.has(n.name) || ids.has(n.node_id));
  await forgetHostKeys(ssh, remade.flatMap((n) => bareAddress(n.properties.mgmt_ipv4) ?? []));
}
