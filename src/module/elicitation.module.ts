import { Module } from '@nestjs/common';
import { ElicitationCleanupScheduler } from './elicitation-cleanup.scheduler.js';
import { ElicitationConfigurableModule } from './elicitation.module-definition.js';
import { elicitationProviders } from './elicitation.providers.js';
import { ElicitationService } from '../lifecycle/elicitation.service.js';
import { ElicitationEvents } from '../events/elicitation-events.js';
import { BaseUrlPortCheck } from '../http/base-url-port.check.js';
import { ElicitationPageFilter } from '../http/elicitation-page.filter.js';
import { ElicitationStatusFilter } from '../http/elicitation-status.filter.js';
import { ElicitationDrainingGuard } from '../http/elicitation-draining.guard.js';
import { ElicitationRouteObserver } from '../http/elicitation-route-observer.js';
import { ElicitationThrottlerGuard } from '../http/elicitation-throttler.guard.js';
import { ElicitationPageAccess } from '../http/page-access.js';
import { PageResponder } from '../http/page-responder.js';
import { PageLocales } from '../http/page-locales.js';
import { PageAssets } from '../http/page-assets.js';
import { PageSecurity } from '../http/page-security.js';
import { TemplateRenderer } from '../http/template-renderer.js';
import { SubmitAnswerTool } from '../mcp/questions/submit-answer-tool.js';
import { CompletionNotifications } from '../mcp/completion-notifications.js';
import { LinkedQuestions } from '../mcp/questions/linked-questions.js';
import { McpElicitation } from '../mcp/mcp-elicitation.js';
import { McpTasks } from '../mcp/tasks/mcp-tasks.js';
import { McpCallers } from '../mcp/sdk/mcp-callers.js';
import { CallElicitations } from '../mcp/call-elicitations.js';
import { McpTaskNotifications } from '../mcp/tasks/task-notifications.js';
import { RequestStates } from '../mcp/input-required/request-states.js';
import { McpSdkLoader } from '../mcp/sdk/sdk-loader.js';
import { ElicitationOAuth } from '../oauth/elicitation-oauth.js';
import { OAuthFlow } from '../oauth/oauth-flow.js';
import { OAuthGrants } from '../oauth/oauth-grants.js';
import { OAuthProviders } from '../oauth/oauth-providers.js';
import { ElicitationAudit } from '../observability/elicitation-audit.js';
import { ElicitationTelemetry } from '../observability/elicitation-telemetry.js';
import { observedStoreProvider } from '../observability/observed-store.js';
import { ElicitationAnswers } from '../lifecycle/elicitation-answers.js';
import { ElicitationRecords } from '../lifecycle/elicitation-records.js';
import { ElicitationTransitions } from '../lifecycle/elicitation-transitions.js';
import { ElicitationApprovals } from '../lifecycle/elicitation-approvals.js';
import { ElicitationDecisionLog } from '../lifecycle/decision-log.js';
import { ElicitationPasskeys } from '../lifecycle/elicitation-passkeys.js';
import { PasskeyReseal } from '../lifecycle/passkey-reseal.js';
import { ElicitationAuditChain } from '../observability/audit-chain.js';
import { PasskeyStep } from '../http/passkey-step.js';
import { ElicitationStore } from '../stores/elicitation-store.js';
import { NoticeOutbox } from '../notify/notice-outbox.js';
import { noticeOutboxProvider } from './notice-outbox.provider.js';

/**
 * Server-side MCP elicitation for Nest: `ElicitationModule.forRoot({ baseUrl })` or
 * `forRootAsync({ imports, inject, useFactory | useClass })`. Exports `ElicitationService`, the
 * configured `ElicitationStore`, `ElicitationEvents`, the MCP binding `McpElicitation` and the connected accounts'
 * tokens `ElicitationOAuth`.
 */
@Module({
  providers: [
    ...elicitationProviders,
    ElicitationTelemetry,
    ElicitationAudit,
    observedStoreProvider,
    ElicitationEvents,
    ElicitationAnswers,
    ElicitationTransitions,
    ElicitationApprovals,
    ElicitationAuditChain,
    ElicitationDecisionLog,
    ElicitationPasskeys,
    PasskeyReseal,
    ElicitationRecords,
    noticeOutboxProvider,
    ElicitationService,
    OAuthProviders,
    OAuthGrants,
    OAuthFlow,
    ElicitationOAuth,
    ElicitationCleanupScheduler,
    TemplateRenderer,
    PageAssets,
    ElicitationPageFilter,
    ElicitationStatusFilter,
    PageSecurity,
    ElicitationRouteObserver,
    ElicitationDrainingGuard,
    ElicitationThrottlerGuard,
    ElicitationPageAccess,
    PasskeyStep,
    BaseUrlPortCheck,
    PageLocales,
    PageResponder,
    McpSdkLoader,
    CompletionNotifications,
    RequestStates,
    LinkedQuestions,
    SubmitAnswerTool,
    McpTasks,
    McpCallers,
    CallElicitations,
    McpTaskNotifications,
    McpElicitation,
  ],
  exports: [
    ElicitationService,
    ElicitationStore,
    ElicitationEvents,
    ElicitationCleanupScheduler,
    McpElicitation,
    McpTaskNotifications,
    ElicitationOAuth,
    NoticeOutbox,
  ],
})
export class ElicitationModule extends ElicitationConfigurableModule {}
