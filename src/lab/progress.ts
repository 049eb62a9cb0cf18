import type { Output } from '../render/output.js';

/**
 * Progress of one verb over `total` nodes: the spinner's text on a terminal (`update`), and otherwise a
 * line on stderr each tenth of the way (every 10 nodes at least), so a script's log shows a long lab moving.
 */
export function nodeProgress(out: Output, update: (text: string) => void, label: string, verb: string, total: number): (done: number) => void {
  const step = Math.max(10, Math.ceil(total / 10));
  return (done) => {
    update(`${label}: ${done} ${verb}`);
    if (!out.interactive && total > step && done % step === 0) out.note(`${verb} ${done}/${total} nodes`);
  };
}
