/**
 * DEMO-ONLY identity. A real app authenticates MCP requests with MCP authorization (OAuth bearer tokens
 * it verifies) and pages with its own login session. Here the bearer token *is* the user name and the
 * pages trust a plain cookie, so that a newcomer can try the flows without an identity provider.
 */
import type { IncomingMessage } from 'node:http';

/** Injection token: host names (lower case, IPv6 in brackets) the MCP route accepts in Host and Origin. */
export const DEMO_ALLOWED_HOSTS = Symbol('DemoAllowedHosts');

/** Name of the cookie `GET /demo/login` sets and the pages read. */
export const DEMO_COOKIE = 'demo_user';

const NAME = /^[A-Za-z0-9._@-]{1,64}$/;

/** A user name the demo accepts (letters, digits, `.`, `_`, `@`, `-`; at most 64). */
export function isDemoUserName(value: unknown): value is string {
  return typeof value === 'string' && NAME.test(value);
}

/** `Authorization: Bearer <name>` → `<name>`. */
export function userFromBearer(req: IncomingMessage): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  return match && isDemoUserName(match[1]) ? match[1] : undefined;
}

/** The `demo_user` cookie → the user name (the demo's `resolvePageUser`). */
export function userFromCookie(req: IncomingMessage): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === DEMO_COOKIE) {
      let value: string;
      try {
        value = decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return undefined;
      }
      return isDemoUserName(value) ? value : undefined;
    }
  }
  return undefined;
}
