/**
 * The public API of `nestjs-mcp-elicitation`: what a Nest application may import. Internals (the resolved
 * options and their key ring, the concrete protocol-era classes, form compilers, the store's sealed record
 * reads) stay behind this barrel; `docs/architecture.md` maps them.
 */

// The module and its options
export { ElicitationModule } from './module/elicitation.module.js';
export {
  ELICITATION_MODULE_OPTIONS,
  type ElicitationModuleAsyncOptions,
  type ElicitationModuleExtras,
} from './module/elicitation.module-definition.js';
export type {
  ElicitationLimits,
  ElicitationTaskOptions,
  ElicitationModuleOptions,
  ElicitationOptionsFactory,
  ElicitationThrottle,
  ElicitationUpload,
  ResolveLocale,
  ResolveMcpUser,
  ResolvePageUser,
  UploadSink,
} from './options/elicitation-options.interface.js';
export type { PageLabels, PageMessages } from './messages/page-messages.js';
export type { FieldRule } from './core/form-rules.js';
export type { PageMessagesOverride } from './messages/locales.js';
export type {
  ElicitationAuditEvent,
  ElicitationAuditOption,
  ElicitationAuditRecord,
  ElicitationAuditSink,
} from './options/audit-record.js';
export {
  DEFAULT_CLEANUP_INTERVAL_MS,
  DEFAULT_LIMITS,
  DEFAULT_PENDING_RETRY_WAIT_MS,
  DEFAULT_KEEP_ALIVE_MS,
  DEFAULT_REQUEST_STATE_TTL_MS,
  DEFAULT_ROUTE_PREFIX,
  DEFAULT_THROTTLE,
  DEFAULT_TTL_MS,
} from './options/elicitation.constants.js';

// The service, its events and its records
export {
  ElicitationService,
  type CreatedElicitation,
  type ElicitationReadOptions,
  type StoredAnswer,
} from './lifecycle/elicitation.service.js';
export type { OpenQuestion, OpenQuestionsPage, OpenQuestionsRequest } from './lifecycle/open-questions.js';
export type { AskedBy } from './core/asked-by.js';
export type { CreateUrlElicitationInput } from './lifecycle/create-input.validation.js';
export type { ElicitationWaitOptions } from './lifecycle/elicitation-waiters.js';
export type {
  ElicitationData,
  ElicitationEvent,
  ElicitationExtendResult,
  ElicitationKind,
  ElicitationOutcome,
  ElicitationRecord,
  ElicitationStatus,
  ElicitationStatusView,
  ElicitationSummary,
  FinalStatus,
  TransitionResult,
  WaitOutcome,
} from './core/elicitation.types.js';
export { ElicitationEvents, type ElicitationEventListener } from './events/elicitation-events.js';
export { ElicitationCleanupScheduler } from './module/elicitation-cleanup.scheduler.js';

// Connecting accounts (kind 'oauth'): the providers, the connected accounts' tokens and what they give a tool
export { ElicitationOAuth } from './oauth/elicitation-oauth.js';
export type { ElicitationOAuthOptions, OAuthProviderOptions, OAuthToken } from './options/oauth-options.js';

// Stores: what an app passes as `store` and injects; writing a store of your own: `nestjs-mcp-elicitation/store`
export { ElicitationStore } from './stores/elicitation-store.js';
export { MemoryElicitationStore } from './stores/memory.store.js';

// The MCP binding (both SDK lines, both protocol eras)
export {
  McpElicitation,
  type ElicitationServerOptions,
  type ElicitingToolHandler,
  type ElicitingToolConfig,
  type ToolArgs,
  type McpCallOptions,
  type SdkToolServer,
  type WrappedToolResult,
} from './mcp/mcp-elicitation.js';
export type { ApprovalDecision, ApprovalTally } from './lifecycle/elicitation-approvals.js';
export type { PasskeyListing } from './lifecycle/elicitation-passkeys.js';
export type { PagePresence } from './lifecycle/passkey-action.js';
export type { AuditExportOptions } from './observability/audit-chain.js';
export type { ElicitationPasskeyOptions, PasskeyRegistrationGate } from './options/passkey-options.js';
export {
  decisionChallenge,
  type DecisionInputs,
  type PasskeyReceipt,
  type ReceiptCheck,
  type SignedDecision,
} from './proofs/decision-proof.js';
export { CHAIN_START, verifyAuditChain, type AuditChainCheck, type AuditChainLine } from './proofs/audit-chain-lines.js';
export type {
  ApprovalOutcome,
  ApprovalRequest,
  ApproversOf,
  ElicitationElicitOptions,
  ElicitResult,
  FormElicitationResult,
  PageOutcome,
  PushToolElicitation,
  StepContext,
  StepFn,
  ToolElicitation,
  UrlElicitationAsk,
  UrlElicitationRequest,
} from './mcp/tool-elicitation.js';
export type { SdkRequestExtra, SdkServerLike, SdkServerOrMcpServer, SdkV2Context } from './mcp/sdk/sdk.types.js';
export {
  InputRequiredSignal,
  isInputRequiredSignal,
  type InputRequest,
  type InputRequiredResult,
} from './mcp/input-required/input-required.js';
export { TaskSuspended, isTaskSuspended } from './mcp/tasks/task-elicitation.js';
export type { TaskContext } from './mcp/tasks/task-runner.js';
export { McpTaskNotifications, type FetchMcpHandler } from './mcp/tasks/task-notifications.js';
export {
  DEFAULT_FORM_FALLBACK,
  DEFAULT_PAGE_FALLBACK,
  type ClientPolicy,
  type ElicitationFallback,
  type FallbackRung,
  type McpClientProfile,
  type PageFallbackRung,
  type UrlRequiredMode,
} from './options/client-ladder.js';
export {
  BUILT_IN_CLIENT_PROFILES,
  type ClientProfile,
  type ClientProfileSwitches,
  type UrlRequiredOption,
} from './options/client-profiles.js';
export {
  isPendingQuestionSignal,
  PENDING_QUESTION_META_KEY,
  PendingQuestionSignal,
  type PendingQuestionInfo,
  type PendingQuestionResult,
} from './mcp/questions/linked-questions.js';
export { SUBMIT_ANSWER_TOOL, type ChatAnswer } from './mcp/questions/submit-answer-tool.js';
export type { RequestState } from './mcp/input-required/request-state.codec.js';
export { RequestStateError, type RequestStateRejection } from './errors/request-state.error.js';

