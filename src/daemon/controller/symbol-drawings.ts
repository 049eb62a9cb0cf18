/**
 * emuctl's own drawings for the classic GNS3 symbol names (the names GNS3's built-in templates
 * and appliances use; the drawings are emuctl's, in one style: dark-blue outline, flat fills,
 * a short white label where the shape alone does not say what the device is).
 */

/** One drawing: its file name, size and SVG. */
export interface SymbolDrawing {
  filename: string;
  width: number;
  height: number;
  svg: string;
}

const INK = '#1f3b57';
const STROKE = `stroke="${INK}" stroke-width="2" stroke-linejoin="round"`;
const BLUE = '#3f7cb5';
const LIGHT = '#dfe9f3';

function svg(width: number, height: number, body: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${body}</svg>\n`;
}

/** A short label in the house font. */
function label(text: string, x: number, y: number, size = 11, fill = '#ffffff'): string {
  return `<text x="${x}" y="${y}" font-family="DejaVu Sans, Arial, sans-serif" font-size="${size}" font-weight="bold" fill="${fill}" text-anchor="middle">${text}</text>`;
}

const draw = (filename: string, width: number, height: number, body: string): SymbolDrawing => ({ filename, width, height, svg: svg(width, height, body) });

/** A rack box with a label (access servers, DSLAMs, controllers...). */
const box = (filename: string, text: string, fill = BLUE) =>
  draw(filename, 60, 36, `<rect x="2" y="4" width="56" height="28" rx="4" fill="${fill}" ${STROKE}/>${label(text, 30, 23, text.length > 4 ? 9 : 11)}`);

/** The router puck: a flat cylinder; `top` is drawn on its lid. */
const routerShape = (top: string) =>
  `<ellipse cx="30" cy="26" rx="27" ry="11" fill="#2f6a9e" ${STROKE}/><rect x="3" y="14" width="54" height="12" fill="${BLUE}"/><path d="M3 14 V26 M57 14 V26" ${STROKE}/><ellipse cx="30" cy="14" rx="27" ry="11" fill="#5b9bd5" ${STROKE}/>${top}`;
const ROUTER_ARROWS = `<path d="M14 14 H24 M20 10 L24 14 L20 18 M46 14 H36 M40 10 L36 14 L40 18" fill="none" stroke="#ffffff" stroke-width="2.5"/>`;
const router = (filename: string, text: string) => draw(filename, 60, 40, routerShape(label(text, 30, 18, text.length > 3 ? 9 : 11)));

/** The switch slab with its crossing arrows; `text` replaces the arrows. */
const SWITCH_ARROWS = `<path d="M12 13 H42 M36 9 L42 13 L36 17 M48 23 H18 M24 19 L18 23 L24 27" fill="none" stroke="#ffffff" stroke-width="2.5"/>`;
const switchShape = (inside: string) => `<rect x="2" y="4" width="56" height="28" rx="4" fill="${BLUE}" ${STROKE}/>${inside}`;
const switchWith = (filename: string, text: string) => draw(filename, 60, 36, switchShape(label(text, 30, 23, text.length > 3 ? 9 : 11)));

/** A monitor on a stand; `screen` is drawn on the screen. */
const monitor = (screenFill: string, screen: string, body = '#dfe9f3') =>
  `<rect x="6" y="3" width="48" height="32" rx="3" fill="${body}" ${STROKE}/><rect x="11" y="8" width="38" height="22" fill="${screenFill}"/>${screen}<path d="M24 35 L22 44 H38 L36 35" fill="#b8c7d6" ${STROKE}/><rect x="14" y="44" width="32" height="5" rx="2" fill="#b8c7d6" ${STROKE}/>`;
const guest = (filename: string, text: string, fill: string) => draw(filename, 60, 52, monitor(fill, label(text, 30, 24, 11)));

/** A tower server; `text` on its front. */
const tower = (filename: string, text: string) =>
  draw(filename, 40, 60, `<rect x="5" y="2" width="30" height="56" rx="3" fill="${LIGHT}" ${STROKE}/><path d="M10 10 H30 M10 16 H30 M10 22 H30" stroke="${INK}" stroke-width="2"/><circle cx="20" cy="50" r="3" fill="#7be07b" ${STROKE}/>${text ? label(text, 20, 38, text.length > 3 ? 8 : 10, INK) : ''}`);

/** A brick wall; `text` on a plate before it. */
const wall = (filename: string, text: string) =>
  draw(filename, 60, 40, `<rect x="2" y="2" width="56" height="36" fill="#c4533a" ${STROKE}/><path d="M2 14 H58 M2 26 H58 M20 2 V14 M40 2 V14 M10 14 V26 M30 14 V26 M50 14 V26 M20 26 V38 M40 26 V38" stroke="#f2d6cf" stroke-width="2"/>${text ? `<rect x="12" y="12" width="36" height="16" rx="3" fill="${INK}"/>${label(text, 30, 24, 10)}` : ''}`);

/** A box with an antenna and waves (access points). */
const accessPoint = (filename: string, text: string) =>
  draw(filename, 60, 44, `<path d="M30 16 V6" ${STROKE}/><path d="M22 8 Q30 0 38 8 M18 4 Q30 -6 42 4" fill="none" stroke="${INK}" stroke-width="2"/><rect x="6" y="16" width="48" height="24" rx="5" fill="${LIGHT}" ${STROKE}/>${label(text, 30, 32, 10, INK)}`);

/** A desk phone; `text` on its display. */
const phone = (filename: string, text: string) =>
  draw(filename, 56, 44, `<path d="M4 14 Q28 -2 52 14 L48 20 H38 L36 14 H20 L18 20 H8 Z" fill="${BLUE}" ${STROKE}/><rect x="10" y="22" width="36" height="20" rx="3" fill="${LIGHT}" ${STROKE}/>${label(text, 28, 36, 9, INK)}`);

const CLOUD_PATH = `<path d="M18 40 C6 40 3 28 12 24 C9 12 24 6 31 13 C36 3 54 5 55 18 C66 18 68 38 54 40 Z" fill="#e8eef5" ${STROKE}/>`;

/** Every drawing, by GNS3's classic file name. */
export const SYMBOL_DRAWINGS: readonly SymbolDrawing[] = [
  draw('computer.svg', 60, 52, monitor('#5b87b0', '')),
  draw('vpcs_guest.svg', 60, 52, `<rect x="6" y="3" width="48" height="32" rx="3" fill="#e3efe1" ${STROKE}/><rect x="11" y="8" width="38" height="22" fill="#20302a"/><path d="M15 14 L21 19 L15 24" fill="none" stroke="#7be07b" stroke-width="2"/><path d="M24 25 H33" stroke="#7be07b" stroke-width="2"/><rect x="14" y="41" width="32" height="8" rx="2" fill="#b8c7a8" ${STROKE}/><path d="M30 35 V41" ${STROKE}/>`),
  draw('ethernet_switch.svg', 60, 36, switchShape(SWITCH_ARROWS)),
  draw('hub.svg', 60, 30, `<rect x="2" y="4" width="56" height="22" rx="3" fill="#8aa5bf" ${STROKE}/><g fill="${INK}"><rect x="8" y="14" width="6" height="6"/><rect x="19" y="14" width="6" height="6"/><rect x="30" y="14" width="6" height="6"/><rect x="41" y="14" width="6" height="6"/></g><circle cx="52" cy="10" r="2" fill="#7be07b"/>`),
  draw('router.svg', 60, 40, routerShape(ROUTER_ARROWS)),
  draw('cloud.svg', 70, 44, CLOUD_PATH),
  draw('nat.svg', 70, 44, `${CLOUD_PATH}${label('NAT', 35, 30, 12, INK)}`),
  draw('qemu_guest.svg', 60, 52, `<rect x="6" y="6" width="48" height="40" rx="4" fill="#f3e8d8" ${STROKE}/><rect x="12" y="12" width="36" height="28" rx="2" fill="#d9823b"/><path d="M20 19 L25 33 L30 19 M33 33 V19 L38 26 L43 19 V33" fill="none" stroke="#ffffff" stroke-width="2.5"/>`),
  draw('docker_guest.svg', 60, 52, `<rect x="6" y="6" width="48" height="40" rx="4" fill="#e1eef8" ${STROKE}/><g fill="#2496ed" ${STROKE}><rect x="12" y="26" width="10" height="8"/><rect x="22" y="26" width="10" height="8"/><rect x="32" y="26" width="10" height="8"/><rect x="22" y="18" width="10" height="8"/><rect x="32" y="18" width="10" height="8"/><rect x="32" y="10" width="10" height="8"/></g><path d="M10 36 H48 Q46 42 38 42 H18 Q12 42 10 36 Z" fill="#2496ed" ${STROKE}/>`),
  guest('vbox_guest.svg', 'VB', '#2f5f8f'),
  guest('vmware_guest.svg', 'VM', '#607080'),
  guest('traceng.svg', 'TE', '#4f7f5f'),
  draw('multilayer_switch.svg', 60, 44, `<path d="M2 14 L12 4 H58 L48 14 Z" fill="#5b9bd5" ${STROKE}/><path d="M48 14 L58 4 V32 L48 42 Z" fill="#2f6a9e" ${STROKE}/><rect x="2" y="14" width="46" height="28" fill="${BLUE}" ${STROKE}/>${label('L3', 25, 33, 12)}`),
  switchWith('atm_switch.svg', 'ATM'),
  switchWith('frame_relay_switch.svg', 'FR'),
  switchWith('iosv_l2_virl.svg', 'L2'),
  box('atm_bridge.svg', 'ATM-BR'),
  box('access_server.svg', 'AS'),
  box('dslam.svg', 'DSLAM'),
  box('voice_access_server.svg', 'VAS'),
  box('wlan_controller.svg', 'WLC'),
  box('route_switch_processor.svg', 'RSP'),
  box('PBX.svg', 'PBX', '#5f7f9f'),
  box('ids.svg', 'IDS', '#8f3f3f'),
  router('edge_label_switch_router.svg', 'ELSR'),
  router('label_switch_router.svg', 'LSR'),
  router('gateway.svg', 'GW'),
  router('iosv_virl.svg', 'IOSv'),
  router('optical_router.svg', 'OPT'),
  router('router.awp.svg', 'AWP'),
  router('router_netflow.svg', 'NF'),
  router('voice_router.svg', 'VOIP'),
  draw('router_firewall.svg', 60, 40, routerShape(`<rect x="20" y="8" width="20" height="12" fill="#c4533a" stroke="#ffffff" stroke-width="1.5"/><path d="M20 14 H40 M30 8 V14 M25 14 V20 M35 14 V20" stroke="#ffffff" stroke-width="1.5"/>`)),
  wall('firewall.svg', ''),
  wall('PIX_firewall.svg', 'PIX'),
  wall('asa.svg', 'ASA'),
  tower('server.svg', ''),
  tower('sip_server.svg', 'SIP'),
  tower('call_manager.svg', 'CM'),
  accessPoint('access_point.svg', 'AP'),
  accessPoint('lightweight_ap.svg', 'LAP'),
  phone('ip_phone.svg', 'IP'),
  draw('printer.svg', 60, 44, `<rect x="14" y="2" width="32" height="14" fill="#ffffff" ${STROKE}/><rect x="4" y="14" width="52" height="20" rx="4" fill="${LIGHT}" ${STROKE}/><rect x="14" y="28" width="32" height="14" fill="#ffffff" ${STROKE}/><path d="M19 34 H41 M19 38 H35" stroke="${INK}" stroke-width="1.5"/>`),
];

/**
 * Other names GNS3 clients ask for, drawn as one of the above: the GUI falls back from
 * `docker_guest.svg` to `guest.svg`, and `ethernet_hub` is the hub's role name.
 */
export const SYMBOL_ALIASES: Readonly<Record<string, string>> = {
  'guest.svg': 'qemu_guest.svg',
  'ethernet_hub.svg': 'hub.svg',
  'switch.svg': 'ethernet_switch.svg',
};
