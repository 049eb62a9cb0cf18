// The per-type keys of a lab file's node, declared once. Each row says which node types take the
// key, its JSON Schema, and (through `kept`/`read`) its value's type: the file's schema
// (file-schema.ts), the parser's raw node and per-type check (parse.ts) and the node spec the
// planner reads (model.ts) all come from this table. A key the node spec keeps as the file wrote
// it (`kept`) is one line here; a key that needs reading (`read`) also has its reader in parse.ts.

/** One per-type key of a node: the node types that take it, its schema, and its value's type (T, type only). */
export interface NodeField<T, Kept extends boolean> {
  readonly types: readonly string[];
  readonly schema: Record<string, unknown>;
  /** True when the node spec keeps the value as written, under the same name. */
  readonly kept: Kept;
  readonly value?: T;
}

const kept = <T>(types: readonly string[], schema: Record<string, unknown>): NodeField<T, true> => ({ types, schema, kept: true });
const read = <T>(types: readonly string[], schema: Record<string, unknown>): NodeField<T, false> => ({ types, schema, kept: false });

const IPV4 = '^(\\d{1,3}\\.){3}\\d{1,3}$';

/** Settings of one switch port (or a range of them), or of one cloud port, as the file writes them. */
export interface RawPort {
  type?: 'access' | 'dot1q' | 'qinq' | 'ethernet' | 'tap';
  vlan?: number;
  ethertype?: string | number;
  name?: string;
  interface?: string;
}

const PORT = {
  type: 'object',
  description: 'settings of one switch port (or a range of them), or of one cloud port',
  properties: {
    type: { enum: ['access', 'dot1q', 'qinq', 'ethernet', 'tap'], description: 'switch: access (default), dot1q trunk or qinq tunnel port; cloud: ethernet (default, an existing host interface) or tap (a TAP, made when missing)' },
    interface: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,15}$', description: 'cloud: the host interface or TAP the port bridges to' },
    vlan: { type: 'integer', minimum: 1, maximum: 4094, description: 'access VLAN, native VLAN of a dot1q port, outer VLAN of a qinq port (default 1)' },
    // YAML reads an unquoted 0x88A8 as the number 34984: both are taken.
    ethertype: { enum: ['0x8100', '0x88A8', '0x9100', '0x9200', 0x8100, 0x88a8, 0x9100, 0x9200], description: 'qinq outer tag ethertype (default 0x8100)' },
    name: { type: 'string', minLength: 1, description: 'port name (default EthernetN)' },
  },
  additionalProperties: false,
};

/** The per-type node keys, in the order the schema lists them. */
export const NODE_FIELDS = {
  ports: read<Record<string, RawPort>>(['ethernet_switch', 'cloud'], {
    type: 'object',
    description: 'ethernet_switch: port settings by port number or range ("0-3"); unlisted ports are access ports in VLAN 1. cloud: its ports by number, each with an interface',
    propertyNames: { pattern: '^\\d+(-\\d+)?$' },
    additionalProperties: PORT,
  }),
  port_count: read<number>(['ethernet_switch', 'ethernet_hub'], { type: 'integer', minimum: 1, maximum: 1024, description: 'ethernet_switch, ethernet_hub: number of ports (default 8, or enough for the ports listed)' }),
  ip: kept<string>(['vpcs', 'docker'], {
    type: 'string',
    pattern: '^(\\d{1,3}\\.){3}\\d{1,3}/\\d{1,2}$',
    description: 'vpcs: IPv4 address/prefix length, kept in its startup script; docker: the address lab wait --ping pings (the container configures it itself)',
  }),
  gateway: kept<string>(['vpcs'], { type: 'string', pattern: IPV4, description: 'vpcs: default gateway' }),
  dns: kept<string>(['vpcs'], { type: 'string', pattern: IPV4, description: 'vpcs: DNS server' }),
  image: kept<string>(['qemu', 'docker'], { type: 'string', minLength: 1, description: 'qemu: disk image (hda) on the compute; docker: image name:tag (${VAR} or ${VAR:-default} taken from the environment)' }),
  ram: kept<number>(['qemu'], { type: 'integer', minimum: 1, description: 'qemu: memory in MB' }),
  adapters: kept<number>(['qemu', 'docker'], { type: 'integer', minimum: 1, maximum: 275, description: 'qemu, docker: number of Ethernet adapters (docker: eth0…)' }),
  cpus: kept<number>(['qemu'], { type: 'integer', minimum: 1, description: 'qemu: vCPUs' }),
  kernel: kept<string>(['qemu'], { type: 'string', minLength: 1, description: 'qemu: kernel image on the compute (boots without a disk)' }),
  initrd: kept<string>(['qemu'], { type: 'string', minLength: 1, description: 'qemu: initial ramdisk on the compute' }),
  kernel_command_line: kept<string>(['qemu'], { type: 'string', description: 'qemu: kernel command line' }),
  adapter_type: kept<string>(['qemu'], { type: 'string', minLength: 1, description: 'qemu: NIC model, e.g. virtio-net-pci, e1000' }),
  env: read<Record<string, string | number | boolean>>(['docker'], {
    type: 'object',
    description: 'docker: environment variables of the container (GNS3 environment)',
    propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
    additionalProperties: { type: ['string', 'number', 'boolean'] },
  }),
  cmd: kept<string>(['docker'], { type: 'string', minLength: 1, description: "docker: the container's start command (GNS3 start_command; default: the image's)" }),
  files: read<Record<string, string>>(['docker'], {
    type: 'object',
    description: 'docker: startup files, absolute container path → file beside the lab file; copied in before the node starts',
    additionalProperties: { type: 'string', minLength: 1 },
  }),
  mgmt_ip: read<string>(['docker', 'qemu'], { type: 'string', pattern: IPV4, description: 'docker, qemu: the management IPv4 address (with mgmt:; default: the next free one)' }),
  mgmt_ipv6: read<string>(['docker', 'qemu'], { type: 'string', pattern: '^[0-9A-Fa-f:.]+$', description: 'docker, qemu: the management IPv6 address (with mgmt:; default: the next free one)' }),
};

type Fields = typeof NODE_FIELDS;
type ValueOf<F> = F extends NodeField<infer T, boolean> ? T : never;

/** The per-type keys as the lab file holds them. */
export type RawNodeFields = { [K in keyof Fields]?: ValueOf<Fields[K]> };

/** The per-type keys the node spec keeps as the file wrote them. */
export type KeptNodeFields = { [K in keyof Fields as Fields[K] extends NodeField<unknown, true> ? K : never]?: ValueOf<Fields[K]> };

/** The names of the kept keys. */
export const KEPT_NODE_FIELDS = (Object.keys(NODE_FIELDS) as (keyof Fields)[]).filter((key) => NODE_FIELDS[key].kept) as (keyof KeptNodeFields)[];

/** The schemas of the per-type keys, for the lab file's node schema. */
export const NODE_FIELD_SCHEMAS = Object.fromEntries(Object.entries(NODE_FIELDS).map(([key, field]) => [key, field.schema]));
