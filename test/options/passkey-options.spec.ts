/** The `passkeys` option: defaults from `baseUrl` and `title`, each bad value named, the warning for an IP address. */
import { describe, expect, it } from '@jest/globals';
import { ElicitationConfigError } from '../../src/errors/elicitation-config.error.js';
import { resolvePasskeys } from '../../src/options/passkey-options.validation.js';

const site = { baseUrl: 'https://mcp.example.com/base', title: 'Approvals', identified: true };

function refused(raw: unknown): ElicitationConfigError {
  try {
    resolvePasskeys(raw, site, []);
  } catch (error) {
    expect(error).toBeInstanceOf(ElicitationConfigError);
    return error as ElicitationConfigError;
  }
  throw new Error('not refused');
}

describe('resolvePasskeys', () => {
  it("defaults to baseUrl's host and origin and the title; listed in the bar only when given", () => {
    expect(resolvePasskeys(undefined, site, [])).toEqual({
      rpId: 'mcp.example.com',
      rpName: 'Approvals',
      origins: ['https://mcp.example.com'],
      maxPerUser: 10,
      identified: true,
      listed: false,
    });
    expect(resolvePasskeys({ rpId: 'example.com', maxPerUser: '3' }, site, [])).toMatchObject({
      rpId: 'example.com',
      maxPerUser: 3,
      listed: true,
    });
  });

  it('names each bad value', () => {
    expect(refused('yes').option).toBe('passkeys');
    expect(refused({ rpID: 'x' }).option).toBe('passkeys.rpID');
    expect(refused({ rpId: 'other.com' }).option).toBe('passkeys.rpId');
    expect(refused({ rpId: 'ample.com' }).option).toBe('passkeys.rpId');
    expect(refused({ rpName: '' }).option).toBe('passkeys.rpName');
    expect(refused({ origins: ['https://mcp.example.com/path'] }).option).toBe('passkeys.origins');
    expect(refused({ origins: [] }).option).toBe('passkeys.origins');
    expect(refused({ maxPerUser: 0 }).option).toBe('passkeys.maxPerUser');
    expect(refused({ canRegister: true }).option).toBe('passkeys.canRegister');
  });

  it('warns, when passkeys are asked for, that a baseUrl on an IP address gets none', () => {
    const warnings: string[] = [];
    resolvePasskeys(undefined, { ...site, baseUrl: 'http://127.0.0.1:3000' }, warnings);
    expect(warnings).toEqual([]);
    resolvePasskeys({}, { ...site, baseUrl: 'http://127.0.0.1:3000' }, warnings);
    expect(warnings).toEqual([expect.stringContaining('use localhost in development')]);
  });
});
