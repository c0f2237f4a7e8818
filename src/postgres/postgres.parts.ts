import type { StoreParts } from '../stores/composed-store.js';
import type { PostgresAuditChain } from './postgres.audit-chain.js';
import type { PostgresCallStates } from './postgres.call-states.js';
import type { PostgresNotices } from './postgres.notices.js';
import type { PostgresPasskeys } from './postgres.passkeys.js';
import type { PostgresTasks } from './postgres.tasks.js';

/** Runs one store operation within the store's bound (`operationTimeoutMs`), logged and reported by its name. */
export type BoundedCall = <T>(operation: string, run: () => Promise<T>) => Promise<T>;

/** The PostgreSQL store's parts beside its records, as it makes them. */
export interface PostgresParts {
  tasks: PostgresTasks;
  callStates: PostgresCallStates;
  notices: PostgresNotices;
  passkeys: PostgresPasskeys;
  auditChain: PostgresAuditChain;
}

/**
 * The PostgreSQL store's parts beside its records (tasks, calls' states, the outbox, passkeys, audit chains) as the
 * store contract names their methods, each call made within the store's bound by `call`: what
 * `ComposedElicitationStore` hands the contract to.
 */
export function boundedParts({ tasks, callStates, notices, passkeys, auditChain }: PostgresParts, call: BoundedCall): StoreParts {
  return {
    tasks: {
      createTask: (task, limit) => call('createTask', () => tasks.create(task, limit)),
      getTask: (id, now) => call('getTask', () => tasks.get(id, now)),
      getTasks: (ids, now) => call('getTasks', () => tasks.getMany(ids, now)),
      putTask: (task, now, finished) => call('putTask', () => tasks.put(task, now, finished)),
    },
    callStates: {
      keepCallState: (key, value, expiresAt) => call('keepCallState', () => callStates.keepCallState(key, value, expiresAt)),
      takeCallState: (key, now) => call('takeCallState', () => callStates.takeCallState(key, now)),
    },
    notices: {
      addNotices: (list, now) => call('addNotices', () => notices.addNotices(list, now)),
      claimNotices: (owner, now, limit, leaseMs) => call('claimNotices', () => notices.claimNotices(owner, now, limit, leaseMs)),
      settleNotice: (id, owner, outcome, now) => call('settleNotice', () => notices.settleNotice(id, owner, outcome, now)),
      noticeStats: (now) => call('noticeStats', () => notices.noticeStats(now)),
    },
    passkeys: {
      addPasskey: (passkey, maxPerUser) => call('addPasskey', () => passkeys.addPasskey(passkey, maxPerUser)),
      getPasskey: (id) => call('getPasskey', () => passkeys.getPasskey(id)),
      listPasskeys: (userId) => call('listPasskeys', () => passkeys.listPasskeys(userId)),
      removePasskey: (userId, id, now) => call('removePasskey', () => passkeys.removePasskey(userId, id, now)),
      usePasskey: (id, expected, counter, now) => call('usePasskey', () => passkeys.usePasskey(id, expected, counter, now)),
      resealPasskeys: (cursor, limit) => call('resealPasskeys', () => passkeys.resealPasskeys(cursor, limit)),
    },
    auditChain: {
      lastAuditLink: (stream) => call('lastAuditLink', () => auditChain.lastAuditLink(stream)),
      appendAuditLink: (link) => call('appendAuditLink', () => auditChain.appendAuditLink(link)),
      readAuditLinks: (stream, fromSeq, limit) => call('readAuditLinks', () => auditChain.readAuditLinks(stream, fromSeq, limit)),
    },
  };
}
