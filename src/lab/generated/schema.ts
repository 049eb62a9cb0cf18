// The lab-file keys of generated labs (devices, addressing, modules and their settings, links
// without ports), as JSON Schema fragments that file-schema.ts puts in place.
import { DEVICE_NAMES } from './devices.js';

const NODE_REF = { type: 'string', pattern: '^[^\\s:,]+(:[^\\s:,]+)?$', description: 'a device node (R1), or a device node and its interface (R1:eth2)' };
const CIDR = { type: 'string', pattern: '^[0-9A-Fa-f.:]+/\\d{1,3}$' };
const DOTTED_OR_NUMBER = { anyOf: [{ type: 'integer', minimum: 0, maximum: 4294967295 }, { type: 'string', pattern: '^(\\d{1,3}\\.){3}\\d{1,3}$' }] };
const AS = { type: 'integer', minimum: 1, maximum: 4294967295, description: 'autonomous system number' };

const OSPF_LINK = {
  type: 'object',
  description: 'OSPF settings of a link: cost, area',
  properties: { area: { ...DOTTED_OR_NUMBER, description: 'area (default: the node\'s, else the lab\'s, else 0.0.0.0)' }, cost: { type: 'integer', minimum: 1, maximum: 65535 } },
  additionalProperties: false,
};
const OSPF_NODE = {
  type: 'object',
  description: 'OSPF settings of a node: area, and the cost of its links',
  properties: { area: OSPF_LINK.properties.area, cost: OSPF_LINK.properties.cost },
  additionalProperties: false,
};
const OSPF_LAB = {
  type: 'object',
  description: 'OSPF defaults of the lab (modules: [ospf])',
  properties: {
    area: OSPF_LINK.properties.area,
    cost: OSPF_LINK.properties.cost,
    hello: { type: 'integer', minimum: 1, maximum: 65535, description: 'hello interval, s (default 1)' },
    dead: { type: 'integer', minimum: 1, maximum: 65535, description: 'dead interval, s (default 4)' },
  },
  additionalProperties: false,
};
const BGP_NODE = {
  type: 'object',
  description: 'BGP settings of a node (modules: [bgp])',
  properties: { as: AS, rr: { type: 'boolean', description: 'a route reflector of its AS (the others of the AS peer with the reflectors only)' } },
  additionalProperties: false,
};
const VLAN_NAME_PATTERN = '^[A-Za-z][A-Za-z0-9_-]*$';
const VLAN_NAME = { type: 'string', pattern: VLAN_NAME_PATTERN, description: 'a VLAN of vlans:' };
/** A link's VLANs: one for every member (access ports), or per member a VLAN (access) or a list (a trunk of sub-interfaces). */
const VLAN_LINK = {
  description: 'vlan: NAME puts every member in that VLAN (access ports); vlan: {MEMBER: NAME, MEMBER: [NAME, NAME]} gives each member its VLAN, a list being a trunk (802.1Q sub-interfaces)',
  anyOf: [
    VLAN_NAME,
    {
      type: 'object',
      additionalProperties: { anyOf: [VLAN_NAME, { type: 'array', items: VLAN_NAME, minItems: 1, uniqueItems: true }] },
    },
  ],
};
const BGP_LAB = { type: 'object', description: 'BGP defaults of the lab: the AS of nodes that name none', properties: { as: AS }, additionalProperties: false };

const MEMBERS = { type: 'array', items: { type: 'string', pattern: '^[^\\s:,]+$' }, minItems: 1, description: 'the nodes of the group' };

