import type { FieldIssue } from '../../errors/elicitation-validation.error.js';
import type { FormDefinition } from '../../forms/define-form.js';
import { BRIDGE_SCHEMA, bridgeMessage } from '../../options/client-ladder.js';
import type { InputRequest } from './input-required.js';
import { reaskMessage } from '../questions/question-rules.js';

/** A page a 2026-07-28 call asks on. */
export interface Page {
  id: string;
  url: string;
  message: string;
}

/** A placeholder page URL for a request that is never sent (the client did not declare URL mode). */
export const UNDECLARED_ID = '00000000-0000-4000-8000-000000000000';

/** A URL-mode question as an embedded request. */
export function urlRequest(message: string, url: string): InputRequest {
  return { method: 'elicitation/create', params: { mode: 'url', message, url } };
}

/** The form bridge as an embedded request: the page URL in the message, one "I have finished" box. */
export function bridgeRequest(page: Page, stillOpen: boolean): InputRequest {
  return {
    method: 'elicitation/create',
    params: { mode: 'form', message: bridgeMessage(page.message, page.url, stillOpen), requestedSchema: BRIDGE_SCHEMA },
  };
}

/** A form-mode question under its key, asked again naming the fields to correct when there are `issues`. */
export function formRequests(
  key: string,
  message: string,
  definition: FormDefinition<unknown>,
  issues: FieldIssue[] = [],
): Record<string, InputRequest> {
  return {
    [key]: {
      method: 'elicitation/create',
      params: { mode: 'form', message: reaskMessage(message, issues), requestedSchema: definition.schema },
    },
  };
}

/** An empty form-mode question: what the `error` rung embeds when the question needed form mode. */
export function emptyFormRequest(message: string): InputRequest {
  return { method: 'elicitation/create', params: { mode: 'form', message, requestedSchema: { type: 'object', properties: {} } } };
}
