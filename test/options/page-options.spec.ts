import { describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { injectedTokens, KEYS, OPTIONS_WITH_SECRETS, reachable } from './option-slices.support.js';
import { ElicitationModule } from '../../src/module/elicitation.module.js';
import { BaseUrlPortCheck } from '../../src/http/base-url-port.check.js';
import { ElicitationExtendController } from '../../src/http/elicitation-extend.controller.js';
import { ElicitationFileController } from '../../src/http/elicitation-file.controller.js';
import { ElicitationFrameworkErrors } from '../../src/http/elicitation-framework-errors.js';
import { ElicitationOAuthController } from '../../src/http/elicitation-oauth.controller.js';
import { ElicitationPagesController } from '../../src/http/elicitation-pages.controller.js';
import { ElicitationStatusController } from '../../src/http/elicitation-status.controller.js';
import { ElicitationThrottlerGuard } from '../../src/http/elicitation-throttler.guard.js';
import { ElicitationPageAccess } from '../../src/http/page-access.js';
import { PageLocales } from '../../src/http/page-locales.js';
import { PageSecurity } from '../../src/http/page-security.js';
import { TemplateRenderer } from '../../src/http/template-renderer.js';
import { ELICITATION_RESOLVED_OPTIONS } from '../../src/options/elicitation.constants.js';
import type { ElicitationModuleOptions } from '../../src/options/elicitation-options.interface.js';
import type { ResolvedElicitationOptions } from '../../src/options/resolved-options.js';
import { ELICITATION_PAGE_OPTIONS, type ElicitationPageOptions } from '../../src/options/page-options.js';

const options: ElicitationModuleOptions = {
  ...OPTIONS_WITH_SECRETS,
  resolvePageUser: () => 'u',
  title: 'Acme',
};

describe('ELICITATION_PAGE_OPTIONS (the routes’ slice of the options)', () => {
  it('holds what the pages read, copied out of the resolved options, and no secret', async () => {
    const ref = await Test.createTestingModule({ imports: [ElicitationModule.forRoot(options)] }).compile();
    try {
      const resolved = ref.get<ResolvedElicitationOptions>(ELICITATION_RESOLVED_OPTIONS);
      const slice = ref.get<ElicitationPageOptions>(ELICITATION_PAGE_OPTIONS);
      expect(Object.keys(slice).sort()).toEqual(
        [
          'baseUrl',
          'defaultLocale',
          'limits',
          'loginUrl',
          'logoUrl',
          'messages',
          'passkeysInBar',
          'primaryColor',
          'primaryTextColor',
          'resolveLocale',
          'resolvePageUser',
          'routePrefix',
          'templatesDir',
          'throttle',
          'title',
          'uploadSink',
        ].sort(),
      );
      expect(slice).toMatchObject({ baseUrl: 'https://mcp.example.com', routePrefix: 'elicit', title: 'Acme' });
      expect(slice.resolvePageUser).toBe(resolved.resolvePageUser);
      expect(slice.limits).toEqual({
        maxBodyBytes: resolved.limits.maxBodyBytes,
        maxUploadBytes: resolved.limits.maxUploadBytes,
        uploadBufferBytes: resolved.limits.uploadBufferBytes,
        maxFormAttempts: resolved.limits.maxFormAttempts,
      });
      expect(Object.isFrozen(slice)).toBe(true);
      const values = reachable(slice);
      for (const key of KEYS) expect(values).not.toContain(key);
      expect(values).not.toContain(resolved.encryptionKeys);
      expect(values).not.toContain(resolved.oauth);
      expect(values).not.toContain('gh-secret');
    } finally {
      await ref.close();
    }
  });

  it('is what every class of http/ injects: none of them asks for the whole resolved options', () => {
    const classes = [
      ElicitationPagesController,
      ElicitationOAuthController,
      ElicitationFileController,
      ElicitationExtendController,
      ElicitationStatusController,
      ElicitationThrottlerGuard,
      ElicitationFrameworkErrors,
      ElicitationPageAccess,
      PageSecurity,
      PageLocales,
      TemplateRenderer,
      BaseUrlPortCheck,
    ];
    const tokens = injectedTokens;
    for (const target of classes) expect(tokens(target)).not.toContain(ELICITATION_RESOLVED_OPTIONS);
    expect(classes.filter((target) => tokens(target).includes(ELICITATION_PAGE_OPTIONS)).map((c) => c.name)).toEqual([
      'ElicitationPagesController',
      'ElicitationOAuthController',
      'ElicitationFileController',
      'ElicitationThrottlerGuard',
      'ElicitationFrameworkErrors',
      'ElicitationPageAccess',
      'PageSecurity',
      'PageLocales',
      'TemplateRenderer',
      'BaseUrlPortCheck',
    ]);
  });
});
