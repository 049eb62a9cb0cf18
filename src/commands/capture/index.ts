import { Command } from 'commander';
import type { Factory } from '../../cli/context.js';
import { captureListCommand } from './list.js';
import { capturePullCommand } from './pull.js';
import { captureStartCommand } from './start.js';
import { captureStopCommand } from './stop.js';
import { captureWatchCommand } from './watch.js';
import { captureWiresharkCommand } from './wireshark.js';

/** `emuctl capture …`: packet captures on links. */
export function captureCommand(f: Factory): Command {
  return new Command('capture')
    .description('capture the frames crossing a link: start, stop, list, pull the pcap, watch it live, open it in Wireshark')
    .addCommand(captureStartCommand(f))
    .addCommand(captureStopCommand(f))
    .addCommand(captureListCommand(f))
    .addCommand(capturePullCommand(f))
    .addCommand(captureWatchCommand(f))
    .addCommand(captureWiresharkCommand(f));
}
