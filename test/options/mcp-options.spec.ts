import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { injectedTokens, KEYS, OPTIONS_WITH_SECRETS, reachable } from './option-slices.support.js';
import { ElicitationModule } from '../../src/module/elicitation.module.js';
import { LinkedQuestions } from '../../src/mcp/questions/linked-questions.js';
import { McpElicitation } from '../../src/mcp/mcp-elicitation.js';
import { RequestStates } from '../../src/mcp/input-required/request-states.js';
import { ELICITATION_RESOLVED_OPTIONS } from '../../src/options/elicitation.constants.js';
import type { ElicitationModuleOptions } from '../../src/options/elicitation-options.interface.js';
import type { ResolvedElicitationOptions } from '../../src/options/resolved-options.js';
import { ELICITATION_MCP_OPTIONS, type ElicitationMcpOptions } from '../../src/options/mcp-options.js';

const resolveMcpUser = () => 'u';
const options: ElicitationModuleOptions = {
  ...OPTIONS_WITH_SECRETS,
  resolveMcpUser,
};

describe('ELICITATION_MCP_OPTIONS (the MCP binding’s slice of the options)', () => {
  it('holds what the binding reads, copied out of the resolved options, and no secret', async () => {
    const ref = await Test.createTestingModule({ imports: [ElicitationModule.forRoot(options)] }).compile();
    try {
      const resolved = ref.get<ResolvedElicitationOptions>(ELICITATION_RESOLVED_OPTIONS);
      const slice = ref.get<ElicitationMcpOptions>(ELICITATION_MCP_OPTIONS);
      expect(Object.keys(slice).sort()).toEqual(
        [
          'callWaitMs',
          'clientPolicy',
          'hiddenExtension',
          'fallback',
          'instantDeclineMs',
          'keepAliveMs',
          'limits',
          'pendingRetryRounds',
          'pendingRetryWaitMs',
          'requestStateTtlMs',
          'resolveMcpUser',
          'retentionMs',
          'tasks',
          'ttlMs',
          'urlRequired',
        ].sort(),
      );
      expect(slice.resolveMcpUser).toBe(resolved.resolveMcpUser);
      expect(slice.fallback).toBe(resolved.fallback);
      expect(slice.urlRequired).toBe(resolved.urlRequired);
      expect(slice).toMatchObject({
        ttlMs: resolved.ttlMs,
        retentionMs: resolved.retentionMs,
        requestStateTtlMs: resolved.requestStateTtlMs,
        instantDeclineMs: resolved.instantDeclineMs,
        keepAliveMs: resolved.keepAliveMs,
        pendingRetryWaitMs: resolved.pendingRetryWaitMs,
      });
      expect(slice.limits).toEqual({
        maxFormAttempts: resolved.limits.maxFormAttempts,
        maxCallsInFlightPerSession: resolved.limits.maxCallsInFlightPerSession,
        maxCallsInFlightPerUser: resolved.limits.maxCallsInFlightPerUser,
        maxStepResultBytes: resolved.limits.maxStepResultBytes,
      });
      expect(Object.isFrozen(slice)).toBe(true);
      expect(Object.isFrozen(slice.limits)).toBe(true);
      expect(slice.tasks).toEqual(resolved.tasks);
      expect(Object.isFrozen(slice.tasks)).toBe(true);
      const values = reachable(slice);
      for (const key of KEYS) expect(values).not.toContain(key);
      expect(values).not.toContain(resolved.encryptionKeys);
      expect(values).not.toContain(resolved.oauth);
      expect(values).not.toContain('gh-secret');
    } finally {
      await ref.close();
    }
  });

  it('is what every class of mcp/ that reads options injects: none of them asks for the whole resolved options', () => {
    const classes = [McpElicitation, LinkedQuestions, RequestStates];
    const tokens = injectedTokens;
    for (const target of classes) {
      expect(tokens(target)).not.toContain(ELICITATION_RESOLVED_OPTIONS);
      expect(tokens(target)).toContain(ELICITATION_MCP_OPTIONS);
    }
  });

  it('no source file of mcp/ refers to the whole resolved options’ token', () => {
    const files = (readdirSync('src/mcp', { recursive: true }) as string[]).filter((name) => name.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(10);
    const holders = files.filter((name) => readFileSync(`src/mcp/${name}`, 'utf8').includes('ELICITATION_RESOLVED_OPTIONS'));
    expect(holders).toEqual([]);
  });
});
