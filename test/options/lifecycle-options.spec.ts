import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { injectedTokens, injectedTypes, KEYS, OPTIONS_WITH_SECRETS, reachable } from './option-slices.support.js';
import { ElicitationModule } from '../../src/module/elicitation.module.js';
import { ElicitationAnswers } from '../../src/lifecycle/elicitation-answers.js';
import { ElicitationRecords } from '../../src/lifecycle/elicitation-records.js';
import { ElicitationTransitions } from '../../src/lifecycle/elicitation-transitions.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { ELICITATION_RESOLVED_OPTIONS } from '../../src/options/elicitation.constants.js';
import type { ElicitationModuleOptions } from '../../src/options/elicitation-options.interface.js';
import type { ResolvedElicitationOptions } from '../../src/options/resolved-options.js';
import { ELICITATION_LIFECYCLE_OPTIONS, type ElicitationLifecycleOptions } from '../../src/options/lifecycle-options.js';
import { AnswerBox } from '../../src/security/answer-box.js';
import { SecretBox } from '../../src/security/secret-box.js';

const options: ElicitationModuleOptions = {
  ...OPTIONS_WITH_SECRETS,
  ttlMs: 120_000,
  extendMs: 30_000,
  externalUrlPolicy: { allowedHosts: ['docs.example.com'] },
};

describe('ELICITATION_LIFECYCLE_OPTIONS (the lifecycle’s slice of the options)', () => {
  it('holds what creation, sealing, waits, extension and shutdown read, copied out of the resolved options, and no secret', async () => {
    const ref = await Test.createTestingModule({ imports: [ElicitationModule.forRoot(options)] }).compile();
    try {
      const resolved = ref.get<ResolvedElicitationOptions>(ELICITATION_RESOLVED_OPTIONS);
      const slice = ref.get<ElicitationLifecycleOptions>(ELICITATION_LIFECYCLE_OPTIONS);
      expect(Object.keys(slice).sort()).toEqual(
        ['baseUrl', 'extendMs', 'externalUrlPolicy', 'limits', 'oauth', 'retentionMs', 'routePrefix', 'ttlMs'].sort(),
      );
      expect(slice).toMatchObject({
        baseUrl: 'https://mcp.example.com',
        routePrefix: 'elicit',
        ttlMs: 120_000,
        retentionMs: resolved.retentionMs,
        extendMs: 30_000,
      });
      expect(slice.externalUrlPolicy).toBe(resolved.externalUrlPolicy);
      const { createPerMinute, maxPendingPerUser, maxPending, maxMetadataBytes, maxResultBytes, maxUploadBytes, maxFormAttempts } =
        resolved.limits;
      expect(slice.limits).toEqual({
        createPerMinute,
        maxPendingPerUser,
        maxPending,
        maxMetadataBytes,
        maxResultBytes,
        maxUploadBytes,
        maxFormAttempts,
      });
      // The creation checks read each provider's name and scopes, nothing of its client.
      expect([...slice.oauth!.providers]).toEqual([['github', { name: 'github', scopes: ['read:user'] }]]);
      expect(Object.isFrozen(slice)).toBe(true);
      expect(Object.isFrozen(slice.limits)).toBe(true);
      const values = reachable(slice);
      for (const key of KEYS) expect(values).not.toContain(key);
      expect(values).not.toContain(resolved.encryptionKeys);
      expect(values).not.toContain(resolved.oauth);
      expect(values).not.toContain(resolved.oauth!.providers.get('github'));
      expect(values).not.toContain('gh-secret');
      expect(values).not.toContain('gh-client');
    } finally {
      await ref.close();
    }
  });

  it('has no oauth without the oauth option', async () => {
    const ref = await Test.createTestingModule({
      imports: [ElicitationModule.forRoot({ baseUrl: 'https://mcp.example.com', encryptionKey: KEYS })],
    }).compile();
    try {
      expect(ref.get<ElicitationLifecycleOptions>(ELICITATION_LIFECYCLE_OPTIONS).oauth).toBeUndefined();
    } finally {
      await ref.close();
    }
  });

  it('is what the lifecycle’s classes inject; answers are sealed in the AnswerBox the module builds, not with the key ring', () => {
    for (const target of [ElicitationService, ElicitationRecords, ElicitationTransitions]) {
      expect(injectedTokens(target)).not.toContain(ELICITATION_RESOLVED_OPTIONS);
      expect(injectedTokens(target)).toContain(ELICITATION_LIFECYCLE_OPTIONS);
    }
    expect(injectedTokens(ElicitationAnswers)).not.toContain(ELICITATION_RESOLVED_OPTIONS);
    expect(injectedTokens(ElicitationAnswers)).not.toContain(ELICITATION_LIFECYCLE_OPTIONS);
    expect(injectedTypes(ElicitationAnswers)).toContain(AnswerBox);
  });

  it('the AnswerBox seals as a box of the ring did before it (answers kept earlier still open, and the other way)', async () => {
    const ref = await Test.createTestingModule({ imports: [ElicitationModule.forRoot(options)] }).compile();
    try {
      const box = ref.get(AnswerBox);
      const before = new SecretBox(KEYS);
      expect(box.keyIds).toEqual(before.keyIds);
      expect(box.open(before.seal('{"apiKey":"k"}', 'id-1'), 'id-1')).toBe('{"apiKey":"k"}');
      expect(before.open(box.seal('{"apiKey":"k"}', 'id-1'), 'id-1')).toBe('{"apiKey":"k"}');
      expect(() => box.open(before.seal('{"apiKey":"k"}', 'id-1'), 'id-2')).toThrow();
    } finally {
      await ref.close();
    }
  });

  it('no source file outside module/ and options/ refers to the whole resolved options’ token', () => {
    const files = readdirSync('src', { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(100);
    const holders = files.filter(
      (name) => !/^(module|options)\//.test(name) && readFileSync(`src/${name}`, 'utf8').includes('ELICITATION_RESOLVED_OPTIONS'),
    );
    expect(holders).toEqual([]);
  });
});