// Serving MCP over HTTP yourself: bounded 2025-11-25 sessions (no SDK import)
export {
  DEFAULT_MCP_SESSION_LIMITS,
  MCP_SESSION_RETRY_AFTER_S,
  McpSessions,
  type McpSessionHandle,
  type McpSessionLimits,
} from './mcp/mcp-sessions.js';
export { bindResponse, type BoundResponse } from './mcp/response-streams.js';

// Forms
export type {
  BooleanFieldSchema,
  EnumFieldSchema,
  FieldSchema,
  FieldValue,
  FormContent,
  FormSchema,
  FormValue,
  MultiSelectFieldSchema,
  NumberFieldSchema,
  StringFieldSchema,
  StringFormat,
  TitledEnumFieldSchema,
  TitledOption,
} from './forms/form-schema.js';
export { defineForm, isFormDefinition, type FormDefinition, type ElicitationFormOptions } from './forms/define-form.js';
export type { ZodFormSchema } from './forms/zod-form.js';
export { FormField, formFromClass, type FormFieldOptions } from './forms/form-decorators.js';
export { lintFormSchema, type ElicitationLintOptions } from './forms/form-lint.js';
export type { ElicitationValidationResult } from './forms/form-validator.js';

// URLs
export { assertSafeExternalUrl, type ExternalUrlPolicy } from './security/url-policy.js';

// Reaching people: notifications, reminders (docs/reaching-people.md).
export type { ElicitationContact, ElicitationNotice, ElicitationNotifier, NoticeEvent } from './core/notice.js';
export type { ElicitationNotifyOptions, ElicitationOutboxOptions, ElicitationReminder } from './options/notify-options.js';
export { webhookNotifier, type WebhookNotifierOptions, type WebhookNoticeBody } from './notify/webhook-notifier.js';
export { verifyWebhookSignature, WEBHOOK_SIGNATURE_HEADER, type VerifyWebhookOptions } from './notify/webhook-signature.js';
export { emailNotifier, type EmailNotifierOptions, type NoticeMailTransport } from './notify/email-notifier.js';
export { slackNotifier, type SlackNotifierOptions } from './notify/slack-notifier.js';

// Errors
export { ElicitationConfigError } from './errors/elicitation-config.error.js';
export { ElicitationIdentityError } from './errors/elicitation-identity.error.js';
export { ElicitationInputError } from './errors/elicitation-input.error.js';
export { ElicitationKeyError } from './errors/elicitation-key.error.js';
export { ElicitationNotAnsweredError } from './errors/elicitation-not-answered.error.js';
export { ElicitationNotFoundError } from './errors/elicitation-not-found.error.js';
export { ElicitationOAuthError } from './errors/elicitation-oauth.error.js';
export { ElicitationQuotaError, type ElicitationQuotaReason } from './errors/elicitation-quota.error.js';
export { ElicitationShutdownError } from './errors/elicitation-shutdown.error.js';
export { ElicitationStepError, type ElicitationStepReason } from './errors/elicitation-step.error.js';
export { ElicitationStoreUnavailableError } from './errors/elicitation-store-unavailable.error.js';
export { ElicitationUnsupportedError } from './errors/elicitation-unsupported.error.js';
export { ElicitationValidationError, type FieldIssue } from './errors/elicitation-validation.error.js';
export { FormSchemaError } from './errors/form-schema.error.js';
export { UnsafeUrlError, type UnsafeUrlReason } from './errors/unsafe-url.error.js';

// HTTP exceptions (the pages and the status route)
export { ElicitationExpiredException } from './http/exceptions/elicitation-expired.exception.js';
export { ElicitationFinishedException } from './http/exceptions/elicitation-finished.exception.js';
export { ElicitationNotFoundException } from './http/exceptions/elicitation-not-found.exception.js';
export { ElicitationThrottledException } from './http/exceptions/elicitation-throttled.exception.js';
