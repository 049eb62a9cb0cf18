import { Command, Option } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { UsageError } from '../../cli/errors.js';
import { computeIdFor, createNode, type NodeCreate } from '../../client/nodes.js';
import { createNodeFromTemplate, findTemplate } from '../../client/templates.js';
import { suggestValues } from '../shared/completion-values.js';
import { warnIfRenamed } from '../shared/node-name.js';
import { parsePositiveInt } from '../shared/options.js';
import { projectOption, resolveProject } from '../shared/project.js';
import { nodeLabel } from './render.js';

/** QEMU settings of `node create --type qemu` (GNS3 property names in comments). */
export interface QemuCreateOptions {
  /** hda_disk_image: an image name on the compute. */
  image?: string;
  /** hda_disk_interface: ide, virtio, scsi, … */
  diskInterface?: string;
  ram?: number;
  cpus?: number;
  adapters?: number;
  adapterType?: string;
  /** kernel_image, initrd, kernel_command_line. */
  kernel?: string;
  initrd?: string;
  append?: string;
  /** Extra qemu arguments, joined into `options`. */
  option?: string[];
}

/** Docker settings of `node create --type docker` (`image` and `adapters` are shared with qemu). */
export interface DockerCreateOptions {
  /** start_command: the container's command (default: the image's). */
  startCommand?: string;
  /** environment: KEY=VALUE, one per --env. */
  env?: string[];
}

/** Options of `node create`: a node type or a template, one of the two. */
export interface NodeCreateOptions extends QemuCreateOptions, DockerCreateOptions {
  name: string;
  /** GNS3 node_type: ethernet_switch, ethernet_hub, vpcs, qemu, cloud, nat (a remote GNS3 server knows more). */
  type?: string;
  /** cloud: its ports, `IFNAME` (an existing interface) or `tap:NAME`, in port order. */
  interface?: string[];
  /** Template name or id (GNS3's way: the node gets the template's settings). */
  template?: string;
  /** Compute name or id; `local` when absent. */
  compute?: string;
  project?: string;
}

/** The node types an emuctl compute runs (a GNS3 server knows more; completion offers these). */
export const NODE_TYPES = ['ethernet_switch', 'ethernet_hub', 'vpcs', 'qemu', 'docker'] as const;

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** `emuctl node create NAME (--type T | --template T) [--compute C] [-p P] [QEMU options]`. */
export function nodeCreateCommand(f: Factory, run = runNodeCreate): Command {
  return new Command('create')
    .description('create a node, of a type (ethernet_switch, ethernet_hub, vpcs, qemu, docker, cloud or nat) or from a template')
    .argument('<name>', 'name of the new node')
    .addOption(suggestValues(new Option('-t, --type <type>', 'node type: ethernet_switch, ethernet_hub, vpcs, qemu, docker, cloud or nat'), NODE_TYPES))
    .option('-T, --template <template>', 'template name or id (see emuctl template list)')
    .option('-c, --compute <compute>', 'compute to run it on, by name or id (default: local)')
    .addOption(projectOption())
    .option('--image <image>', 'qemu: disk image (hda) on the compute; docker: image name:tag (see image list)')
    .option('--disk-interface <interface>', 'qemu: how the disk is attached (ide, virtio, scsi, …; default ide)')
    .option('--ram <mb>', 'qemu: memory in MB (default 256)', (v) => parsePositiveInt(v))
    .option('--cpus <n>', 'qemu: virtual CPUs (default 1)', (v) => parsePositiveInt(v))
    .option('--adapters <n>', 'qemu, docker: network adapters (default 1; docker: eth0…)', (v) => parsePositiveInt(v, true))
    .option('--adapter-type <type>', 'qemu: NIC model: e1000, virtio-net-pci, rtl8139, i82559er, … (default e1000)')
    .option('--kernel <image>', 'qemu: kernel image on the compute (boots it directly)')
    .option('--initrd <image>', 'qemu: initrd image on the compute')
    .option('--append <cmdline>', 'qemu: kernel command line')
    .option('--option <args>', 'qemu: extra qemu arguments, split like a shell would (repeatable)', collect)
    .option('--start-command <command>', "docker: the container's command (default: the image's)")
    .option('--env <KEY=VALUE>', 'docker: an environment variable of the container (repeatable)', collect)
    .option('--interface <interface>', 'cloud: a port bridged to the host interface IFNAME, or to a TAP with tap:NAME (repeatable, ports 0, 1, …)', collect)
    .action(async (name: string, flags: Omit<NodeCreateOptions, 'name'>, cmd: Command) => {
      const { type, template, compute, project, ...settings } = flags;
      await run({ name, type, template, compute, project, ...settings }, await f.context(cmd));
    });
}

