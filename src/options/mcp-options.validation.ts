import {
  DEFAULT_KEEP_ALIVE_MS,
  DEFAULT_CALL_WAIT_MS,
  DEFAULT_PENDING_RETRY_ROUNDS,
  DEFAULT_PENDING_RETRY_WAIT_MS,
  DEFAULT_REQUEST_STATE_TTL_MS,
  DEFAULT_TASK_LEASE_MS,
  DEFAULT_TASK_MAX_LISTENERS_PER_USER,
  DEFAULT_TASK_MAX_TASKS_PER_LISTENER,
  DEFAULT_TASK_CREATE_PER_MINUTE,
  DEFAULT_TASK_MAX_FINISHED,
  DEFAULT_TASK_MAX_OPEN_ANONYMOUS,
  DEFAULT_TASK_MAX_FINISHED_PER_USER,
  DEFAULT_TASK_MAX_OPEN_PER_USER,
  DEFAULT_TASK_POLL_INTERVAL_MS,
  DEFAULT_TASK_TTL_MS,
} from './elicitation.constants.js';
import type { ElicitationModuleOptions } from './elicitation-options.interface.js';
import { ElicitationConfigError } from '../errors/elicitation-config.error.js';
import { DEFAULT_FORM_FALLBACK, DEFAULT_PAGE_FALLBACK, ladderProblem } from './client-ladder.js';
import { positiveMs, type Resolved } from './option-values.js';
import {
  clientProfilesProblem,
  composeClientPolicy,
  composeHiddenExtensions,
  composeUrlRequired,
  urlRequiredProblem,
} from './client-profiles.js';
import type { ElicitationTaskOptions } from './option-groups.js';

/**
 * The MCP binding: the `requestState` lifetime and the bounded wait of a pending retry (2026-07-28), the
 * fallback ladders, the client policy, instant declines and the keep-alive.
 */
export function resolveMcp(
  raw: ElicitationModuleOptions,
): Resolved<
  | 'requestStateTtlMs'
  | 'pendingRetryWaitMs'
  | 'pendingRetryRounds'
  | 'callWaitMs'
  | 'fallback'
  | 'clientPolicy'
  | 'hiddenExtension'
  | 'urlRequired'
  | 'instantDeclineMs'
  | 'keepAliveMs'
  | 'tasks'
> {
  const fallback = raw.fallback ?? {};
  if (typeof fallback !== 'object' || fallback === null || Array.isArray(fallback)) {
    throw new ElicitationConfigError('fallback', 'must be an object { page?: [...], form?: [...] }', { value: fallback });
  }
  for (const type of ['page', 'form'] as const) {
    const problem = fallback[type] === undefined ? undefined : ladderProblem(fallback[type], type);
    if (problem) throw new ElicitationConfigError(`fallback.${type}`, problem, { value: fallback[type] });
  }
  if (raw.clientPolicy !== undefined && typeof raw.clientPolicy !== 'function') {
    throw new ElicitationConfigError('clientPolicy', 'must be a function (client) => capabilities', { value: raw.clientPolicy });
  }
  const profiles = clientProfilesProblem(raw.clientProfiles);
  if (profiles) throw new ElicitationConfigError('clientProfiles', profiles, { value: raw.clientProfiles });
  const urlRequired = urlRequiredProblem(raw.urlRequired);
  if (urlRequired) throw new ElicitationConfigError('urlRequired', urlRequired, { value: raw.urlRequired });
  return {
    requestStateTtlMs: positiveMs('requestStateTtlMs', raw.requestStateTtlMs, DEFAULT_REQUEST_STATE_TTL_MS),
    pendingRetryWaitMs: positiveMs('pendingRetryWaitMs', raw.pendingRetryWaitMs, DEFAULT_PENDING_RETRY_WAIT_MS, true),
    pendingRetryRounds: wholeAtLeastOne('pendingRetryRounds', raw.pendingRetryRounds, DEFAULT_PENDING_RETRY_ROUNDS),
    callWaitMs: positiveMs('callWaitMs', raw.callWaitMs, DEFAULT_CALL_WAIT_MS, true),
    fallback: {
      page: Object.freeze([...(fallback.page ?? DEFAULT_PAGE_FALLBACK)]),
      form: Object.freeze([...(fallback.form ?? DEFAULT_FORM_FALLBACK)]),
    },
    clientPolicy: composeClientPolicy(raw.clientProfiles, raw.clientPolicy),
    hiddenExtension: composeHiddenExtensions(raw.clientProfiles),
    urlRequired: composeUrlRequired(raw.clientProfiles, raw.urlRequired),
    instantDeclineMs: positiveMs('instantDeclineMs', raw.instantDeclineMs, 0, true),
    keepAliveMs: positiveMs('keepAliveMs', raw.keepAliveMs, DEFAULT_KEEP_ALIVE_MS, true),
    tasks: resolveTasks(raw.tasks),
  };
}

