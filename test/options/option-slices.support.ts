/** What the option slices' specs share: options holding secrets, and ways to look for them in a slice. */
import { SELF_DECLARED_DEPS_METADATA } from '@nestjs/common/constants.js';
import type { ElicitationModuleOptions } from '../../src/options/elicitation-options.interface.js';

/** A key ring of two keys. */
export const KEYS = [Buffer.alloc(32, 7), Buffer.alloc(32, 9)];

/** Options with every kind of secret a slice must not hold: the key ring and an OAuth client secret (`gh-secret`). */
export const OPTIONS_WITH_SECRETS: ElicitationModuleOptions = {
  baseUrl: 'https://mcp.example.com',
  encryptionKey: KEYS,
  oauth: {
    providers: {
      github: {
        authorizationEndpoint: 'https://github.com/login/oauth/authorize',
        tokenEndpoint: 'https://github.com/login/oauth/access_token',
        clientId: 'gh-client',
        clientSecret: 'gh-secret',
        scopes: ['read:user'],
      },
    },
  },
};

/** Every value reachable from `value` (own enumerable properties, functions left as they are). */
export function reachable(value: unknown, seen = new Set<unknown>()): unknown[] {
  if (value === null || typeof value !== 'object' || seen.has(value)) return [value];
  seen.add(value);
  const entries = value instanceof Map ? [...value.values()] : Object.values(value);
  return [value, ...entries.flatMap((entry) => reachable(entry, seen))];
}

/** The tokens a class injects by `@Inject(token)`. */
export function injectedTokens(target: object): unknown[] {
  return ((Reflect.getMetadata(SELF_DECLARED_DEPS_METADATA, target) ?? []) as Array<{ param: unknown }>).map((dep) => dep.param);
}

/** The classes a class's constructor takes by type (`design:paramtypes`), the built objects it injects among them. */
export function injectedTypes(target: object): unknown[] {
  return (Reflect.getMetadata('design:paramtypes', target) ?? []) as unknown[];
}
