import { Injectable } from '@nestjs/common';
import { idOf } from '../../core/elicitation-id.js';
import { ElicitationRecords } from '../../lifecycle/elicitation-records.js';
import { buildForm } from '../../forms/define-form.js';
import type { FormSchema } from '../../forms/form-schema.js';
import { ANSWER_IN_CHAT } from './linked-questions.js';

/** The tool the binding registers for the `model` rung. */
export const SUBMIT_ANSWER_TOOL = 'submit-elicitation-answer';

/** The arguments of `submit-elicitation-answer`. */
export interface ChatAnswer {
  elicitationId: string;
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
}

/** A tool result as both SDK lines take it. */
export interface TextToolResult {
  content: Array<{ type: 'text'; text: string }>;
  isError?: boolean;
  [key: string]: unknown;
}

const NOT_WAITING = 'No question with this elicitationId is waiting for an answer from you in the chat.';

/**
 * The `model` rung's way back: `submit-elicitation-answer` stores an answer the model collected from the
 * person, checked like a page answer (the form's own validator), for the one user the question was asked of,
 * and only for questions asked through that rung (never a form with secret fields). Bad input gets a readable
 * tool error and changes nothing stored; unknown and foreign ids get the same error.
 */
@Injectable()
export class SubmitAnswerTool {
  constructor(private readonly records: ElicitationRecords) {}

  /** The tool's description, for the model. */
  static readonly description =
    'Submits the answer the user gave in the chat to a question a tool asked (its result names the elicitationId and the fields). ' +
    'Use action "accept" with the fields in "content", "decline" if the user refuses, "cancel" if they want to stop; then call the original tool again.';

  async submit(user: string | undefined, answer: ChatAnswer): Promise<TextToolResult> {
    if (!user) return failure('This tool needs a signed-in user.');
    const record = await this.records.read(answer.elicitationId);
    const form = record?.metadata.form as { schema: FormSchema; secretFields: string[]; httpUrlFields?: string[] } | undefined;
    if (!record || record.userId !== user || record.kind !== 'form' || record.metadata[ANSWER_IN_CHAT] !== true || !form) {
      return failure(NOT_WAITING);
    }
    if (form.secretFields.length > 0) return failure(NOT_WAITING);
    if (record.status !== 'pending') {
      return failure(`This question is no longer open (${record.status}). Call the original tool again to continue.`);
    }
    let result;
    if (answer.action === 'accept') {
      const checked = buildForm<Record<string, unknown>>(form.schema, { httpUrlFields: form.httpUrlFields }).validate(answer.content ?? {});
      if (!checked.ok) {
        const problems = checked.issues.map((i) => `${i.field} ${i.message}`).join('; ');
        return failure(`The answer does not fit the form: ${problems}. Ask the user again and submit the corrected answer.`);
      }
      result = await this.records.complete(idOf(record), checked.value);
    } else if (answer.action === 'decline') {
      result = await this.records.decline(idOf(record));
    } else if (answer.action === 'cancel') {
      result = await this.records.cancel(idOf(record));
    } else {
      return failure('action must be "accept", "decline" or "cancel".');
    }
    if (!result.ok) return failure('This question is no longer open. Call the original tool again to continue.');
    return { content: [{ type: 'text', text: 'Answer recorded. Now call the original tool again with the same arguments to continue.' }] };
  }
}

function failure(text: string): TextToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
