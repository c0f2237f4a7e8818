import { ELICITATION_PASSKEY_OPTIONS } from '../options/passkey-options.js';
import { Logger, type Provider } from '@nestjs/common';
import { ELICITATION_RESOLVED_OPTIONS, ELICITATION_ROUTE_PREFIX } from '../options/elicitation.constants.js';
import { ELICITATION_MODULE_OPTIONS } from './elicitation.module-definition.js';
import { ElicitationKeyRingAnnouncer } from './elicitation-key-ring.announcer.js';
import { PasskeyReseal } from '../lifecycle/passkey-reseal.js';
import type { ElicitationModuleOptions } from '../options/elicitation-options.interface.js';
import type { ResolvedElicitationOptions } from '../options/resolved-options.js';
import { resolveElicitationOptions } from '../options/elicitation-options.validation.js';
import { ELICITATION_LIFECYCLE_OPTIONS, lifecycleOptionsOf } from '../options/lifecycle-options.js';
import { ELICITATION_MCP_OPTIONS, mcpOptionsOf } from '../options/mcp-options.js';
import { ELICITATION_OAUTH_FEATURE_OPTIONS, oauthFeatureOptionsOf } from '../options/oauth-feature-options.js';
import { ELICITATION_OPERATIONS_OPTIONS, operationsOptionsOf } from '../options/operations-options.js';
import { ELICITATION_PAGE_OPTIONS, pageOptionsOf } from '../options/page-options.js';
import { RequestStateCodec } from '../mcp/input-required/request-state.codec.js';
import { PushStepStates } from '../mcp/push/push-step-states.js';
import { ELICITATION_OBSERVED_STORE } from '../observability/observed-store.js';
import { OAuthStateCodec } from '../oauth/oauth-state.js';
import { AnnouncedKeyIds } from '../security/announced-key-ids.js';
import { AnswerBox } from '../security/answer-box.js';
import { CsrfTokens } from '../security/csrf.js';
import { StoreKeyRing } from '../security/store-key-ring.js';
import { ElicitationStore } from '../stores/elicitation-store.js';
import { MemoryElicitationStore } from '../stores/memory.store.js';

/**
 * Options resolution (validated once, shared by the sync and async paths), the lifecycle's slice of them
 * (`ELICITATION_LIFECYCLE_OPTIONS`) and the `AnswerBox` answers are sealed in, the OAuth feature's
 * (`ELICITATION_OAUTH_FEATURE_OPTIONS`) and its `OAuthStateCodec`, the routes' (`ELICITATION_PAGE_OPTIONS`) and their
 * `CsrfTokens`, the MCP binding's (`ELICITATION_MCP_OPTIONS`) and its `RequestStateCodec`, the operations'
 * (`ELICITATION_OPERATIONS_OPTIONS`: audit and cleanup), and store selection; the store gets the keys derived from `encryptionKey` here (`ElicitationStore.useKeys`), and on a
 * shared store the module announces its key ring and checks it against the other instances'
 * (`ElicitationKeyRingAnnouncer`).
 */
