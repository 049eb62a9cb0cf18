import { Command, Option } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { OperationError, UsageError } from '../../cli/errors.js';
import type { ClosOptions, RoutersOptions, Routing, TreeOptions } from '../../lab/generate/topologies.js';
import { parsePositiveInt } from '../shared/options.js';

/** Which topology, with its own options. */
export type GenerateKind =
  | { kind: 'clos'; options: ClosOptions }
  | { kind: 'ring' | 'star'; options: RoutersOptions }
  | { kind: 'tree'; options: TreeOptions };

/** Options of `lab generate KIND`. */
export type LabGenerateOptions = GenerateKind & {
  routing: Routing;
  image?: string;
  hostImage?: string;
  /** Where to write the file; stdout when absent. */
  output?: string;
};

interface CommonFlags { routing: Routing; image?: string; hostImage?: string; output?: string }

const count = (v: string) => parsePositiveInt(v, true);

function kindCommand(name: string, description: string, f: Factory, run: (o: LabGenerateOptions, ctx: Context) => Promise<void>, build: (flags: Record<string, number>) => GenerateKind, counts: [string, string, number?][]): Command {
  const cmd = new Command(name).description(description);
  for (const [flag, help, fallback] of counts) {
    const option = new Option(`--${flag} <n>`, help).argParser(count);
    if (fallback === undefined) option.makeOptionMandatory(); else option.default(fallback);
    cmd.addOption(option);
  }
  return cmd
    .addOption(new Option('--routing <protocol>', 'routing of the routers').choices(['ospf', 'bgp']).default('ospf'))
    .option('--image <image>', 'docker image of the routers (default: emuctl/frr:latest, or $FRR_IMAGE)')
    .option('--host-image <image>', 'docker image of the hosts (default: emuctl/host:latest, or $HOST_IMAGE)')
    .option('-o, --output <file>', 'write the lab file here (default: stdout)')
    .action(async (flags: CommonFlags & Record<string, number>, c: Command) => {
      await run({ ...build(flags), routing: flags.routing, image: flags.image, hostImage: flags.hostImage, output: flags.output }, await f.context(c));
    });
}

/** `emuctl lab generate clos|ring|star|tree [options] [-o FILE]`. */
export function labGenerateCommand(f: Factory, run = runLabGenerate): Command {
  return new Command('generate')
    .description('write a lab file for a generated topology (clos, ring, star, tree) with OSPF or BGP configured by emuctl')
    .addCommand(kindCommand('clos', 'a leaf-spine fabric: every leaf linked to every spine, hosts behind the leaves', f, run,
      (x) => ({ kind: 'clos', options: { spines: x.spines!, leaves: x.leaves!, hostsPerLeaf: x.hostsPerLeaf! } }),
      [['spines', 'spine routers'], ['leaves', 'leaf routers'], ['hosts-per-leaf', 'linux hosts behind each leaf', 1]]))
    .addCommand(kindCommand('ring', 'routers in a ring', f, run,
      (x) => ({ kind: 'ring', options: { routers: x.routers!, hostsPerRouter: x.hostsPerRouter! } }),
      [['routers', 'routers in the ring (3 or more)'], ['hosts-per-router', 'linux hosts behind each router', 0]]))
    .addCommand(kindCommand('star', 'a hub router R1 linked to each other router', f, run,
      (x) => ({ kind: 'star', options: { routers: x.routers!, hostsPerRouter: x.hostsPerRouter! } }),
      [['routers', 'routers, the hub R1 included (2 or more)'], ['hosts-per-router', 'linux hosts behind each router', 0]]))
    .addCommand(kindCommand('tree', 'a tree of routers, R1 at the root', f, run,
      (x) => ({ kind: 'tree', options: { depth: x.depth!, fanout: x.fanout!, hostsPerLeaf: x.hostsPerLeaf! } }),
      [['depth', 'levels below the root'], ['fanout', 'children of each router above the last level'], ['hosts-per-leaf', 'linux hosts behind each router of the last level', 1]]));
}

/** Makes the topology, renders it, checks the text as `lab up` would read it, then writes it (or prints it). */
export async function runLabGenerate(opts: LabGenerateOptions, ctx: Context): Promise<void> {
  const { generateLab } = await import('../../lab/generate/generate.js');
  const { GenerateOptionError } = await import('../../lab/generate/topologies.js');
  let text: string;
  try {
    text = generateLab(opts, opts.output ?? '<generated>');
  } catch (err) {
    if (err instanceof GenerateOptionError) throw new UsageError(err.message);
    throw err;
  }
  if (opts.output === undefined) {
    ctx.out.writeOut(text);
    return;
  }
  const { writeFile } = await import('node:fs/promises');
  await writeFile(opts.output, text).catch((err: NodeJS.ErrnoException) => {
    throw new OperationError(`cannot write ${opts.output}: ${err.code === 'ENOENT' ? 'no such directory' : err.message}`);
  });
  ctx.out.success(`Wrote ${opts.output}: lab ${text.match(/^name: (.*)$/m)?.[1] ?? ''}, ${opts.kind}, ${opts.routing}`);
}
