/**
 * The rules of asking that do not depend on where the answers are kept: what a client's declaration supports, the
 * digests a question is recognised by, a form asked on the hosted page and its outcome, the re-asked message, and
 * the errors of a question no rung reaches. The question engine (`question-engine.ts`) and the push transport use
 * them; nothing else decides these.
 */
import { typeOfAsk } from '../../lifecycle/create-input.validation.js';
import { ElicitationValidationError, type FieldIssue } from '../../errors/elicitation-validation.error.js';
import { ElicitationUnsupportedError } from '../../errors/elicitation-unsupported.error.js';
import { FormSchemaError } from '../../errors/form-schema.error.js';
import type { DeclaredElicitation, FallbackRung, PageFallbackRung } from '../../options/client-ladder.js';
import { asFormDefinition, type FormDefinition } from '../../forms/define-form.js';
import type { ZodFormSchema } from '../../forms/zod-form.js';
import type { FormSchema } from '../../forms/form-schema.js';
import type { ElicitResult, PageOutcome, UrlElicitationAsk } from '../tool-elicitation.js';
import { digestOf } from '../../core/json-digest.js';

/** Whether a client that declared `declared` supports `mode` (`elicitation: {}` means form only). */
export function supportsMode(declared: DeclaredElicitation, mode: 'form' | 'url'): boolean {
  if (!declared) return false;
  return mode === 'url' ? declared.url !== undefined : declared.form !== undefined || declared.url === undefined;
}

/** A form as given to `elicit`: a definition, or a Zod object or a raw schema declared (and linted) now. */
export function toFormDefinition<T>(form: FormDefinition<T> | ZodFormSchema<T> | FormSchema): FormDefinition<T> {
  return asFormDefinition(form);
}

/**
 * Refuses, when the question is declared, a ladder that would send a form with secret fields through the
 * model (`model` rung): the answer would pass through the model.
 */
export function assertModelAllowed(definition: FormDefinition<unknown>, fallback: readonly FallbackRung[] | undefined): void {
  const secret = definition.secretFields[0];
  if (secret !== undefined && fallback?.includes('model')) {
    throw new FormSchemaError(secret, "is a secret, so this form may not take the 'model' rung (the answer would pass through the model)");
  }
}

/**
 * Why a form question found no rung for this client: a form with secret fields may only be asked on the
 * hosted form page; any other form needed form mode.
 */
export function formUnreachable(definition: FormDefinition<unknown>): Error {
  const secret = definition.secretFields[0];
  if (secret === undefined) return new ElicitationUnsupportedError('form');
  return new FormSchemaError(
    secret,
    'is a secret, which may only be collected on the hosted form page (through URL mode, the form bridge or a link), and no rung of the fallback ladder reaches this client',
  );
}

/**
 * The question asked again after an invalid form answer: the tool's message, then the fields to correct and
 * what is wrong with each (never a value the user gave). Both mechanisms re-ask this way, up to
 * `limits.maxFormAttempts` answers in all.
 */
export function reaskMessage(message: string, issues: readonly FieldIssue[]): string {
  if (issues.length === 0) return message;
  return `${message}\n\nPlease correct: ${issues.map((i) => `${i.field} ${i.message}`).join('; ')}.`;
}

/**
 * A hosted form's outcome as `elicit` answers it. A completed answer is checked again with the form's own
 * definition: the page checked it with the converted schema, but a Zod form's refinements run only where the form
 * was declared (not on a page served by another instance, nor for the `model` rung). An answer that fails throws
 * `ElicitationValidationError` naming the fields: never a silent pass.
 */
export function hostedFormResult<T>(definition: FormDefinition<T>, outcome: PageOutcome<Record<string, unknown>>): ElicitResult<T> {
  const via = outcome.via && { via: outcome.via };
  if (outcome.status === 'completed') {
    const checked = definition.validate(outcome.data);
    if (!checked.ok) throw new ElicitationValidationError(checked.issues);
    return { action: 'accept', content: checked.value, ...via };
  }
  return outcome.status === 'declined' ? { action: 'decline', ...via } : { action: 'cancel', ...via };
}

/** The digest a page question is recognised by (position-independent: what is asked). */
export function pageQuestionDigest(ask: UrlElicitationAsk): string {
  return digestOf({ url: ask.kind, type: typeOfAsk(ask), message: ask.message });
}

/** The digest a form question is recognised by. */
export function formQuestionDigest(message: string, definition: FormDefinition<unknown>): string {
  return digestOf({ form: message, schema: definition.schema });
}

/** A form question asked on the hosted form page (every rung but `form` and `model`). */
export function hostedFormAsk(message: string, definition: FormDefinition<unknown>, fallback: readonly FallbackRung[]): UrlElicitationAsk {
  return { kind: 'form', form: definition, message, fallback: fallback.filter(isPageRung) };
}

export function isPageRung(rung: FallbackRung): rung is PageFallbackRung {
  return rung === 'url' || rung === 'form-bridge' || rung === 'link' || rung === 'error';
}

/**
 * Whether a client's decline of a question sent at `askedAt` came sooner than `instantDeclineMs` (0: off): a client
 * that declines before a person could have read the question shows none (`cannot-ask`), in every era and in tasks.
 */
export function isInstantDecline(askedAt: number | undefined, instantDeclineMs: number, now = Date.now()): boolean {
  return instantDeclineMs > 0 && askedAt !== undefined && now - askedAt < instantDeclineMs;
}
