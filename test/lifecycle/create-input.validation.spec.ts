/**
 * Creating a `kind: 'oauth'` elicitation: `provider` required and configured, `scopes` checked and merged after the
 * provider's, the `type` forced to `oauth:<provider>`, `provider`/`scopes` refused for the other kinds, and
 * `typeOfAsk` for every kind; through the checks themselves and through `ElicitationService.createUrlElicitation`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import type { ElicitationModuleOptions } from '../../src/options/elicitation-options.interface.js';
import { resolveElicitationOptions } from '../../src/options/elicitation-options.validation.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { ElicitationRecords } from '../../src/lifecycle/elicitation-records.js';
import type { ElicitationKind, ElicitationRecord } from '../../src/core/elicitation.types.js';
import { ElicitationInputError } from '../../src/errors/elicitation-input.error.js';
import type { ElicitationOAuthOptions } from '../../src/options/oauth-options.js';
import {
  attachKindData,
  buildPendingRecord,
  typeOfAsk,
  type CreateUrlElicitationInput,
} from '../../src/lifecycle/create-input.validation.js';
import { errorOf } from '../support/error-of.js';
import { compileElicitation } from '../support/testing-module.js';

const NOW = 1_750_000_000_000;
const DEV: NodeJS.ProcessEnv = { NODE_ENV: 'development' };

const oauth: ElicitationOAuthOptions = {
  providers: {
    github: {
      authorizationEndpoint: 'https://github.com/login/oauth/authorize',
      tokenEndpoint: 'https://github.com/login/oauth/access_token',
      clientId: 'gh',
      scopes: ['read:user', 'repo'],
    },
    google: { issuer: 'https://accounts.google.com', clientId: 'g', scopes: ['openid', 'email'] },
  },
};

function optionsWith(extra: Partial<ElicitationModuleOptions> = {}) {
  return resolveElicitationOptions(
    { baseUrl: 'https://mcp.example.com', encryptionKey: Buffer.alloc(32, 3), resolvePageUser: () => 'alice', ...extra },
    'elicit',
    DEV,
  ).options;
}

const options = optionsWith({ oauth });
const withoutOAuth = optionsWith();

const ask = (patch: Partial<CreateUrlElicitationInput>): CreateUrlElicitationInput => ({
  kind: 'oauth',
  message: 'Connect your account',
  userId: 'alice',
  ...patch,
});

/** The record the create path builds (both checks, as the service runs them), or what they throw. */
function created(input: CreateUrlElicitationInput, resolved = options): ElicitationRecord {
  const record = buildPendingRecord(input, resolved, NOW);
  const attaching = attachKindData(record, input, resolved);
  expect(attaching).toBeUndefined(); // only `external` looks anything up
  return record;
}

function inputError(fn: () => unknown): ElicitationInputError {
  const error = errorOf(fn);
  expect(error).toBeInstanceOf(ElicitationInputError);
  return error as ElicitationInputError;
}

describe('kind "oauth": the provider', () => {
  it('is required', () => {
    const error = inputError(() => created(ask({})));
    expect(error.field).toBe('provider');
    expect(error.message).toMatch(/must be one of the oauth\.providers \(github, google\)/);
  });

  it.each<[string, unknown]>([
    ['an unknown name', 'gitlab'],
    ['another case', 'GitHub'],
    ['a grant type', 'oauth:github'],
    ['a number', 42],
    ['null', null],
    ['an empty name', ''],
  ])('is refused as %s, naming the configured ones', (_case, provider) => {
    const error = inputError(() => created(ask({ provider: provider as string })));
    expect(error.field).toBe('provider');
    expect(error.message).toBe('Elicitation "provider" must be one of the oauth.providers (github, google).');
  });

  it('needs the module option oauth.providers', () => {
    const error = inputError(() => created(ask({ provider: 'github' }), withoutOAuth));
    expect(error.field).toBe('provider');
    expect(error.message).toMatch(/needs the module option oauth\.providers/);
  });

  it('makes the record: type oauth:<provider>, the provider and its scopes in the metadata', () => {
    const record = created(ask({ provider: 'github' }));
    expect(record).toMatchObject({ kind: 'oauth', type: 'oauth:github', userId: 'alice', status: 'pending' });
    expect(record.metadata.provider).toBe('github');
    expect(record.metadata.scopes).toEqual(['read:user', 'repo']);
    expect(created(ask({ provider: 'google' })).type).toBe('oauth:google');
  });

  it('keeps the caller’s own metadata alongside', () => {
    const record = created(ask({ provider: 'google', metadata: { reason: 'calendar sync' } }));
    expect(record.metadata).toEqual({ reason: 'calendar sync', provider: 'google', scopes: ['openid', 'email'] });
  });

  it('does not share the provider’s scope list with the record', () => {
    const record = created(ask({ provider: 'github' }));
    (record.metadata.scopes as string[]).push('admin:org');
    expect(options.oauth!.providers.get('github')!.scopes).toEqual(['read:user', 'repo']);
    expect(created(ask({ provider: 'github' })).metadata.scopes).toEqual(['read:user', 'repo']);
  });
});

