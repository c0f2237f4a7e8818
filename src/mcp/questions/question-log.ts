/** A form question's answer as the log carries it: validated content, or the refusal. */
export type FormResponse = { action: 'accept'; content: Record<string, unknown> } | { action: 'decline' } | { action: 'cancel' };

/**
 * A question's place in a run of a tool body, as the transport's log keeps it (the sealed request state on
 * 2026-07-28, the task's body in a task, nothing on 2025-11-25 where the call itself waits): answered earlier, open
 * (asked and not answered yet), or new. Questions are recognised by position and digest.
 */
export interface Slot {
  /** Its position in the body (0 for the first question asked). */
  index: number;
  /** The key its input request goes out under (2026-07-28 and tasks). */
  key: string;
  /** The digest of what is asked (`formQuestionDigest`, `pageQuestionDigest`). */
  question: string;
  /** Answered in an earlier round or run. */
  answered?: LoggedAnswer;
  /** Asked and waiting: the client (a form question) or the person (a page) is answering it. */
  open?: OpenQuestionState;
}

/** An answer in the log: a form question's response, or the elicitation whose outcome is the answer. */
export type LoggedAnswer = { response: FormResponse; elicitationId?: undefined } | { elicitationId: string; response?: undefined };

/** What the log keeps of an open question between rounds. */
export interface OpenQuestionState {
  /** A page question (or a form asked on the hosted page): the elicitation whose outcome is the answer. */
  elicitationId?: string;
  /** Asked on the form bridge (a form that points at the page of `elicitationId`). */
  bridge?: boolean;
  /** Form mode: answers refused so far (invalid content); the form bridge: "finished" answers the page did not confirm. */
  invalidAnswers?: number;
  /** When the question was last sent, epoch milliseconds (`instantDeclineMs`, and the form question's duration). */
  askedAt?: number;
  /** Retries of an unanswered page question (2026-07-28: the client's round budget). */
  retries?: number;
}

/** Where a body runs again from the top: named in the error of a tool whose questions changed between runs. */
export type RerunOf = 'retry' | 'task run';

/**
 * The one order check: a body that runs again from the top must ask the same questions in the same order, since
 * the answers are matched by position. Throws when the question recorded at a position is not the one asked now.
 */
export function assertSameQuestion(recorded: string, asked: string, where: RerunOf): void {
  if (recorded === asked) return;
  const era = where === 'retry' ? 'on a retry than before (protocol 2026-07-28 runs' : 'on a later run than before (a task runs';
  throw new Error(
    `This tool asked a different question ${era} the tool again from the top: ` +
      `the questions and their order must not depend on anything that changes between ${where === 'retry' ? 'retries' : 'runs'}).`,
  );
}
