import { describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { ElicitationModule } from '../../src/module/elicitation.module.js';
import type { ElicitationModuleOptions } from '../../src/options/elicitation-options.interface.js';
import { resolveElicitationOptions, validateRoutePrefix } from '../../src/options/elicitation-options.validation.js';
import { describeConfigValue } from '../../src/errors/config-value.js';
import { ElicitationConfigError } from '../../src/errors/elicitation-config.error.js';
import { MemoryElicitationStore } from '../../src/stores/memory.store.js';

const KEY = Buffer.alloc(32, 7);
const valid: ElicitationModuleOptions = { baseUrl: 'https://mcp.example.com', resolvePageUser: () => 'u', encryptionKey: KEY };
const DEV: NodeJS.ProcessEnv = { NODE_ENV: 'development' };
const provider = {
  authorizationEndpoint: 'https://idp.example/authorize',
  tokenEndpoint: 'https://idp.example/token',
  clientId: 'id',
  scopes: ['openid'],
};

function message(options: Record<string, unknown>, env = DEV): string {
  try {
    resolveElicitationOptions(options as unknown as ElicitationModuleOptions, 'elicit', env);
  } catch (error) {
    expect(error).toBeInstanceOf(ElicitationConfigError);
    return (error as Error).message;
  }
  throw new Error('expected an ElicitationConfigError');
}

describe('baseUrl errors show the value and the fix', () => {
  it('a PUBLIC_URL without its scheme: the URL it was probably meant to be (http on loopback)', () => {
    expect(message({ ...valid, baseUrl: 'localhost:3000' })).toBe(
      'ElicitationModule option "baseUrl" must be an http: or https: URL, e.g. "https://mcp.example.com", got "localhost:3000" (did you mean "http://localhost:3000"?)',
    );
    expect(message({ ...valid, baseUrl: '127.0.0.1:3000/api' })).toBe(
      'ElicitationModule option "baseUrl" must be the absolute public URL browsers use to reach this app, e.g. "https://mcp.example.com", got "127.0.0.1:3000/api" (did you mean "http://127.0.0.1:3000/api"?)',
    );
  });

  it('https for a public host without a scheme', () => {
    expect(message({ ...valid, baseUrl: 'mcp.example.com' })).toBe(
      'ElicitationModule option "baseUrl" must be the absolute public URL browsers use to reach this app, e.g. "https://mcp.example.com", got "mcp.example.com" (did you mean "https://mcp.example.com"?)',
    );
  });

  it('a missing or empty value: a reminder of the environment variable', async () => {
    const hint = '(is the environment variable it is read from set?)';
    expect(message({ ...valid, baseUrl: undefined })).toBe(
      `ElicitationModule option "baseUrl" must be the absolute public URL browsers use to reach this app, e.g. "https://mcp.example.com", got undefined ${hint}`,
    );
    await expect(
      Test.createTestingModule({ imports: [ElicitationModule.forRootAsync({ useFactory: () => ({ ...valid, baseUrl: '' }) })] }).compile(),
    ).rejects.toThrow(
      `ElicitationModule option "baseUrl" must be the absolute public URL browsers use to reach this app, e.g. "https://mcp.example.com", got "" ${hint}`,
    );
  });

  it('never shows credentials, a query or a fragment', () => {
    const text = message({ ...valid, baseUrl: 'https://alice:hunter2@mcp.example.com/?token=abc#frag' });
    expect(text).toBe(
      'ElicitationModule option "baseUrl" must not carry a query, a fragment or credentials, got "https://<redacted>@mcp.example.com/?<redacted>".',
    );
    expect(message({ ...valid, baseUrl: 'alice:hunter2@mcp.example.com' })).toBe(
      'ElicitationModule option "baseUrl" must be an http: or https: URL, e.g. "https://mcp.example.com", got "<redacted>@mcp.example.com".',
    );
  });
});

describe('every option error shows the value it got', () => {
  it.each<[string, Record<string, unknown>, string]>([
    [
      'ttlMs',
      { ttlMs: '3e5' },
      'ElicitationModule option "ttlMs" must be a whole number of milliseconds above 0 up to 2147483647, got "3e5".',
    ],
    ['ttlMs', { ttlMs: -1 }, 'ElicitationModule option "ttlMs" must be a whole number of milliseconds above 0 up to 2147483647, got -1.'],
    [
      'fallback',
      { fallback: ['url'] },
      'ElicitationModule option "fallback" must be an object { page?: [...], form?: [...] }, got ["url"].',
    ],
    [
      'fallback.page',
      { fallback: { page: ['url', 'lnk'] } },
      `ElicitationModule option "fallback.page" has "lnk", which is not one of 'url', 'form-bridge', 'link', 'error', got ["url","lnk"].`,
    ],
    [
      'clientPolicy',
      { clientPolicy: 'strict' },
      'ElicitationModule option "clientPolicy" must be a function (client) => capabilities, got "strict".',
    ],
    [
      'title',
      { title: () => 'Hi' },
      'ElicitationModule option "title" must be a non-empty string of at most 200 characters, got a function.',
    ],
    [
      'title',
      { title: 'x'.repeat(300) },
      `ElicitationModule option "title" must be a non-empty string of at most 200 characters, got "${'x'.repeat(79)}…" (300 characters).`,
    ],
    [
      'primaryColor',
      { primaryColor: '2563eb' },
      'ElicitationModule option "primaryColor" must be a CSS hex colour such as "#2563eb" or a CSS colour name, got "2563eb" (did you mean "#2563eb"?)',
    ],
    [
      'logoUrl',
      { logoUrl: 'javascript:alert(1)' },
      'ElicitationModule option "logoUrl" must be an http(s) URL or a path starting with "/", got "javascript:alert(1)".',
    ],
    [
      'loginUrl',
      { loginUrl: 'login\nX-Injected: 1' },
      'ElicitationModule option "loginUrl" must be an http(s) URL or a path starting with "/", got "login\\nX-Injected: 1".',
    ],
    [
      'templatesDir',
      { templatesDir: '' },
      'ElicitationModule option "templatesDir" must be the path of a folder holding .hbs templates, got "".',
    ],
    [
      'messages',
      { messages: 'de' },
      'ElicitationModule option "messages" must be an object of catalogs by locale, e.g. { de: { labels: { submit: "Senden" } } }, got "de".',
    ],
    [
      'messages.*',
      { messages: { 'not a tag': {} } },
      'ElicitationModule option "messages.not a tag" is not a locale tag such as "de" or "pt-BR", got "not a tag".',
    ],
    [
      'defaultLocale',
      { defaultLocale: 'fr' },
      'ElicitationModule option "defaultLocale" must be a locale with a catalog: en, de, ar (or one added through messages), got "fr".',
    ],
    [
      'resolveLocale',
      { resolveLocale: 'de' },
      'ElicitationModule option "resolveLocale" must be a function (req) => locale tag, got "de".',
    ],
    ['resolvePageUser', { resolvePageUser: 'alice' }, 'ElicitationModule option "resolvePageUser" must be a function, got "alice".'],
    [
      'store',
      { store: {} },
      'ElicitationModule option "store" must be an instance of an ElicitationStore implementation, got an empty object {}.',
    ],
    [
      'store',
      { store: MemoryElicitationStore },
      'ElicitationModule option "store" must be an instance of an ElicitationStore implementation, got a function (the class itself? Pass an instance: new MemoryElicitationStore(), new RedisElicitationStore(...))',
    ],
    [
      'allowUnverifiedPages',
      { allowUnverifiedPages: 'true' },
      'ElicitationModule option "allowUnverifiedPages" must be true or false, got "true" (did you mean true, the boolean, not the string "true"?)',
    ],
    ['limits', { limits: 10 }, 'ElicitationModule option "limits" must be an object such as { createPerMinute: 10 }, got 10.'],
    [
      'limits.*',
      { limits: { createPerMinute: 'ten' } },
      'ElicitationModule option "limits.createPerMinute" must be a positive whole number, got "ten".',
    ],
    [
      'throttle',
      { throttle: true },
      'ElicitationModule option "throttle" must be false or an object such as { limit: 60, ttlMs: 60000 }, got true.',
    ],
    ['throttle.limit', { throttle: { limit: 0 } }, 'ElicitationModule option "throttle.limit" must be a positive whole number, got 0.'],
    [
      'throttle.ttlMs',
      { throttle: { ttlMs: 1.5 } },
      'ElicitationModule option "throttle.ttlMs" must be a positive whole number of milliseconds, got 1.5.',
    ],
    [
      'externalUrlPolicy',
      { externalUrlPolicy: 'strict' },
      'ElicitationModule option "externalUrlPolicy" must be an object such as { allowedHosts: ["accounts.example.com"] }, got "strict".',
    ],
    [
      'audit',
      { audit: true },
      `ElicitationModule option "audit" must be 'log' (a JSON line per record through Nest's Logger), a function or false, got true (did you mean 'log'?)`,
    ],
    ['oauth', { oauth: [] }, 'ElicitationModule option "oauth" must be an object { providers: { <name>: { ... } } }, got [].'],
    [
      'oauth.providers.*.scopes',
      { oauth: { providers: { github: { ...provider, scopes: 'repo user' } } } },
      'ElicitationModule option "oauth.providers.github.scopes" must be an array of scope names, e.g. ["openid", "profile"] (no spaces), got "repo user".',
    ],
    [
      'oauth.providers.*.tokenEndpoint',
      { oauth: { providers: { github: { ...provider, tokenEndpoint: 'https://bob:pw@idp.example/token#x' } } } },
      'ElicitationModule option "oauth.providers.github.tokenEndpoint" must be an absolute https:// URL without credentials or fragment, got "https://<redacted>@idp.example/token#<redacted>".',
    ],
    [
      'oauth.retentionMs',
      { oauth: { providers: { github: provider }, retentionMs: 0 } },
      'ElicitationModule option "oauth.retentionMs" must be a whole number of milliseconds from 1 to 31536000000, got 0.',
    ],
  ])('%s', (_, patch, expected) => {
    expect(message({ ...valid, ...patch })).toBe(expected);
  });

  it('routePrefix', () => {
    expect(() => validateRoutePrefix('a b')).toThrow(
      'ElicitationModule option "routePrefix" must be a URL path such as "elicit" or "mcp/elicit" (letters, digits, "-", "_", "." and "~"), got "a b".',
    );
  });
});

describe('secrets are never shown: their kind and size, marked as redacted', () => {
  it('encryptionKey', () => {
    expect(message({ ...valid, encryptionKey: 'c2hvcnQtc2VjcmV0' })).toBe(
      'ElicitationModule option "encryptionKey" must be exactly 32 bytes: a Buffer, 64 hex characters or base64 (e.g. `openssl rand -base64 32`), got a string of 16 characters (redacted) (as base64 it holds 12 bytes)',
    );
    expect(message({ ...valid, encryptionKey: [KEY, Buffer.from('tiny-secret')] })).toBe(
      'ElicitationModule option "encryptionKey[1]" must be exactly 32 bytes: a Buffer, 64 hex characters or base64 (e.g. `openssl rand -base64 32`), got a Buffer of 11 bytes (redacted).',
    );
    expect(message({ ...valid, encryptionKey: 42 })).toMatch(/, got a number \(redacted\)\.$/);
  });

  it("an OAuth provider's clientSecret", () => {
    const text = message({ ...valid, oauth: { providers: { github: { ...provider, clientSecret: ' '.repeat(3000) } } } });
    expect(text).toBe(
      'ElicitationModule option "oauth.providers.github.clientSecret" must be a non-empty string when given, got a string of 3000 characters (redacted).',
    );
  });
});

describe('describeConfigValue', () => {
  it.each<[unknown, string]>([
    [undefined, 'undefined'],
    [null, 'null'],
    ['text', '"text"'],
    ['tab\there', '"tab\\there"'],
    [0, '0'],
    [Number.NaN, 'NaN'],
    [false, 'false'],
    [10n, '10n'],
    [Symbol('s'), 'a symbol'],
    [() => 1, 'a function'],
    [Buffer.alloc(3), 'a Buffer of 3 bytes'],
    [[1, 'a', null], '[1,"a",null]'],
    [[{ a: 1 }], 'an array of 1 item'],
    [Array.from({ length: 40 }, (_, i) => `item-${i}`), 'an array of 40 items'],
    [{}, 'an empty object {}'],
    [{ a: 1, 'b c': 2 }, 'an object { a, "b c" }'],
    [{ a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7 }, 'an object { a, b, c, d, e, f, … }'],
    [new MemoryElicitationStore(), 'a MemoryElicitationStore'],
    [new URL('https://x.example'), 'a URL'],
    [Promise.resolve(1), 'a Promise'],
  ])('%p → %s', (value, expected) => {
    expect(describeConfigValue(value)).toBe(expected);
  });

  it('says only the kind and size of a secret', () => {
    expect(describeConfigValue('s3cret', true)).toBe('a string of 6 characters (redacted)');
    expect(describeConfigValue({ key: 's3cret' }, true)).toBe('an object (redacted)');
    expect(describeConfigValue(undefined, true)).toBe('undefined');
  });
});