describe('kind "oauth": the scopes', () => {
  it('are the provider’s then the ask’s, deduplicated, the provider’s first', () => {
    const record = created(ask({ provider: 'github', scopes: ['gist', 'repo', 'gist', 'workflow', 'read:user'] }));
    expect(record.metadata.scopes).toEqual(['read:user', 'repo', 'gist', 'workflow']);
  });

  it('may be empty', () => {
    expect(created(ask({ provider: 'google', scopes: [] })).metadata.scopes).toEqual(['openid', 'email']);
  });

  it('accept 50 and punctuation a scope may carry', () => {
    const many = Array.from({ length: 50 }, (_, i) => `https://www.googleapis.com/auth/s${i}`);
    expect(created(ask({ provider: 'google', scopes: many })).metadata.scopes).toEqual(['openid', 'email', ...many]);
  });

  it.each<[string, unknown]>([
    ['with a space', ['repo gist']],
    ['with a quote', ['re"po']],
    ['with a backslash', ['re\\po']],
    ['with a newline', ['repo\n']],
    ['with a non-ASCII character', ['répo']],
    ['an empty scope', ['']],
    ['a scope longer than 200', ['s'.repeat(201)]],
    ['a number in the list', ['repo', 1]],
    ['a string instead of a list', 'repo gist'],
    ['an object', { repo: true }],
    ['null', null],
    ['51 scopes', Array.from({ length: 51 }, (_, i) => `s${i}`)],
  ])('are refused %s, naming "scopes"', (_case, scopes) => {
    const error = inputError(() => created(ask({ provider: 'github', scopes: scopes as string[] })));
    expect(error.field).toBe('scopes');
    expect(error.message).toMatch(/at most 50 scope names \(no spaces\)/);
  });
});

describe('kind "oauth": the type', () => {
  it('may be given as oauth:<provider>', () => {
    expect(created(ask({ provider: 'github', type: 'oauth:github' })).type).toBe('oauth:github');
  });

  it.each([['github-token'], ['oauth:google'], ['oauth:GitHub'], ['oauth'], ['oauth:github ']])(
    'is refused as %j, naming "type" and the one it must be',
    (type) => {
      const error = inputError(() => created(ask({ provider: 'github', type })));
      expect(error.field).toBe('type');
      expect(error.message).toContain('must be "oauth:github" (or left out) for kind "oauth"');
    },
  );
});

describe('provider and scopes on the other kinds', () => {
  const others: Array<[ElicitationKind, Partial<CreateUrlElicitationInput>]> = [
    ['api-key', {}],
    ['confirm', {}],
    ['form', { form: { type: 'object', properties: { name: { type: 'string' } } } }],
    ['external', { url: 'https://auth.example.com/authorize' }],
  ];

  it.each(others)('kind %s refuses a provider', (kind, extra) => {
    const error = inputError(() => created(ask({ kind, ...extra, provider: 'github' })));
    expect(error.field).toBe('provider');
    expect(error.message).toMatch(/is only for kind "oauth"/);
  });

  it.each(others)('kind %s refuses scopes', (kind, extra) => {
    const error = inputError(() => created(ask({ kind, ...extra, scopes: ['repo'] })));
    expect(error.field).toBe('scopes');
    expect(error.message).toMatch(/is only for kind "oauth"/);
  });

  it('names the provider first when both are given', () => {
    expect(inputError(() => created(ask({ kind: 'api-key', provider: 'github', scopes: ['repo'] }))).field).toBe('provider');
  });

  it('refuses them without the oauth option too', () => {
    expect(inputError(() => created(ask({ kind: 'api-key', provider: 'github' }), withoutOAuth)).field).toBe('provider');
  });

  it('an api-key ask without them is untouched', () => {
    const record = created(ask({ kind: 'api-key', message: 'Your API key' }));
    expect(record.type).toBe('api-key');
    expect(record.metadata).toEqual({});
  });
});