/** Top-level keys. */
export const GENERATED_TOP_PROPERTIES = {
  devices: {
    type: 'object',
    description: 'the images of the devices nodes name with device: (defaults: frr ${FRR_IMAGE:-emuctl/frr:latest}, linux ${HOST_IMAGE:-emuctl/host:latest})',
    propertyNames: { enum: DEVICE_NAMES },
    additionalProperties: {
      type: 'object',
      properties: { image: { type: 'string', minLength: 1, description: 'docker image name:tag (${VAR} or ${VAR:-default} taken from the environment)' } },
      additionalProperties: false,
    },
  },
  addressing: {
    type: 'object',
    description: 'address pools of device nodes (defaults: loopback 10.0.0.0/16, p2p 10.1.0.0/16 in /31s, lan 172.16.0.0/12 in /24s)',
    properties: {
      loopback: { ...CIDR, description: 'IPv4 pool of loopbacks (/32 each; the loopback is the router id)' },
      p2p: { ...CIDR, description: 'IPv4 pool of point-to-point links between routers' },
      p2p_prefix: { enum: [30, 31], description: 'prefix length of a point-to-point link (default 31)' },
      lan: { ...CIDR, description: 'IPv4 pool of LANs and host links (/24 each)' },
      ipv6: {
        description: 'false (default), true (pools 2001:db8::/48 loopbacks, 2001:db8:1::/48 p2p, 2001:db8:2::/48 lan, /64 per link), or the pools',
        anyOf: [
          { type: 'boolean' },
          { type: 'object', properties: { loopback: CIDR, p2p: CIDR, lan: CIDR }, additionalProperties: false },
        ],
      },
    },
    additionalProperties: false,
  },
  modules: { type: 'array', items: { enum: ['ospf', 'bgp', 'vlan'] }, uniqueItems: true, description: 'routing the frr devices run (ospf, bgp), and VLANs (vlan), configured from the topology' },
  vlans: {
    type: 'object',
    description: 'VLANs of the lab (modules: [vlan]): NAME: {id: 1-4094, prefix: its subnet (default: the next /24 of the lan pool)}',
    propertyNames: { pattern: VLAN_NAME_PATTERN },
    additionalProperties: {
      type: 'object',
      required: ['id'],
      properties: { id: { type: 'integer', description: '802.1Q VLAN id, 1-4094' }, prefix: { ...CIDR, description: 'the VLAN\'s IPv4 subnet' } },
      additionalProperties: false,
    },
  },
  ospf: OSPF_LAB,
  bgp: BGP_LAB,
  groups: {
    type: 'object',
    description: 'node groups (as in netlab): NAME: [R1, R2], or NAME: {members: [R1, R2], bgp: {as: N}, ospf: {area: A}}; a node\'s own setting wins over its group\'s, a group\'s over the lab\'s',
    propertyNames: { pattern: '^[^\\s:,]+$' },
    additionalProperties: {
      anyOf: [
        MEMBERS,
        { type: 'object', properties: { members: MEMBERS, bgp: BGP_NODE, ospf: OSPF_NODE }, required: ['members'], additionalProperties: false },
      ],
    },
  },
};

/** Keys of a node. */
export const GENERATED_NODE_PROPERTIES = {
  device: { enum: DEVICE_NAMES, description: 'a device emuctl configures itself (not with type or template): frr (a router) or linux (a host)' },
  loopback: { ...CIDR, description: 'device: pinned loopback address (/32 or /128); the IPv4 one is the router id' },
  ospf: OSPF_NODE,
  bgp: BGP_NODE,
};

/** `[R1, R2]`, `[R1, R2, R3]`: links without ports (the `[END, END]` form names ports). */
export const GENERATED_LINK_ARRAY = {
  type: 'array',
  items: NODE_REF,
  minItems: 2,
  description: '[R1, R2]: next free interface on each side; [R1, R2, R3]: a LAN on one switch',
};

/** Keys of a link object beside endpoints/filters/suspend/capture: `{ends: …}` or `{lan: …}` and their settings. */
export const GENERATED_LINK_PROPERTIES = {
  ends: { type: 'array', items: NODE_REF, minItems: 2, description: 'device nodes it joins, next free interface each (more than two: a LAN)' },
  lan: { type: 'array', items: NODE_REF, minItems: 2, description: 'device nodes of a LAN (/24 from the lan pool; a switch when more than two)' },
  ospf: OSPF_LINK,
  p2p_prefix: { enum: [30, 31], description: 'prefix length of this point-to-point link' },
  addresses: { type: 'array', items: CIDR, minItems: 1, description: 'pinned addresses, one per end in order (IPv4, then IPv6 if any)' },
  vlan: VLAN_LINK,
};
