// The JSON Schema of a lab file. `schemas/lab.schema.json` in the repository is this object
// (a unit test keeps them equal), for editors: `# yaml-language-server: $schema=…` at the top
// of a lab file makes them check and complete it.
import { LAB_TEST_SCHEMA } from './lab-tests/schema.js';

const NODE_NAME = '^[^\\s:,]+$';
const ENDPOINT = {
  type: 'string',
  pattern: '^[^\\s:,]+:[^\\s:,]+$',
  description: 'NODE:ADAPTER/PORT (PC1:0/0), NODE:PORT (SW1:3, adapter 0) or NODE:PORT-NAME (SW1:Ethernet3, SW1:e3)',
};
const PERCENT = { type: 'integer', minimum: 0, maximum: 100 };
const IPV4 = '^(\\d{1,3}\\.){3}\\d{1,3}$';

const SWITCH_PORT = {
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

const FILTERS = {
  type: 'object',
  description: "link filters (GNS3's, plus emuctl's rate and duplicate); 0 or absent means off",
  properties: {
    delay: {
      description: 'latency in ms, or [latency, jitter] in ms',
      anyOf: [{ type: 'integer', minimum: 0 }, { type: 'array', items: { type: 'integer', minimum: 0 }, minItems: 1, maxItems: 2 }],
    },
    packet_loss: { ...PERCENT, description: 'chance of dropping a frame, %' },
    corrupt: { ...PERCENT, description: 'chance of corrupting a frame, %' },
    frequency_drop: { type: 'integer', minimum: -1, description: 'drop every Nth frame (-1: all)' },
    bpf: { type: 'string', description: 'drop frames matching these tcpdump expressions, one per line' },
    rate: { type: 'integer', minimum: 0, description: 'rate limit in kbit/s (emuctl daemons only)' },
    duplicate: { ...PERCENT, description: 'chance of sending a frame twice, % (emuctl daemons only)' },
  },
  additionalProperties: false,
};

const NODE = {
  type: 'object',
  properties: {
    type: {
      enum: ['ethernet_switch', 'ethernet_hub', 'vpcs', 'qemu', 'cloud', 'nat', 'frame_relay_switch', 'atm_switch', 'docker',
        'dynamips', 'traceng', 'virtualbox', 'vmware', 'iou'],
      description: 'GNS3 node type (not with template)',
    },
    template: { type: 'string', minLength: 1, description: 'create the node from this template (name or id)' },
    compute: { type: 'string', minLength: 1, description: 'compute to run it on, by name or id (default: defaults.compute, else local)' },
    x: { type: 'integer', description: 'position on the GNS3 canvas' },
    y: { type: 'integer' },
    ports: {
      type: 'object',
      description: 'ethernet_switch: port settings by port number or range ("0-3"); unlisted ports are access ports in VLAN 1. cloud: its ports by number, each with an interface',
      propertyNames: { pattern: '^\\d+(-\\d+)?$' },
      additionalProperties: SWITCH_PORT,
    },
    port_count: { type: 'integer', minimum: 1, maximum: 1024, description: 'ethernet_switch, ethernet_hub: number of ports (default 8, or enough for the ports listed)' },
    ip: {
      type: 'string',
      pattern: '^(\\d{1,3}\\.){3}\\d{1,3}/\\d{1,2}$',
      description: 'vpcs: IPv4 address/prefix length, kept in its startup script; docker: the address lab wait --ping pings (the container configures it itself)',
    },
    gateway: { type: 'string', pattern: IPV4, description: 'vpcs: default gateway' },
    dns: { type: 'string', pattern: IPV4, description: 'vpcs: DNS server' },
    image: { type: 'string', minLength: 1, description: 'qemu: disk image (hda) on the compute; docker: image name:tag (${VAR} or ${VAR:-default} taken from the environment)' },
    ram: { type: 'integer', minimum: 1, description: 'qemu: memory in MB' },
    adapters: { type: 'integer', minimum: 1, maximum: 275, description: 'qemu, docker: number of Ethernet adapters (docker: eth0…)' },
    cpus: { type: 'integer', minimum: 1, description: 'qemu: vCPUs' },
    kernel: { type: 'string', minLength: 1, description: 'qemu: kernel image on the compute (boots without a disk)' },
    initrd: { type: 'string', minLength: 1, description: 'qemu: initial ramdisk on the compute' },
    kernel_command_line: { type: 'string', description: 'qemu: kernel command line' },
    adapter_type: { type: 'string', minLength: 1, description: 'qemu: NIC model, e.g. virtio-net-pci, e1000' },
    env: {
      type: 'object',
      description: 'docker: environment variables of the container (GNS3 environment)',
      propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
      additionalProperties: { type: ['string', 'number', 'boolean'] },
    },
    cmd: { type: 'string', minLength: 1, description: "docker: the container's start command (GNS3 start_command; default: the image's)" },
    files: {
      type: 'object',
      description: 'docker: startup files, absolute container path → file beside the lab file; copied in before the node starts',
      additionalProperties: { type: 'string', minLength: 1 },
    },
    properties: { type: 'object', description: 'other GNS3 node properties, sent as they are when the node is created' },
    mgmt_ip: { type: 'string', pattern: IPV4, description: 'docker, qemu: the management IPv4 address (with mgmt:; default: the next free one)' },
    mgmt_ipv6: { type: 'string', pattern: '^[0-9A-Fa-f:.]+$', description: 'docker, qemu: the management IPv6 address (with mgmt:; default: the next free one)' },
  },
  additionalProperties: false,
};

const LINK = {
  anyOf: [
    { type: 'array', items: ENDPOINT, minItems: 2, maxItems: 2, description: '[END, END]' },
    {
      type: 'object',
      properties: {
        endpoints: { type: 'array', items: ENDPOINT, minItems: 2, maxItems: 2 },
        filters: FILTERS,
        suspend: { type: 'boolean', description: 'the link drops everything' },
        capture: { type: 'boolean', description: 'capture its frames (as listing it in captures)' },
      },
      required: ['endpoints'],
      additionalProperties: false,
    },
  ],
};

/** The lab file's JSON Schema (draft-07). */
export const LAB_FILE_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'emuctl lab file',
  description: 'A lab as code: `emuctl lab up FILE` makes a GNS3-compatible server match it.',
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 250, description: 'project name' },
    defaults: {
      type: 'object',
      properties: { compute: { type: 'string', minLength: 1, description: 'compute of nodes that name none' } },
      additionalProperties: false,
    },
    nodes: { type: 'object', propertyNames: { pattern: NODE_NAME }, additionalProperties: NODE },
    links: { type: 'array', items: LINK },
    captures: { type: 'array', items: { type: 'string', pattern: '^\\S+$', description: 'a link by its ends: END-END' } },
    tests: { type: 'array', items: LAB_TEST_SCHEMA, description: 'tests `emuctl lab test` runs, in this order' },
    mgmt: {
      type: 'object',
      description: 'a management network: every docker and qemu node gets an extra interface on a bridge the host reaches (emuctl daemons only)',
      properties: {
        ipv4: { type: 'string', pattern: '^(auto|(\\d{1,3}\\.){3}\\d{1,3}/\\d{1,2})$', description: 'IPv4 subnet (CIDR) or auto (default: a free one)' },
        ipv6: { anyOf: [{ type: 'string', pattern: '^(auto|[0-9A-Fa-f:]+/\\d{1,3})$' }, { const: false }], description: 'IPv6 subnet (CIDR), auto (default) or false for none' },
        interface: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9_.-]{0,14}$', description: "the interface's name in each node (default mgmt0)" },
        ssh: { type: 'boolean', description: "install the lab's SSH key in each docker node (default true)" },
      },
      additionalProperties: false,
    },
  },
  required: ['name'],
  additionalProperties: false,
} as const;