/** The `tasks` group: each field a positive whole number, defaulted on its own. */
function resolveTasks(raw: ElicitationTaskOptions | undefined): Required<ElicitationTaskOptions> {
  if (raw !== undefined && (typeof raw !== 'object' || raw === null || Array.isArray(raw))) {
    throw new ElicitationConfigError(
      'tasks',
      'must be an object { ttlMs?, pollIntervalMs?, maxOpenPerUser?, leaseMs?, maxListenersPerUser?, maxTasksPerListener?, allowAnonymous?, maxOpenAnonymous?, createPerMinute?, maxFinishedPerUser?, maxFinished? }',
      { value: raw },
    );
  }
  const tasks = raw ?? {};
  if (tasks.allowAnonymous !== undefined && typeof tasks.allowAnonymous !== 'boolean') {
    throw new ElicitationConfigError('tasks.allowAnonymous', 'must be true or false', { value: tasks.allowAnonymous });
  }
  const maxOpenPerUser = tasks.maxOpenPerUser ?? DEFAULT_TASK_MAX_OPEN_PER_USER;
  if (!Number.isInteger(maxOpenPerUser) || maxOpenPerUser < 1) {
    throw new ElicitationConfigError('tasks.maxOpenPerUser', 'must be a whole number of at least 1', { value: tasks.maxOpenPerUser });
  }
  return {
    ttlMs: Math.round(positiveMs('tasks.ttlMs', tasks.ttlMs, DEFAULT_TASK_TTL_MS)),
    pollIntervalMs: Math.round(positiveMs('tasks.pollIntervalMs', tasks.pollIntervalMs, DEFAULT_TASK_POLL_INTERVAL_MS)),
    maxOpenPerUser,
    leaseMs: positiveMs('tasks.leaseMs', tasks.leaseMs, DEFAULT_TASK_LEASE_MS),
    maxListenersPerUser: wholeAtLeastOne('tasks.maxListenersPerUser', tasks.maxListenersPerUser, DEFAULT_TASK_MAX_LISTENERS_PER_USER),
    maxTasksPerListener: wholeAtLeastOne('tasks.maxTasksPerListener', tasks.maxTasksPerListener, DEFAULT_TASK_MAX_TASKS_PER_LISTENER),
    allowAnonymous: tasks.allowAnonymous ?? false,
    maxOpenAnonymous: wholeAtLeastOne('tasks.maxOpenAnonymous', tasks.maxOpenAnonymous, DEFAULT_TASK_MAX_OPEN_ANONYMOUS),
    createPerMinute: wholeAtLeastOne('tasks.createPerMinute', tasks.createPerMinute, DEFAULT_TASK_CREATE_PER_MINUTE),
    maxFinishedPerUser: wholeAtLeastOne('tasks.maxFinishedPerUser', tasks.maxFinishedPerUser, DEFAULT_TASK_MAX_FINISHED_PER_USER),
    maxFinished: wholeAtLeastOne('tasks.maxFinished', tasks.maxFinished, DEFAULT_TASK_MAX_FINISHED),
  };
}

/** A whole number of at least 1, defaulted; a config error naming the option and the value otherwise. */
function wholeAtLeastOne(option: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1)
    throw new ElicitationConfigError(option, 'must be a whole number of at least 1', { value });
  return value;
}
