export { ElicitationModule } from './elicitation.module.js';
export {
  ELICITATION_MODULE_OPTIONS,
  ELICITATION_OPTIONS_TYPE,
  ELICITATION_ASYNC_OPTIONS_TYPE,
  type ElicitationModuleExtras,
} from './elicitation.module-definition.js';
export type {
  ElicitationLimits,
  ElicitationThrottle,
  ElicitationModuleOptions,
  ElicitationOptionsFactory,
  ResolvedElicitationOptions,
  ResolvePageUser,
  ResolveMcpUser,
} from './elicitation-options.interface.js';
export {
  ElicitationService,
  type CreateUrlElicitationInput,
  type CreatedElicitation,
  type ReadOptions,
  type StoredAnswer,
  type WaitOptions,
} from './elicitation.service.js';
export type * from './elicitation.types.js';
export {
  ELICITATION_RESOLVED_OPTIONS,
  DEFAULT_TTL_MS,
  DEFAULT_CLEANUP_INTERVAL_MS,
  DEFAULT_ROUTE_PREFIX,
  DEFAULT_REQUEST_STATE_TTL_MS,
  DEFAULT_PENDING_RETRY_WAIT_MS,
} from './elicitation.constants.js';
export {
  ElicitationStore,
  type CounterHit,
  type CreateQuota,
  type CreateResult,
  type ElicitationEventChannel,
  type FinishChange,
} from './stores/elicitation-store.js';
export { MemoryElicitationStore } from './stores/memory.store.js';
export { ElicitationEvents, type ElicitationEventListener } from './events/elicitation-events.js';
export { ElicitationCleanupScheduler } from './cleanup/elicitation-cleanup.scheduler.js';
export {
  McpElicitation,
  LegacyToolElicitation,
  type ElicitingToolHandler,
  type SdkV2Context,
  type ToolElicitation,
  type ElicitOptions,
  type ElicitResult,
  type FormElicitationResult,
  type FormFallback,
  type SdkRequestExtra,
  type SdkServerOrMcpServer,
  type UrlElicitationAsk,
  type UrlElicitationRequest,
} from './mcp/mcp-elicitation.js';
export { ModernToolElicitation } from './mcp/modern-tool-elicitation.js';
export { InputRequiredSignal, isInputRequiredSignal, type InputRequest, type InputRequiredResult } from './mcp/input-required.js';
export { RequestStateError, type RequestStateRejection } from './mcp/request-state.js';
export { ElicitationNotAnsweredError } from './errors/elicitation-not-answered.error.js';
export { ElicitationConfigError } from './errors/elicitation-config.error.js';
export { ElicitationInputError } from './errors/elicitation-input.error.js';
export { ElicitationIdentityError } from './errors/elicitation-identity.error.js';
export { ElicitationUnsupportedError } from './errors/elicitation-unsupported.error.js';
export { ElicitationNotFoundException } from './errors/elicitation-not-found.exception.js';
export { ElicitationExpiredException } from './errors/elicitation-expired.exception.js';
export { ElicitationFinishedException } from './errors/elicitation-finished.exception.js';
export { ElicitationStoreUnavailableError } from './errors/elicitation-store-unavailable.error.js';
export { ElicitationQuotaError, type ElicitationQuotaReason } from './errors/elicitation-quota.error.js';
export { UnsafeUrlError, type UnsafeUrlReason } from './errors/unsafe-url.error.js';
export { assertSafeExternalUrl, lintUrlQuery, type ExternalUrlPolicy } from './security/url-policy.js';
export { ElicitationThrottledException } from './http/elicitation-throttler.guard.js';
export * from './forms/index.js';
export { FormSchemaError } from './errors/form-schema.error.js';
export { ElicitationValidationError, type FieldIssue } from './errors/elicitation-validation.error.js';
