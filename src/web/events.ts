/** One notification as GNS3 sends it on a project's stream. */
export interface Notification {
  action: string;
  // The object the action names (a node, a link, a project…), as the API returns it.
  event: any;
}

/**
 * Follows a project's notification websocket (/v2/projects/{id}/notifications/ws), reconnecting
 * after a drop; `onReconnect` lets the page re-read what it may have missed.
 */
export function followProject(projectId: string, onMessage: (n: Notification) => void, onReconnect: () => void): () => void {
  let socket: WebSocket | undefined;
  let closed = false;
  let opened = false;
  const connect = () => {
    socket = new WebSocket(`${location.origin.replace(/^http/, 'ws')}/v2/projects/${encodeURIComponent(projectId)}/notifications/ws`);
    socket.onopen = () => {
      if (opened) onReconnect();
      opened = true;
      document.body.dataset.events = 'open';
    };
    socket.onmessage = (e) => {
      try {
        onMessage(JSON.parse(String(e.data)) as Notification);
      } catch {
        // A frame that is not JSON is no notification.
      }
    };
    socket.onclose = () => {
      document.body.dataset.events = 'closed';
      if (!closed) window.setTimeout(connect, 1000);
    };
  };
  connect();
  return () => {
    closed = true;
    socket?.close();
  };
}