describe("the MCP binding's keys: askKey and taskId", () => {
  const confirm = (extra: Record<string, unknown>): CreateUrlElicitationInput => ({
    kind: 'confirm',
    message: 'Deploy?',
    userId: 'alice',
    ...extra,
  });

  it('are kept on the record when set', () => {
    expect(created(confirm({ askKey: 'k-1', taskId: 't-1' }))).toMatchObject({ askKey: 'k-1', taskId: 't-1' });
  });

  it.each(['askKey', 'taskId'] as const)('%s: an empty, over-long or non-string value is refused, naming the field', (field) => {
    for (const value of ['', 'x'.repeat(201), 42]) {
      const error = inputError(() => created(confirm({ [field]: value })));
      expect(error.field).toBe(field);
      expect(error.message).toMatch(/must be a non-empty string of at most \d+ characters/);
    }
  });
});

describe('typeOfAsk', () => {
  it.each<[string, Pick<CreateUrlElicitationInput, 'kind' | 'type' | 'provider'>, string]>([
    ['api-key', { kind: 'api-key' }, 'api-key'],
    ['confirm', { kind: 'confirm' }, 'confirm'],
    ['form', { kind: 'form' }, 'form'],
    ['external', { kind: 'external' }, 'external'],
    ['oauth with a provider', { kind: 'oauth', provider: 'github' }, 'oauth:github'],
    ['oauth without a provider', { kind: 'oauth' }, 'oauth'],
    ['oauth with a provider that is not a string', { kind: 'oauth', provider: 42 as unknown as string }, 'oauth'],
    ['a provider on another kind', { kind: 'api-key', provider: 'github' }, 'api-key'],
    ['a given type (api-key)', { kind: 'api-key', type: 'api-key-github' }, 'api-key-github'],
    ['a given type (oauth)', { kind: 'oauth', provider: 'github', type: 'custom' }, 'custom'],
  ])('%s', (_case, input, type) => {
    expect(typeOfAsk(input)).toBe(type);
  });

  it('is the type the created record carries, for every kind', () => {
    const asks: CreateUrlElicitationInput[] = [
      ask({ kind: 'api-key' }),
      ask({ kind: 'confirm', type: 'deploy' }),
      ask({ kind: 'form', form: { type: 'object', properties: { a: { type: 'string' } } } }),
      ask({ kind: 'oauth', provider: 'google' }),
    ];
    for (const input of asks) expect(created(input).type).toBe(typeOfAsk(input));
  });
});

describe('ElicitationService.createUrlElicitation with kind "oauth"', () => {
  let ref: TestingModule;
  let service: ElicitationService;
  let records: ElicitationRecords;

  beforeAll(async () => {
    ref = await compileElicitation({ oauth });
    service = ref.get(ElicitationService);
    records = ref.get(ElicitationRecords);
  });
  afterAll(async () => {
    await ref?.close();
  });

  it('stores the record with its grant type, provider and scopes, and links the oauth page', async () => {
    const { elicitationId, url } = await service.createUrlElicitation(ask({ provider: 'github', scopes: ['gist', 'repo'] }));
    expect(url).toBe(`https://mcp.example.com/elicit/${elicitationId}/oauth`);
    const record = await records.read(elicitationId);
    expect(record).toMatchObject({ kind: 'oauth', type: 'oauth:github', status: 'pending' });
    expect(record?.metadata).toMatchObject({ provider: 'github', scopes: ['read:user', 'repo', 'gist'] });
  });

  it('refuses an unknown provider and a wrong type before storing anything', async () => {
    const before = await service.list({ userId: 'bob' });
    await expect(service.createUrlElicitation(ask({ userId: 'bob', provider: 'gitlab' }))).rejects.toMatchObject({
      name: 'ElicitationInputError',
      field: 'provider',
    });
    await expect(service.createUrlElicitation(ask({ userId: 'bob', provider: 'github', type: 'gh' }))).rejects.toMatchObject({
      field: 'type',
    });
    await expect(service.createUrlElicitation(ask({ userId: 'bob', kind: 'api-key', scopes: ['repo'] }))).rejects.toMatchObject({
      field: 'scopes',
    });
    expect(await service.list({ userId: 'bob' })).toEqual(before);
  });
});
