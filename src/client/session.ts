import type { ServerTrust } from './server-trust.js';
import { NotInApiError, type ApiVersion } from './api-version.js';
import { OperationError, UsageError } from './errors.js';
import { errorMessage, plainRequest } from './plain-http.js';
import { tokenExpiry, usableToken, type StoredToken } from './tokens.js';

/** Where a session keeps its token between CLI runs (the profile's entry in the tokens file). */
export interface TokenKeeper {
  load(): StoredToken | undefined;
  save(token: StoredToken | undefined): void;
}

/** What a session needs: the server, the credentials, and what is known of its API. */
export interface SessionOptions {
  url: string;
  user?: string;
  password?: string;
  trust?: ServerTrust;
  /** The version when it is known (forced with --api, or saved in the profile); else detected. */
  api?: ApiVersion;
  /** Told the version once it has been detected (the profile saves it). */
  onDetected?: (api: ApiVersion) => void;
  tokens?: TokenKeeper;
  timeoutMs: number;
  unreachableHint?: string;
  debug?: (line: string) => void;
}

/**
 * One server as the CLI talks to it: which API version (detected once: /v3/version, then
 * /v2/version), and how each request authenticates (Basic on v2; on v3 a bearer token from the
 * login route, kept per profile, renewed once on a 401). The token only ever goes into an
 * Authorization header or a `?token=` query, never into a log line or a message.
 */
export class ServerSession {
  private version?: Promise<ApiVersion>;
  private token?: string;
  private renewed = false;

  constructor(readonly options: SessionOptions) {
    if (options.api) this.version = Promise.resolve(options.api);
  }

  get url(): string {
    return this.options.url.replace(/\/+$/, '');
  }

  /** The API version of the server (probing it the first time when unknown). */
  api(): Promise<ApiVersion> {
    return (this.version ??= this.detect());
  }

  /** The Authorization header value for a request, if any. */
  async authorization(): Promise<string | undefined> {
    if ((await this.api()) === 'v2') {
      const { user, password } = this.options;
      return user === undefined ? undefined : `Basic ${Buffer.from(`${user}:${password ?? ''}`).toString('base64')}`;
    }
    const token = await this.bearer();
    return token ? `Bearer ${token}` : undefined;
  }

  /** The token for a websocket or stream URL's `?token=` (v3 only). */
  async queryToken(): Promise<string | undefined> {
    return (await this.api()) === 'v3' ? this.bearer() : undefined;
  }

  /**
   * After a 401: on v3 with credentials, logs in again once per run and says to retry; false when
   * a retry cannot help (v2, no credentials, or already renewed).
   */
  async renewAfter401(): Promise<boolean> {
    if ((await this.api()) !== 'v3' || this.options.user === undefined || this.renewed) return false;
    this.renewed = true;
    this.options.debug?.('the server refused the token (401): logging in again');
    this.token = await this.login();
    return true;
  }

  /** Logs in now (v3) and keeps the token; resolves with its expiry. */
  async loginNow(): Promise<number | undefined> {
    if ((await this.api()) !== 'v3') throw new NotInApiError(`${this.url} speaks the GNS3 API v2, which has no login: its profile's user and password go with every request`);
    this.token = await this.login();
    return tokenExpiry(this.token);
  }

  /** Forgets the kept token. */
  forget(): void {
    this.token = undefined;
    this.options.tokens?.save(undefined);
  }

  /** The message for a 401 on this server. */
  async authHint(): Promise<string> {
    if ((await this.api()) === 'v3') {
      return this.options.user === undefined ? " (GNS3 3.x needs a login: add --user and a password to the profile)" : " (check the profile's user and password)";
    }
    return " (check the profile's user and password)";
  }

  private async bearer(): Promise<string | undefined> {
    if (this.token) return this.token;
    const { user } = this.options;
    if (user === undefined) return undefined;
    const kept = this.options.tokens?.load();
    if (usableToken(kept, this.url, user)) return (this.token = kept.token);
    return (this.token = await this.login());
  }

  private async login(): Promise<string> {
    const { user, password } = this.options;
    if (user === undefined) throw new UsageError(`${this.url} (GNS3 3.x) needs a login: give the profile a user and a password (profile add NAME --url URL --user USER --password-stdin)`);
    this.options.debug?.(`→ POST ${this.url}/v3/access/users/authenticate (login as ${user})`);
    const answer = await plainRequest(this.url, 'POST', '/v3/access/users/authenticate', { json: { username: user, password: password ?? '' }, trust: this.options.trust, timeoutMs: this.options.timeoutMs, unreachableHint: this.options.unreachableHint });
    this.options.debug?.(`← ${answer.status} POST /v3/access/users/authenticate`);
    const token = (answer.body as { access_token?: unknown } | undefined)?.access_token;
    if (answer.status !== 200 || typeof token !== 'string') {
      const why = errorMessage(answer.body) ?? `HTTP ${answer.status}`;
      throw new OperationError(`login to ${this.url} as ${user} failed: ${why}`, answer.status);
    }
    this.options.tokens?.save({ url: this.url, user, token, expires: tokenExpiry(token) });
    return token;
  }

  private async detect(): Promise<ApiVersion> {
    const ask = (path: string) => plainRequest(this.url, 'GET', path, { trust: this.options.trust, timeoutMs: this.options.timeoutMs, unreachableHint: this.options.unreachableHint });
    const v3 = await ask('/v3/version');
    const v3Version = (v3.body as { version?: unknown } | undefined)?.version;
    let found: ApiVersion | undefined;
    if (v3.status === 200 && typeof v3Version === 'string' && Number.parseInt(v3Version, 10) >= 3) found = 'v3';
    else {
      const v2 = await ask('/v2/version');
      if (v2.status === 200 || v2.status === 401) found = 'v2';
    }
    if (!found) throw new OperationError(`${this.url} answers neither /v3/version nor /v2/version: is it a GNS3 server or an emuctl daemon?`);
    this.options.debug?.(`${this.url} speaks the GNS3 API ${found}`);
    this.options.onDetected?.(found);
    return found;
  }
}