export const elicitationProviders: Provider[] = [
  {
    provide: ELICITATION_RESOLVED_OPTIONS,
    inject: [ELICITATION_MODULE_OPTIONS, ELICITATION_ROUTE_PREFIX],
    useFactory: (raw: ElicitationModuleOptions, routePrefix: string): ResolvedElicitationOptions => {
      const { options, warnings } = resolveElicitationOptions(raw, routePrefix, process.env);
      const logger = new Logger('ElicitationModule');
      for (const warning of warnings) logger.warn(warning);
      return options;
    },
  },
  // The lifecycle's slice of the options, and the box answers are sealed in (the OAuth vault's grants too): no class
  // of lifecycle/ or oauth/ holds the key ring.
  { provide: ELICITATION_LIFECYCLE_OPTIONS, inject: [ELICITATION_RESOLVED_OPTIONS], useFactory: lifecycleOptionsOf },
  {
    provide: AnswerBox,
    inject: [ELICITATION_RESOLVED_OPTIONS],
    useFactory: (options: ResolvedElicitationOptions) => new AnswerBox(options.encryptionKeys),
  },
  // The OAuth feature's slice of the options, and the codec of its sealed `state`.
  { provide: ELICITATION_OAUTH_FEATURE_OPTIONS, inject: [ELICITATION_RESOLVED_OPTIONS], useFactory: oauthFeatureOptionsOf },
  {
    provide: OAuthStateCodec,
    inject: [ELICITATION_RESOLVED_OPTIONS],
    useFactory: (options: ResolvedElicitationOptions) => new OAuthStateCodec(options.encryptionKeys),
  },
  // The routes' slice of the options, and their CSRF tokens: no class of http/ holds the key ring.
  { provide: ELICITATION_PAGE_OPTIONS, inject: [ELICITATION_RESOLVED_OPTIONS], useFactory: pageOptionsOf },
  // The key ids the other live instances announced (the announcer fills it in): a CSRF token under one of them is
  // another instance's, under any other key id this ring lacks a forged post's.
  { provide: AnnouncedKeyIds, useFactory: () => new AnnouncedKeyIds() },
  {
    provide: CsrfTokens,
    inject: [ELICITATION_RESOLVED_OPTIONS, AnnouncedKeyIds],
    useFactory: (options: ResolvedElicitationOptions, announced: AnnouncedKeyIds) => new CsrfTokens(options.encryptionKeys, announced),
  },
  // The MCP binding's slice of the options, and the codec of its request states: no class of mcp/ holds the key ring.
  { provide: ELICITATION_MCP_OPTIONS, inject: [ELICITATION_RESOLVED_OPTIONS], useFactory: mcpOptionsOf },
  {
    provide: RequestStateCodec,
    inject: [ELICITATION_RESOLVED_OPTIONS],
    useFactory: (options: ResolvedElicitationOptions) => new RequestStateCodec(options.encryptionKeys),
  },
  // A 2025-11-25 call's steps for its continuation: sealed with the key ring, kept in the store.
  {
    provide: PushStepStates,
    inject: [ELICITATION_RESOLVED_OPTIONS, ELICITATION_OBSERVED_STORE],
    useFactory: (options: ResolvedElicitationOptions, store: ElicitationStore) =>
      new PushStepStates(options.encryptionKeys, store, options.ttlMs),
  },
  // The passkeys' slice of the options.
  {
    provide: ELICITATION_PASSKEY_OPTIONS,
    inject: [ELICITATION_RESOLVED_OPTIONS],
    useFactory: (o: ResolvedElicitationOptions) => o.passkeys,
  },
  // The audit log's and the expiry sweep's slice of the options.
  { provide: ELICITATION_OPERATIONS_OPTIONS, inject: [ELICITATION_RESOLVED_OPTIONS], useFactory: operationsOptionsOf },
  {
    provide: ElicitationStore,
    inject: [ELICITATION_MODULE_OPTIONS, ELICITATION_RESOLVED_OPTIONS],
    useFactory: (raw: ElicitationModuleOptions, options: ResolvedElicitationOptions) => {
      const store = raw.store ?? new MemoryElicitationStore();
      // Before the store's first use: a store that keeps data outside the process names and seals it with these.
      if (store.useKeys) store.useKeys(new StoreKeyRing(options.encryptionKeys));
      return store;
    },
  },
  {
    // Created once the store has its keys; a refusal fails the module's creation before any hook runs.
    // Once every live instance seals with this one's first key, passkeys kept under an older key are moved under it.
    provide: ElicitationKeyRingAnnouncer,
    inject: [ELICITATION_RESOLVED_OPTIONS, ElicitationStore, AnnouncedKeyIds, PasskeyReseal],
    useFactory: async (options: ResolvedElicitationOptions, store: ElicitationStore, announced: AnnouncedKeyIds, reseal: PasskeyReseal) => {
      const announcer = new ElicitationKeyRingAnnouncer(options, store, announced);
      await announcer.start();
      announcer.whenSettled(() => reseal.request());
      return announcer;
    },
  },
];
