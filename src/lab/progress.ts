import type { Output } from '../render/output.js';

/**
 * Progress of one verb over a lab's nodes (`Starting`/`started`, `Stopping`/`stopped`): the spinner's text on a
 * terminal (`update`), and otherwise a line on stderr each tenth of the way (every 10 nodes at least), so a
 * script's log shows a long lab moving.
 */
export function nodeProgress(out: Output, update: (text: string) => void, doing: string, did: string): (done: number, total: number) => void {
  return (done, total) => {
    const step = Math.max(10, Math.ceil(total / 10));
    update(`${doing} ${total} nodes: ${done} ${did}`);
    if (!out.interactive && total > step && done % step === 0) out.note(`${did} ${done}/${total} nodes`);
  };
}
