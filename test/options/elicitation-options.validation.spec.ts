import { describe, expect, it } from '@jest/globals';
import type { ElicitationModuleOptions } from '../../src/options/elicitation-options.interface.js';
import { resolveElicitationOptions, validateRoutePrefix } from '../../src/options/elicitation-options.validation.js';
import { ElicitationConfigError } from '../../src/errors/elicitation-config.error.js';

const KEY = Buffer.alloc(32, 7);
const valid: ElicitationModuleOptions = { baseUrl: 'https://mcp.example.com', resolvePageUser: () => 'u', encryptionKey: KEY };
/** A development environment, whatever NODE_ENV the test run has. */
const DEV: NodeJS.ProcessEnv = { NODE_ENV: 'development' };

function configError(fn: () => unknown): ElicitationConfigError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ElicitationConfigError);
    return error as ElicitationConfigError;
  }
  throw new Error('expected an ElicitationConfigError');
}

describe('options validation', () => {
  it('fills in the documented defaults', () => {
    const { options, warnings } = resolveElicitationOptions(valid, 'elicit', DEV);
    expect(options).toMatchObject({
      baseUrl: 'https://mcp.example.com',
      routePrefix: 'elicit',
      ttlMs: 600_000,
      retentionMs: 600_000,
      cleanupIntervalMs: 60_000,
      title: 'Authorization request',
      primaryColor: '#2563eb',
    });
    expect(warnings).toEqual([]);
  });

  it('keeps a path prefix in baseUrl and drops the trailing slash', () => {
    expect(resolveElicitationOptions({ ...valid, baseUrl: 'https://example.com/api/' }, 'elicit', DEV).options.baseUrl).toBe(
      'https://example.com/api',
    );
  });

  it.each([
    ['baseUrl', { baseUrl: undefined }, /baseUrl.*absolute public URL/],
    ['baseUrl', { baseUrl: 'not a url' }, /baseUrl/],
    ['baseUrl', { baseUrl: 'ftp://example.com' }, /http: or https:/],
    ['baseUrl', { baseUrl: 'https://example.com/?session=1' }, /query/],
    ['ttlMs', { ttlMs: 0 }, /ttlMs.*above 0/],
    ['ttlMs', { ttlMs: -5 }, /ttlMs/],
    ['ttlMs', { ttlMs: 1.5 }, /ttlMs.*whole number/],
    ['ttlMs', { ttlMs: '600 s' }, /ttlMs/],
    ['retentionMs', { retentionMs: 0 }, /retentionMs/],
    ['cleanupIntervalMs', { cleanupIntervalMs: -1 }, /cleanupIntervalMs.*from 0/],
    ['primaryColor', { primaryColor: 'red;}body{display:none' }, /primaryColor.*hex colour/],
    ['logoUrl', { logoUrl: 'javascript:alert(1)' }, /logoUrl/],
    ['logoUrl', { logoUrl: '//evil.example/logo.png' }, /logoUrl/],
    ['title', { title: '' }, /title/],
    ['resolvePageUser', { resolvePageUser: 'alice' }, /resolvePageUser.*function/],
    ['store', { store: {} }, /store.*ElicitationStore/],
  ])('refuses a bad %s with a message naming it and the fix', (option, patch, message) => {
    const error = configError(() => resolveElicitationOptions({ ...valid, ...(patch as object) }, 'elicit', DEV));
    expect(error.option).toBe(option);
    expect(error.message).toMatch(message);
    expect(error.message).toContain(`ElicitationModule option "${option}"`);
  });

  it('accepts cleanupIntervalMs 0 (scheduler disabled)', () => {
    expect(resolveElicitationOptions({ ...valid, cleanupIntervalMs: 0 }, 'elicit', DEV).options.cleanupIntervalMs).toBe(0);
  });

  it('warns when pages are not identity-checked and when a public baseUrl is plain http', () => {
    const { warnings } = resolveElicitationOptions({ baseUrl: 'http://mcp.example.com' }, 'elicit', DEV);
    expect(warnings.join('\n')).toMatch(/resolvePageUser is not set/);
    expect(warnings.join('\n')).toMatch(/plain http/);
    expect(warnings.join('\n')).toMatch(/encryptionKey is not set/);
    expect(resolveElicitationOptions({ ...valid, baseUrl: 'http://127.0.0.1:3000' }, 'elicit', DEV).warnings).toEqual([]);
    expect(resolveElicitationOptions({ ...valid, baseUrl: 'http://[::1]:3000' }, 'elicit', DEV).warnings).toEqual([]);
  });

  it('reads NODE_ENV from the environment it is given, not from process.env', () => {
    const production: NodeJS.ProcessEnv = { NODE_ENV: 'production' };
    const unverified = { baseUrl: 'https://mcp.example.com', encryptionKey: KEY };
    expect(configError(() => resolveElicitationOptions(unverified, 'elicit', production)).option).toBe('resolvePageUser');
    expect(configError(() => resolveElicitationOptions({ ...valid, encryptionKey: undefined }, 'elicit', production)).option).toBe(
      'encryptionKey',
    );
    expect(process.env.NODE_ENV).not.toBe('production');
    expect(resolveElicitationOptions(unverified, 'elicit', DEV).warnings).toEqual([expect.stringMatching(/resolvePageUser is not set/)]);
  });

  it('validates routePrefix', () => {
    expect(validateRoutePrefix('/mcp/elicit/')).toBe('mcp/elicit');
    expect(configError(() => validateRoutePrefix('a b')).option).toBe('routePrefix');
    expect(configError(() => validateRoutePrefix('')).option).toBe('routePrefix');
  });
});

