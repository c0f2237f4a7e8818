import { describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { injectedTokens, injectedTypes, KEYS, OPTIONS_WITH_SECRETS, reachable } from './option-slices.support.js';
import { ElicitationModule } from '../../src/module/elicitation.module.js';
import { OAuthFlow } from '../../src/oauth/oauth-flow.js';
import { OAuthGrants } from '../../src/oauth/oauth-grants.js';
import { OAuthProviders } from '../../src/oauth/oauth-providers.js';
import { OAuthStateCodec } from '../../src/oauth/oauth-state.js';
import { ELICITATION_RESOLVED_OPTIONS } from '../../src/options/elicitation.constants.js';
import type { ElicitationModuleOptions } from '../../src/options/elicitation-options.interface.js';
import type { ResolvedElicitationOptions } from '../../src/options/resolved-options.js';
import { ELICITATION_OAUTH_FEATURE_OPTIONS, type ElicitationOAuthFeatureOptions } from '../../src/options/oauth-feature-options.js';
import { AnswerBox } from '../../src/security/answer-box.js';

const options: ElicitationModuleOptions = {
  ...OPTIONS_WITH_SECRETS,
  externalUrlPolicy: { allowedHosts: ['github.com'] },
};

describe('ELICITATION_OAUTH_FEATURE_OPTIONS (the OAuth feature’s slice of the options)', () => {
  it('holds the oauth option, the URL policy and where the callback is, copied out of the resolved options, and no key', async () => {
    const ref = await Test.createTestingModule({ imports: [ElicitationModule.forRoot(options)] }).compile();
    try {
      const resolved = ref.get<ResolvedElicitationOptions>(ELICITATION_RESOLVED_OPTIONS);
      const slice = ref.get<ElicitationOAuthFeatureOptions>(ELICITATION_OAUTH_FEATURE_OPTIONS);
      expect(Object.keys(slice).sort()).toEqual(['baseUrl', 'externalUrlPolicy', 'oauth', 'routePrefix']);
      expect(slice).toMatchObject({ baseUrl: 'https://mcp.example.com', routePrefix: 'elicit' });
      expect(slice.externalUrlPolicy).toBe(resolved.externalUrlPolicy);
      // The providers' client secrets are this feature's to use (the code exchange sends them).
      expect(slice.oauth).toBe(resolved.oauth);
      expect(slice.oauth?.providers.get('github')?.clientSecret).toBe('gh-secret');
      expect(Object.isFrozen(slice)).toBe(true);
      const values = reachable(slice);
      for (const key of KEYS) expect(values).not.toContain(key);
      expect(values).not.toContain(resolved.encryptionKeys);
    } finally {
      await ref.close();
    }
  });

  it('is what every class of oauth/ that reads options injects; the state and the grants are sealed by objects the module builds', () => {
    for (const target of [OAuthProviders, OAuthFlow, OAuthGrants]) {
      expect(injectedTokens(target)).not.toContain(ELICITATION_RESOLVED_OPTIONS);
      expect(injectedTokens(target)).toContain(ELICITATION_OAUTH_FEATURE_OPTIONS);
    }
    expect(injectedTypes(OAuthFlow)).toContain(OAuthStateCodec);
    expect(injectedTypes(OAuthGrants)).toContain(AnswerBox);
  });

  it('the module’s OAuthStateCodec opens a state sealed under the ring as OAuthFlow built it before', async () => {
    const ref = await Test.createTestingModule({ imports: [ElicitationModule.forRoot(options)] }).compile();
    try {
      const now = Date.now();
      const state = {
        id: OAuthStateCodec.newId(),
        elicitationId: 'e-1',
        user: 'alice',
        issuedAt: now,
        expiresAt: now + 60_000,
        verifier: 'v'.repeat(43),
      };
      expect(ref.get(OAuthStateCodec).open(new OAuthStateCodec(KEYS).seal(state), now)).toEqual({ ...state, nonce: undefined });
      expect(new OAuthStateCodec([KEYS[1]]).open(ref.get(OAuthStateCodec).seal(state), now)).toBe('malformed');
    } finally {
      await ref.close();
    }
  });
});
