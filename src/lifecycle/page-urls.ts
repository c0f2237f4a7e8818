import type { ResolvedElicitationOptions } from '../options/resolved-options.js';

/** What page URLs are built from. */
export type PageUrlOptions = Pick<ResolvedElicitationOptions, 'baseUrl' | 'routePrefix'>;

/**
 * The place of an elicitation's pages under the module's routes, `/<routePrefix>/<id>`, or of one of them with `page`
 * (a kind, or a page's action: `<kind>/extend`): every page URL and path is built from it.
 */
export function pageRoute(routePrefix: string, id: string, page?: string): string {
  return page === undefined ? `/${routePrefix}/${id}` : `/${routePrefix}/${id}/${page}`;
}

/** The path part of `baseUrl`, without a trailing slash (where the host mounts the module's routes). */
export function basePathOf(baseUrl: string): string {
  return new URL(baseUrl).pathname.replace(/\/+$/, '');
}

/** The page URL a user is sent to: `<baseUrl>/<routePrefix>/<id>/<page>`. */
export function pageUrl(options: PageUrlOptions, id: string, page: string): string {
  return `${options.baseUrl}${pageRoute(options.routePrefix, id, page)}`;
}

/** The path of a page as the browser sees it, `<baseUrl path>/<routePrefix>/<id>[/<page>]`. */
export function pagePath(options: PageUrlOptions, id: string, page?: string): string {
  return `${basePathOf(options.baseUrl)}${pageRoute(options.routePrefix, id, page)}`;
}

/** The inbox's place under the module's routes, `/<routePrefix>/inbox`: a user's open questions. */
export function inboxRoute(routePrefix: string): string {
  return `/${routePrefix}/inbox`;
}

/** The inbox's URL, `<baseUrl>/<routePrefix>/inbox` (the link notifications and pages carry). */
export function inboxUrl(options: PageUrlOptions): string {
  return `${options.baseUrl}${inboxRoute(options.routePrefix)}`;
}

/** The inbox's path as the browser sees it, `<baseUrl path>/<routePrefix>/inbox` (the pages' bar links to it). */
export function inboxPath(options: PageUrlOptions): string {
  return `${basePathOf(options.baseUrl)}${inboxRoute(options.routePrefix)}`;
}

/** The passkey page's path as the browser sees it, `<baseUrl path>/<routePrefix>/passkeys` (a user's passkeys). */
export function passkeysPath(options: PageUrlOptions): string {
  return `${basePathOf(options.baseUrl)}/${options.routePrefix}/passkeys`;
}
