import { randomBytes } from 'node:crypto';
import { DEFAULT_ALLOW_UNVERIFIED_PAGES, defaultResolveMcpUser } from './elicitation.constants.js';
import type { ElicitationModuleOptions } from './elicitation-options.interface.js';
import { ElicitationConfigError } from '../errors/elicitation-config.error.js';
import { isSharedStore } from '../stores/elicitation-store.js';
import { booleanHint, type Resolved } from './option-values.js';
import { checkPageUrl } from './url-options.validation.js';

/** Length of an AES-256 key, in bytes. */
const KEY_BYTES = 32;

/** What the app plugs in is of the right kind: the identity hooks and the upload sink are functions, the store is a store. */
export function checkPlugIns(raw: ElicitationModuleOptions): void {
  for (const fn of ['resolvePageUser', 'resolveMcpUser', 'uploadSink'] as const) {
    if (raw[fn] !== undefined && typeof raw[fn] !== 'function')
      throw new ElicitationConfigError(fn, 'must be a function', { value: raw[fn] });
  }
  const store: unknown = raw.store;
  if (store !== undefined && (store === null || typeof (store as { get?: unknown }).get !== 'function')) {
    throw new ElicitationConfigError('store', 'must be an instance of an ElicitationStore implementation', {
      value: store,
      hint:
        typeof store === 'function'
          ? 'the class itself? Pass an instance: new MemoryElicitationStore(), new RedisElicitationStore(...)'
          : undefined,
    });
  }
}

/**
 * Who answers: the identity hooks of the pages (required in production unless `allowUnverifiedPages`) and
 * of MCP calls, and where a browser without a user logs in.
 */
export function resolveIdentity(
  raw: ElicitationModuleOptions,
  production: boolean,
  warnings: string[],
): Resolved<'resolvePageUser' | 'resolveMcpUser' | 'loginUrl' | 'allowUnverifiedPages'> {
  const allow: unknown = raw.allowUnverifiedPages;
  if (allow !== undefined && typeof allow !== 'boolean') {
    throw new ElicitationConfigError('allowUnverifiedPages', 'must be true or false', { value: allow, hint: booleanHint(allow) });
  }
  const allowUnverifiedPages = raw.allowUnverifiedPages ?? DEFAULT_ALLOW_UNVERIFIED_PAGES;
  if (!raw.resolvePageUser) {
    if (production && !allowUnverifiedPages) {
      throw new ElicitationConfigError(
        'resolvePageUser',
        "is required in production: without it anyone who obtains an elicitation link can answer it in the user's name (phishing). " +
          'Pass resolvePageUser: (req) => <your signed-in user id>, or set allowUnverifiedPages: true to accept the risk',
        { value: raw.resolvePageUser },
      );
    }
    warnings.push(
      'resolvePageUser is not set: elicitation pages do NOT check who the browser user is, so anyone holding a link can answer it. Set resolvePageUser to bind pages to your users.',
    );
  }
  checkPageUrl('loginUrl', raw.loginUrl, /^\/(?![/\\])\S*$/);
  return {
    resolvePageUser: raw.resolvePageUser,
    resolveMcpUser: raw.resolveMcpUser ?? defaultResolveMcpUser,
    loginUrl: raw.loginUrl,
    allowUnverifiedPages,
  };
}

/**
 * `encryptionKey`: one key or a ring, each 32 bytes (Buffer, base64 or hex). Without one, a store shared between
 * processes fails in every environment (each instance would draw its own key and could not open what the others
 * seal), production fails, and development on a store of its own gets a random per-process key (with a warning).
 * An error shows a key's kind and size, never the key.
 */
export function resolveKeys(raw: ElicitationModuleOptions, production: boolean, warnings: string[]): Buffer[] {
  const input = raw.encryptionKey;
  if (input !== undefined) return parseKeys(input);
  if (raw.store && isSharedStore(raw.store)) {
    throw new ElicitationConfigError(
      'encryptionKey',
      'is required with a store shared between processes (RedisElicitationStore, or a store whose shared is true), in every environment: ' +
        'without it each instance would draw its own random key and could not open the answers, records, requestStates and CSRF tokens ' +
        'the others seal. Give every instance the same encryptionKey: 32 random bytes, e.g. from `openssl rand -base64 32`',
      { value: input },
    );
  }
  if (production) {
    throw new ElicitationConfigError(
      'encryptionKey',
      'is required in production (secrets are encrypted at rest with it): pass 32 random bytes, e.g. from `openssl rand -base64 32`',
      { value: input },
    );
  }
  warnings.push(
    'encryptionKey is not set: a random per-process key encrypts stored secrets, so they cannot be read after a restart. Set encryptionKey (32 bytes) outside development.',
  );
  return [randomBytes(KEY_BYTES)];
}

function parseKeys(input: NonNullable<ElicitationModuleOptions['encryptionKey']>): Buffer[] {
  const list = Array.isArray(input) ? input : [input];
  if (list.length === 0) throw new ElicitationConfigError('encryptionKey', 'must hold at least one key', { value: input });
  return list.map((key: unknown, i) => {
    let bytes: Buffer | undefined;
    let hint: string | undefined;
    if (Buffer.isBuffer(key)) bytes = key;
    else if (typeof key === 'string' && /^[0-9a-fA-F]{64}$/.test(key)) bytes = Buffer.from(key, 'hex');
    else if (typeof key === 'string') {
      bytes = Buffer.from(key, 'base64');
      hint = `as base64 it holds ${bytes.length} byte${bytes.length === 1 ? '' : 's'}`;
    }
    if (!bytes || bytes.length !== KEY_BYTES) {
      throw new ElicitationConfigError(
        Array.isArray(input) ? `encryptionKey[${i}]` : 'encryptionKey',
        'must be exactly 32 bytes: a Buffer, 64 hex characters or base64 (e.g. `openssl rand -base64 32`)',
        { value: key, secret: true, hint },
      );
    }
    return Buffer.from(bytes);
  });
}
