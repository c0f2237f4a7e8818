import { checksBeyondSchema, type FormDefinition } from './define-form.js';
import type { ElicitationValidationResult } from './form-validator.js';

/**
 * The hosted form page validates a post with the schema stored in the record (any instance can serve it). A
 * Zod form also has checks no schema carries (refinements); they are kept here, in this process, by
 * elicitation id, from creation until the elicitation expires, so that the page of the process that created
 * it shows a failed refinement next to its field. Another process (several instances sharing a store) has
 * only the schema, and checks only that.
 */

interface Entry {
  form: FormDefinition<unknown>;
  expiresAt: number;
}

/** Most entries kept at once; the oldest go first beyond it (each holds a form, usually shared). */
const MAX_ENTRIES = 10_000;
const entries = new Map<string, Entry>();

/** Keeps a hosted form's own checks for its elicitation `id`, when it has any (a Zod form). */
export function rememberHostedChecks(id: string, form: FormDefinition<unknown>, expiresAt: number, now = Date.now()): void {
  if (!checksBeyondSchema(form)) return;
  // Oldest first: expired entries go from the front (one with a longer ttl may hold later ones back a while).
  for (const [key, entry] of entries) {
    if (entry.expiresAt > now && entries.size < MAX_ENTRIES) break;
    entries.delete(key);
  }
  entries.set(id, { form, expiresAt });
}

/**
 * A hosted post's validation completed by the form's own checks, when this process holds them for `id`: what
 * the schema's validator accepted (defaults applied) is checked by the form (its refinements), whose issues
 * then show next to their fields like any other.
 */
export function recheckHostedAnswer(
  id: string,
  result: ElicitationValidationResult<Record<string, unknown>>,
): ElicitationValidationResult<Record<string, unknown>> {
  const entry = entries.get(id);
  if (!result.ok || !entry) return result;
  return entry.form.validate(result.value) as ElicitationValidationResult<Record<string, unknown>>;
}
