import { TUNNEL_HOST } from '../../compute/adapter-wires.js';
import { InvalidError } from '../../errors.js';
import type { QemuDrive } from './schemas.js';
import { ShellWordsError, splitShellWords } from '../../../util/shell-words.js';

/** One network adapter of a VM: its device model and MAC, and the local UDP tunnel to its wire. */
export interface AdapterSpec {
  type: string;
  mac: string;
  /** Port QEMU binds (`localaddr`) and port of the dataplane wire it sends to (`udp`). */
  tunnel?: { qemuPort: number; wirePort: number };
}

/** Everything the qemu command line is built from. */
export interface QemuCommandSpec {
  name: string;
  uuid: string;
  ram: number;
  cpus: number;
  accel: 'kvm' | 'tcg';
  bootPriority: string;
  drives: { drive: QemuDrive; file: string; interface: string }[];
  cdrom?: string;
  bios?: string;
  kernel?: string;
  initrd?: string;
  append?: string;
  /**
   * Console: the serial port's telnet server on a unix socket (a file name in QEMU's cwd, the node
   * directory), which emuctl's console relay serves on the TCP port; or a VNC display on host:port.
   */
  console?: { type: 'telnet'; socket: string } | { type: 'vnc'; host: string; port: number };
  qmpSocket: string;
  adapters: AdapterSpec[];
  /** The management NIC, after the data adapters: a device of `type` with `mac` on the host TAP `tap` (made by the compute). */
  management?: { type: string; mac: string; tap: string };
  /** The user's extra arguments, already split. */
  options: string[];
  /** Load this savevm snapshot at start (on_close save_vm_state). */
  loadvm?: string;
}

/** The chardev id of the serial console. */
const SERIAL_CHARDEV = 'emuctl-serial';


/** The netdev id of the management NIC (not a `gns3-N`: QMP set_link and the data adapters' numbers never see it). */
export const MGMT_NETDEV = 'emuctl-mgmt';
/** A TAP name emuctl makes, and a MAC, as they may appear in an option value (no comma, nothing else). */
const TAP_NAME = /^[a-z0-9]{1,15}$/;
const MAC = /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/;

/** The netdev id of adapter N (GNS3 names them so; QMP set_link uses it). */
export function netdevId(adapter: number): string {
  return `gns3-${adapter}`;
}

/** The qemu argv (without the binary). No shell ever sees it: every element is one argument. */
export function qemuArguments(s: QemuCommandSpec): string[] {
  // -name reads sub-options (guest=…,process=…): a comma in the node's name stays in the name.
  const args = ['-name', escapeOption(s.name), '-m', `${s.ram}M`, '-smp', `cpus=${s.cpus}`, '-accel', s.accel, '-boot', `order=${s.bootPriority}`, '-uuid', s.uuid];
  if (s.bios) args.push('-bios', s.bios);
  s.drives.forEach(({ drive, file, interface: iface }) => {
    const index = ['hda', 'hdb', 'hdc', 'hdd'].indexOf(drive);
    args.push('-drive', `file=${escapeOption(file)},if=${iface},index=${index},media=disk,id=drive${index}`);
  });
  if (s.cdrom) args.push('-cdrom', s.cdrom);
  if (s.kernel) args.push('-kernel', s.kernel);
  if (s.initrd) args.push('-initrd', s.initrd);
  if (s.append) args.push('-append', s.append);
  // telnet=on: QEMU negotiates telnet on the socket as it did on its TCP port, so clients see the same bytes through the relay.
  if (s.console?.type === 'telnet') args.push('-chardev', `socket,id=${SERIAL_CHARDEV},path=${escapeOption(s.console.socket)},server=on,wait=off,telnet=on`, '-serial', `chardev:${SERIAL_CHARDEV}`);
  args.push('-chardev', `socket,id=qmp,path=${escapeOption(s.qmpSocket)},server=on,wait=off`, '-mon', 'chardev=qmp,mode=control');
  if (s.console?.type === 'vnc') args.push('-vnc', `${s.console.host}:${s.console.port - 5900}`);
  else if (!s.options.some((o) => ['-display', '-nographic', '-vnc', '-curses', '-sdl', '-spice'].includes(o))) args.push('-display', 'none');
  args.push('-net', 'none');
  s.adapters.forEach((a, n) => {
    if (!a.tunnel) return void args.push('-device', `${a.type},mac=${a.mac}`);
    args.push('-device', `${a.type},mac=${a.mac},netdev=${netdevId(n)}`);
    args.push('-netdev', `socket,id=${netdevId(n)},udp=${TUNNEL_HOST}:${a.tunnel.wirePort},localaddr=${TUNNEL_HOST}:${a.tunnel.qemuPort}`);
  });
  if (s.management) {
    const { type, mac, tap } = s.management;
    if (!TAP_NAME.test(tap) || !MAC.test(mac)) throw new InvalidError(`the management NIC's TAP '${tap}' or MAC '${mac}' cannot be a QEMU option value`);
    // script=no, downscript=no: the compute made the TAP and put it in the bridge; QEMU runs nothing.
    args.push('-device', `${type},mac=${mac},netdev=${MGMT_NETDEV}`);
    args.push('-netdev', `tap,id=${MGMT_NETDEV},ifname=${tap},script=no,downscript=no`);
  }
  if (s.loadvm) args.push('-loadvm', s.loadvm);
  return [...args, ...s.options];
}

/** QEMU option values separate sub-options with commas; a comma inside a value is doubled. */
function escapeOption(value: string): string {
  return value.replace(/,/g, ',,');
}

/** Splits `options` into words as a POSIX shell would, expanding nothing (util/shell-words.ts). */
export function splitOptions(options: string | null | undefined): string[] {
  try {
    return splitShellWords(options ?? '');
  } catch (err) {
    if (err instanceof ShellWordsError) throw new InvalidError(`options: ${err.message}`);
    throw err;
  }
}

/** GNS3's base MAC of a QEMU VM: 0c:XX:XX:XX:00:00 from the node id's hex digits. */
export function defaultBaseMac(nodeId: string): string {
  return `0c:${nodeId.slice(2, 4)}:${nodeId.slice(4, 6)}:${nodeId.slice(6, 8)}:00:00`;
}
