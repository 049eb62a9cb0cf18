import type { Response } from 'express';

/**
 * The Content-Type of every JSON answer, exactly: gns3-gui 2.2 (`gns3/http_client.py`) reads a body as
 * JSON only when the header is this string, so Express's `; charset=utf-8` makes it drop every body.
 */
export const JSON_CONTENT_TYPE = 'application/json';

/** Answers `status` with `value` as JSON, under the exact Content-Type GNS3 clients expect. */
export function sendJson(res: Response, status: number, value: unknown): void {
  const body = Buffer.from(JSON.stringify(value));
  res.status(status);
  res.setHeader('Content-Type', JSON_CONTENT_TYPE);
  res.setHeader('Content-Length', body.length);
  res.end(body);
}