/** The GNS3 qemu properties the options set (undefined when none is given). */
export function qemuProperties(o: QemuCreateOptions): Record<string, unknown> | undefined {
  const p: Record<string, unknown> = {
    hda_disk_image: o.image, hda_disk_interface: o.diskInterface, ram: o.ram, cpus: o.cpus, adapters: o.adapters, adapter_type: o.adapterType,
    kernel_image: o.kernel, initrd: o.initrd, kernel_command_line: o.append, options: o.option?.join(' '),
  };
  for (const k of Object.keys(p)) if (p[k] === undefined) delete p[k];
  return Object.keys(p).length ? p : undefined;
}

/** The GNS3 docker properties the options set; --image is required. */
export function dockerProperties(o: NodeCreateOptions): Record<string, unknown> {
  const qemuOnly = { diskInterface: '--disk-interface', ram: '--ram', cpus: '--cpus', adapterType: '--adapter-type', kernel: '--kernel', initrd: '--initrd', append: '--append', option: '--option' };
  const wrong = Object.entries(qemuOnly).filter(([key]) => o[key as keyof NodeCreateOptions] !== undefined).map(([, flag]) => flag);
  if (wrong.length) throw new UsageError(`${wrong.join(', ')} ${wrong.length > 1 ? 'are' : 'is'} for --type qemu, not docker`);
  if (o.image === undefined) throw new UsageError('a docker node needs --image NAME[:TAG] (see emuctl image list --kind docker)');
  const bad = o.env?.find((e) => !/^[A-Za-z_][A-Za-z0-9_]*=[^\n]*$/.test(e));
  if (bad !== undefined) throw new UsageError(`--env ${JSON.stringify(bad)}: expected KEY=VALUE (a letter or _ first, one line)`);
  const p: Record<string, unknown> = { image: o.image, adapters: o.adapters, start_command: o.startCommand, environment: o.env?.join('\n') };
  for (const k of Object.keys(p)) if (p[k] === undefined) delete p[k];
  return p;
}

/** The properties of the node's type the options set (undefined when none is given); options of another type are a usage error. */
function typeProperties(opts: NodeCreateOptions): Record<string, unknown> | undefined {
  if (opts.type === 'docker') return dockerProperties(opts);
  if (opts.startCommand !== undefined || opts.env !== undefined) throw new UsageError('--start-command and --env need --type docker');
  const properties = qemuProperties(opts);
  if (properties && opts.type !== 'qemu') throw new UsageError('--image, --ram, --kernel and the other QEMU options need --type qemu (--image and --adapters also --type docker)');
  return properties;
}

/** A cloud's ports_mapping from `--interface` values (undefined when none is given). */
export function cloudPorts(interfaces: string[] | undefined): Record<string, unknown>[] | undefined {
  return interfaces?.map((value, port) => {
    const [type, name] = value.startsWith('tap:') ? ['tap', value.slice(4)] : ['ethernet', value];
    if (!/^[A-Za-z0-9_.-]{1,15}$/.test(name)) throw new UsageError(`--interface ${value}: an interface name is 1-15 characters of A-Z a-z 0-9 _ . -`);
    return { name, port_number: port, type, interface: name };
  });
}

/** Creates the node (POST …/nodes, or POST …/templates/{template_id} with --template) and reports it. */
export async function runNodeCreate(opts: NodeCreateOptions, ctx: Context): Promise<void> {
  if ((opts.type === undefined) === (opts.template === undefined)) throw new UsageError('give the node a --type or a --template (one of the two)');
  const properties = typeProperties(opts);
  const ports = cloudPorts(opts.interface);
  if (ports && opts.type !== 'cloud') throw new UsageError('--interface needs --type cloud');
  const project = await resolveProject(ctx, opts.project);
  const api = await ctx.api();
  const computeId = await computeIdFor(api, opts.compute);
  let node;
  if (opts.template !== undefined) {
    const template = await findTemplate(api, opts.template);
    node = await createNodeFromTemplate(api, project.project_id, template.template_id, { x: 0, y: 0, name: opts.name, compute_id: computeId });
  } else {
    const body: NodeCreate = { name: opts.name, node_type: opts.type!, compute_id: computeId };
    if (properties) body.properties = properties;
    if (ports) body.properties = { ports_mapping: ports };
    node = await createNode(api, project.project_id, body);
  }
  warnIfRenamed(ctx, opts.name, node.name);
  ctx.out.result(node);
  ctx.out.success(`Created ${node.node_type} ${nodeLabel(node)} on compute ${node.compute_id}`);
}