describe('numeric options given as strings (as @nestjs/config and process.env give them)', () => {
  const resolve = (extra: Record<string, unknown>) => resolveElicitationOptions({ ...valid, ...extra }, 'elicit', DEV).options;

  it('reads a string of decimal digits as that number', () => {
    const options = resolve({
      ttlMs: '300000',
      pendingRetryWaitMs: '0',
      keepAliveMs: '5000',
      limits: { createPerMinute: '5', maxFormAttempts: '4' },
      throttle: { limit: '60', ttlMs: '60000' },
    });
    expect(options).toMatchObject({ ttlMs: 300_000, retentionMs: 300_000, pendingRetryWaitMs: 0, keepAliveMs: 5_000 });
    expect(options.limits).toMatchObject({ createPerMinute: 5, maxFormAttempts: 4 });
    expect(options.throttle).toEqual({ limit: 60, ttlMs: 60_000 });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['an exponent', { ttlMs: '3e5' }, 'ttlMs'],
    ['a fraction', { ttlMs: '1.5' }, 'ttlMs'],
    ['a sign', { ttlMs: '-1' }, 'ttlMs'],
    ['spaces', { ttlMs: ' 300000' }, 'ttlMs'],
    ['words', { limits: { createPerMinute: 'ten' } }, 'limits.createPerMinute'],
    ['an empty string', { throttle: { limit: '' } }, 'throttle.limit'],
    ['zero where it must be above 0', { ttlMs: '0' }, 'ttlMs'],
  ])('still refuses %s, naming the option', (_, extra, option) => {
    expect(configError(() => resolve(extra)).message).toContain(option);
  });
});

describe('limits.maxCallsInFlightPerSession and limits.maxCallsInFlightPerUser (#28 item 4)', () => {
  const resolve = (limits: Record<string, unknown>) => resolveElicitationOptions({ ...valid, limits }, 'elicit', DEV).options.limits;

  it('default to 16 per session and 64 per user, and take a positive whole number', () => {
    expect(resolve({})).toMatchObject({ maxCallsInFlightPerSession: 16, maxCallsInFlightPerUser: 64 });
    expect(resolve({ maxCallsInFlightPerSession: 2, maxCallsInFlightPerUser: '8' })).toMatchObject({
      maxCallsInFlightPerSession: 2,
      maxCallsInFlightPerUser: 8,
    });
  });

  it.each<[string, unknown]>([
    ['maxCallsInFlightPerSession', 0],
    ['maxCallsInFlightPerSession', 1.5],
    ['maxCallsInFlightPerUser', -4],
    ['maxCallsInFlightPerUser', 'many'],
  ])('refuses limits.%s = %p, naming the option and the value', (name, value) => {
    const { message } = configError(() => resolve({ [name]: value }));
    expect(message).toContain(`limits.${name}`);
    expect(message).toContain(JSON.stringify(value));
  });

  it('refuses a misspelt key among them', () => {
    expect(configError(() => resolve({ maxCallsInFlightPerSesion: 4 })).message).toContain('maxCallsInFlightPerSesion');
  });
});

describe('tasks.maxFinishedPerUser, tasks.maxFinished (#41) and limits.maxStepResultBytes', () => {
  const resolve = (extra: Partial<ElicitationModuleOptions>) => resolveElicitationOptions({ ...valid, ...extra }, 'elicit', DEV).options;

  it('default to 100 finished tasks per user, 10000 in all and 8 KiB a step, and take a positive whole number', () => {
    expect(resolve({}).tasks).toMatchObject({ maxFinishedPerUser: 100, maxFinished: 10_000 });
    expect(resolve({}).limits.maxStepResultBytes).toBe(8_192);
    expect(resolve({ tasks: { maxFinishedPerUser: 3, maxFinished: 7 } }).tasks).toMatchObject({ maxFinishedPerUser: 3, maxFinished: 7 });
    expect(resolve({ limits: { maxStepResultBytes: 1_024 } }).limits.maxStepResultBytes).toBe(1_024);
  });

  it.each<[string, Partial<ElicitationModuleOptions>, string, unknown]>([
    ['tasks.maxFinishedPerUser', { tasks: { maxFinishedPerUser: 0 } }, 'tasks.maxFinishedPerUser', 0],
    ['tasks.maxFinished', { tasks: { maxFinished: 2.5 } }, 'tasks.maxFinished', 2.5],
    ['limits.maxStepResultBytes', { limits: { maxStepResultBytes: -1 } }, 'limits.maxStepResultBytes', -1],
  ])('refuses a bad %s, naming the option and the value', (_name, extra, option, value) => {
    const { message } = configError(() => resolve(extra));
    expect(message).toContain(option);
    expect(message).toContain(JSON.stringify(value));
  });
});
