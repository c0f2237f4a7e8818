import type { ElicitationStore } from './stores/elicitation-store.js';

/**
 * Finds the user behind a browser request to an elicitation page, typically from your own session
 * cookie. Return `undefined`/`null` for an unidentified browser.
 */
export type ResolvePageUser = (req: any) => string | undefined | null | Promise<string | undefined | null>;

/**
 * Finds the verified user behind an MCP request from the SDK's handler `extra` (its `authInfo` is set
 * by your MCP authorization middleware). Never trust an identity the client merely asserts.
 */
export type ResolveMcpUser = (extra: any) => string | undefined | null;

/** Options of `ElicitationModule.forRoot()` / `forRootAsync()`. */
export interface ElicitationModuleOptions {
  /**
   * Public origin (and path prefix, if the app has a global or `RouterModule` prefix) under which the
   * browser reaches this app, e.g. `https://mcp.example.com` or `https://example.com/api`.
   * Elicitation URLs are `${baseUrl}/${routePrefix}/:id/<page>`. Required.
   */
  baseUrl: string;
  /**
   * Lifetime of a pending elicitation, in milliseconds. A page opened later answers 410.
   * @default 600000 (10 minutes)
   */
  ttlMs?: number;
  /**
   * How long a finished record (and a completed record's data) stays readable after it finished,
   * in milliseconds, for `getResult`, `findByUserAndType` and the 409/410 pages.
   * @default the value of `ttlMs`
   */
  retentionMs?: number;
  /**
   * Interval of the expiry sweep, in milliseconds; `0` disables the scheduler (expiry then happens
   * lazily on read).
   * @default 60000
   */
  cleanupIntervalMs?: number;
  /**
   * Where elicitations live. Pass an instance of any `ElicitationStore` implementation.
   * @default a new `MemoryElicitationStore`
   */
  store?: ElicitationStore;
  /**
   * Page title shown in the header and the browser tab.
   * @default 'Authorization request'
   */
  title?: string;
  /**
   * Accent colour of the pages: a CSS hex colour (`#rgb`, `#rrggbb`) or a CSS colour name.
   * @default '#2563eb'
   */
  primaryColor?: string;
  /**
   * Logo shown in the page header: an absolute `https:`/`http:` URL or a path starting with `/`.
   * @default none
   */
  logoUrl?: string;
  /**
   * A folder with your own `.hbs` templates; any file there replaces the built-in one of the same name
   * (`layout`, `api-key`, `confirm`, `done`, `error`).
   * @default the package's `templates/` folder
   */
  templatesDir?: string;
  /**
   * Identifies the browser user on every page request. Pages refuse (403) a user who is not the one
   * the elicitation was created for, and (401) a browser without a user. Without this option pages
   * are not identity-checked and the module logs a warning at start-up.
   * @default none
   */
  resolvePageUser?: ResolvePageUser;
  /**
   * Identifies the verified user of an MCP tool call (MCP binding).
   * @default `extra.authInfo.extra.userId`, else `extra.authInfo.extra.sub`, else `extra.authInfo.clientId`
   */
  resolveMcpUser?: ResolveMcpUser;
}

/** Options after validation and defaults: what services inject. */
export interface ResolvedElicitationOptions
  extends Required<Omit<ElicitationModuleOptions, 'store' | 'logoUrl' | 'templatesDir' | 'resolvePageUser'>> {
  logoUrl?: string;
  templatesDir?: string;
  resolvePageUser?: ResolvePageUser;
  /** `baseUrl` without a trailing slash. */
  baseUrl: string;
  /** The URL segment the routes are mounted under (from the `routePrefix` extra). */
  routePrefix: string;
}

/** What a `useClass` options factory implements. */
export interface ElicitationOptionsFactory {
  createElicitationOptions(): ElicitationModuleOptions | Promise<ElicitationModuleOptions>;
}
