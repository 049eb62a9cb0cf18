import type { ApiClient } from '../client/api.js';
import { OperationError } from '../client/errors.js';

/**
 * The CLI's ApiClient contract over the browser's fetch, same-origin: the browser sends the
 * daemon's basic auth itself. Paths are relative to /v2, as in the CLI's resource modules.
 */
export class BrowserApi implements ApiClient {
  readonly url = location.origin;

  get<T>(path: string, searchParams?: Record<string, string | number | boolean>): Promise<T> {
    const query = searchParams ? `?${new URLSearchParams(Object.entries(searchParams).map(([k, v]) => [k, String(v)]))}` : '';
    return this.json<T>('GET', `${path}${query}`);
  }
  post<T>(path: string, body?: unknown): Promise<T> {
    return this.json<T>('POST', path, body ?? {});
  }
  put<T>(path: string, body?: unknown): Promise<T> {
    return this.json<T>('PUT', path, body ?? {});
  }
  async delete(path: string): Promise<void> {
    await this.send('DELETE', path);
  }
  async getText(path: string): Promise<string> {
    return (await this.send('GET', path)).text();
  }
  async postText(path: string, text: string): Promise<void> {
    await this.send('POST', path, text, 'application/octet-stream');
  }

  private async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.send(method, path, body === undefined ? undefined : JSON.stringify(body), 'application/json');
    const text = await res.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }

  private async send(method: string, path: string, body?: string, type?: string): Promise<Response> {
    const res = await fetch(apiUrl(path), { method, body, headers: type ? { 'Content-Type': type } : undefined });
    if (!res.ok) {
      const answer = await res.json().catch(() => undefined) as { message?: string } | undefined;
      throw new OperationError(`${method} /v2/${path}: ${answer?.message ?? res.statusText} (${res.status})`, res.status);
    }
    return res;
  }
}

/**
 * The absolute URL of an API path, from the page's origin: a page opened as http://user:password@host/ui/
 * has a base URL with credentials, from which fetch() refuses to resolve a relative URL.
 */
export function apiUrl(path: string): string {
  return `${location.origin}/v2/${path}`;
}
