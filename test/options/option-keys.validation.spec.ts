import { describe, expect, it } from '@jest/globals';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { ElicitationModule } from '../../src/module/elicitation.module.js';
import { ELICITATION_RESOLVED_OPTIONS } from '../../src/options/elicitation.constants.js';
import type { ElicitationModuleOptions } from '../../src/options/elicitation-options.interface.js';
import type { ResolvedElicitationOptions } from '../../src/options/resolved-options.js';
import { resolveElicitationOptions } from '../../src/options/elicitation-options.validation.js';
import { ElicitationConfigError } from '../../src/errors/elicitation-config.error.js';

const KEY = Buffer.alloc(32, 7);
const valid: ElicitationModuleOptions = { baseUrl: 'https://mcp.example.com', resolvePageUser: () => 'u', encryptionKey: KEY };
const DEV: NodeJS.ProcessEnv = { NODE_ENV: 'development' };

/** Options as a plain-JavaScript app or a factory typed loosely passes them: the compiler does not see the keys. */
function loose(options: Record<string, unknown>): ElicitationModuleOptions {
  return options as unknown as ElicitationModuleOptions;
}

/** The error a module's start-up fails with (it must fail). */
async function startUpError(imports: unknown[]): Promise<Error> {
  try {
    const ref = await Test.createTestingModule({ imports: imports as never[] }).compile();
    await ref.close();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected start-up to fail');
}

function resolveError(options: Record<string, unknown>): ElicitationConfigError {
  try {
    resolveElicitationOptions(loose(options), 'elicit', DEV);
  } catch (error) {
    expect(error).toBeInstanceOf(ElicitationConfigError);
    return error as ElicitationConfigError;
  }
  throw new Error('expected an ElicitationConfigError');
}

describe('unknown option keys fail start-up, naming each key and the one it most likely meant', () => {
  it('forRootAsync: a factory returning { baseURL, ttl } does not start (both would be ignored, the TTL left at 10 minutes)', async () => {
    const baseURL = 'https://mcp.example.com';
    const error = await startUpError([ElicitationModule.forRootAsync({ useFactory: () => loose({ baseURL, ttl: 300000 }) })]);
    expect(error).toBeInstanceOf(ElicitationConfigError);
    expect(error.message).toBe(
      'ElicitationModule option "baseURL" is unknown (did you mean "baseUrl"?), and so is "ttl" (did you mean "ttlMs", in milliseconds?).',
    );
    expect((error as ElicitationConfigError).option).toBe('baseURL');
  });

  it('forRoot: the same check, through the same provider', async () => {
    const error = await startUpError([ElicitationModule.forRoot(loose({ ...valid, ttl: 300000 }))]);
    expect(error.message).toBe('ElicitationModule option "ttl" is unknown (did you mean "ttlMs", in milliseconds?).');
  });

  it('forRootAsync with useClass: the factory class result is checked too', async () => {
    class Options {
      createElicitationOptions(): ElicitationModuleOptions {
        return loose({ ...valid, primaryColour: '#2563eb' });
      }
    }
    const error = await startUpError([ElicitationModule.forRootAsync({ useClass: Options })]);
    expect(error.message).toBe('ElicitationModule option "primaryColour" is unknown (did you mean "primaryColor"?).');
  });

  it('a real app created with NestFactory does not start, with the whole message', async () => {
    @Module({ imports: [ElicitationModule.forRootAsync({ useFactory: () => loose({ ...valid, limits: { maxUploadByte: 1024 } }) })] })
    class AppModule {}
    await expect(NestFactory.create(AppModule, { logger: false, abortOnError: false })).rejects.toThrow(
      new ElicitationConfigError('limits.maxUploadByte', 'is unknown (did you mean "limits.maxUploadBytes"?)'),
    );
    await expect(NestFactory.create(AppModule, { logger: false, abortOnError: false })).rejects.toThrow(
      'ElicitationModule option "limits.maxUploadByte" is unknown (did you mean "limits.maxUploadBytes"?).',
    );
  });

  it('reports every unknown key at once, nested groups named by their path', () => {
    const error = resolveError({
      ...valid,
      ttl: 1000,
      limits: { createPerMinute: 5, maxUploadByte: 1 },
      throttle: { limit: 10, ttl: 1000 },
      fallback: { pages: ['url'] },
      externalUrlPolicy: { allowedHost: ['a.example'] },
      oauth: {
        provider: {},
        providers: { github: { clientId: 'id', clientSecrte: 'do-not-print-me', scopes: [], authorizationParams: { prompt: 'consent' } } },
      },
    });
    expect(error.option).toBe('ttl');
    expect(error.message).toBe(
      'ElicitationModule option "ttl" is unknown (did you mean "ttlMs", in milliseconds?), and so are ' +
        '"limits.maxUploadByte" (did you mean "limits.maxUploadBytes"?), ' +
        '"throttle.ttl" (did you mean "throttle.ttlMs", in milliseconds?), ' +
        '"fallback.pages" (did you mean "fallback.page"?), ' +
        '"externalUrlPolicy.allowedHost" (did you mean "externalUrlPolicy.allowedHosts"?), ' +
        '"oauth.provider" (did you mean "oauth.providers"?) and ' +
        '"oauth.providers.github.clientSecrte" (did you mean "oauth.providers.github.clientSecret"?).',
    );
    expect(error.message).not.toContain('do-not-print-me');
  });

  it('refuses a key whose value is undefined (still a misspelling)', () => {
    expect(resolveError({ ...valid, ttl: undefined }).message).toBe(
      'ElicitationModule option "ttl" is unknown (did you mean "ttlMs", in milliseconds?).',
    );
  });

  it('names the unknown key before the option it left missing', () => {
    expect(resolveError({ baseURL: 'https://mcp.example.com' }).option).toBe('baseURL');
  });

  it('says where to look when no known key is close', () => {
    expect(resolveError({ ...valid, colourScheme: 'dark' }).message).toBe(
      'ElicitationModule option "colourScheme" is unknown (ElicitationModuleOptions lists every option).',
    );
    expect(resolveError({ ...valid, throttle: { burst: 5 } }).message).toBe(
      'ElicitationModule option "throttle.burst" is unknown (throttle takes limit, ttlMs).',
    );
  });

  it("points the extras and forRootAsync's own keys to where they belong", async () => {
    const error = await startUpError([ElicitationModule.forRootAsync({ useFactory: () => loose({ ...valid, routePrefix: 'ask' }) })]);
    expect(error.message).toBe(
      'ElicitationModule option "routePrefix" is unknown (routePrefix is given beside the factory, not in its result: forRootAsync({ routePrefix, useFactory })).',
    );
    expect(resolveError({ ...valid, useFactory: () => valid }).message).toBe(
      'ElicitationModule option "useFactory" is unknown (useFactory belongs to forRootAsync, not to the options).',
    );
  });

  it('leaves the extras given to forRoot alone (Nest takes them out before the options are read)', async () => {
    const ref = await Test.createTestingModule({
      imports: [ElicitationModule.forRoot({ ...valid, routePrefix: 'ask', isGlobal: true, controllers: false })],
    }).compile();
    expect(ref.get<ResolvedElicitationOptions>(ELICITATION_RESOLVED_OPTIONS).routePrefix).toBe('ask');
    await ref.close();
  });

  it('does not check the keys of open records: provider names, authorization parameters, catalogs by locale', () => {
    const { options } = resolveElicitationOptions(
      loose({
        ...valid,
        oauth: {
          providers: {
            'my-idp': {
              authorizationEndpoint: 'https://idp.example/authorize',
              tokenEndpoint: 'https://idp.example/token',
              clientId: 'id',
              scopes: ['openid'],
              authorizationParams: { audience: 'api', access_type: 'offline' },
            },
          },
        },
        messages: { fr: { labels: { submit: 'Envoyer' } } },
      }),
      'elicit',
      DEV,
    );
    expect([...options.oauth!.providers.keys()]).toEqual(['my-idp']);
  });

  it('suggests the nearest key of the catalog for a mistyped page text', () => {
    expect(resolveError({ ...valid, messages: { de: { labels: { submitt: 'Senden' } } } }).message).toBe(
      'ElicitationModule option "messages.de.labels.submitt" is not a text of the catalog, got "Senden" (did you mean "messages.de.labels.submit"?)',
    );
  });
});
