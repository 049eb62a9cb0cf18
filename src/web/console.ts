import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';

/** An open console: an xterm.js terminal over the node's console websocket (binary frames both ways). */
export interface ConsoleSession {
  close(): void;
}

/** Opens the console of a node into `container`. */
export function openConsole(container: HTMLElement, projectId: string, nodeId: string): ConsoleSession {
  container.replaceChildren();
  const term = new Terminal({ convertEol: false, fontSize: 13, scrollback: 2000 });
  const fit = new FitAddon();
  term.loadAddon(fit);
  term.open(container);
  fit.fit();
  const ws = new WebSocket(`${location.origin.replace(/^http/, 'ws')}/v2/projects/${encodeURIComponent(projectId)}/nodes/${encodeURIComponent(nodeId)}/console/ws`);
  ws.binaryType = 'arraybuffer';
  const encoder = new TextEncoder();
  ws.onopen = () => (container.dataset.state = 'open');
  ws.onclose = () => {
    container.dataset.state = 'closed';
    term.write('\r\n[console closed]\r\n');
  };
  ws.onmessage = (e) => term.write(typeof e.data === 'string' ? e.data : new Uint8Array(e.data as ArrayBuffer));
  const typing = term.onData((data) => {
    if (ws.readyState === WebSocket.OPEN) ws.send(encoder.encode(data));
  });
  const onResize = () => fit.fit();
  window.addEventListener('resize', onResize);
  term.focus();
  return {
    close() {
      window.removeEventListener('resize', onResize);
      typing.dispose();
      ws.close();
      term.dispose();
    },
  };
}
