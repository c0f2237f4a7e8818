/**
 * The fallback ladder: how a question reaches the person through the best channel the client has. A
 * question descends its ordered list of rungs until one fits the client's (policy-adjusted) capabilities.
 * Imports only the `displayText` leaf: the options (a lower layer) check the ladders with it.
 */
import { displayText } from '../security/display-text.js';

/** The elicitation capability a client declared (absent: none). */
export type DeclaredElicitation = { form?: object; url?: object } | undefined;

/**
 * One way of putting a question to the person:
 * - `form`: a form-mode elicitation (form questions only);
 * - `url`: a URL-mode elicitation (the page; for a form question, the hosted form page);
 * - `form-bridge`: a form-mode elicitation whose message carries the page URL and asks "I have finished on
 *   the page" (for clients with form mode only);
 * - `link`: a normal tool result telling the person to open the page and then ask again (for clients
 *   without elicitation); the next call of the same tool with the same arguments picks the answer up;
 * - `model`: form questions without secrets only, opt-in: the result asks the model to collect the answer
 *   and call `submit-elicitation-answer`;
 * - `error`: a readable tool error. Ends the list.
 */
export type FallbackRung = 'form' | 'url' | 'form-bridge' | 'link' | 'model' | 'error';

/** The rungs of a question answered on a page (`requireAnswer`, `requestUrl`). */
export type PageFallbackRung = Extract<FallbackRung, 'url' | 'form-bridge' | 'link' | 'error'>;

/** The module-wide ladders (`fallback` option); each ask may give its own list instead. */
export interface ElicitationFallback {
  /** For questions answered on a page. @default ['url', 'form-bridge', 'link'] */
  page?: PageFallbackRung[];
  /** For form questions (`elicit`). @default ['form', 'url', 'link'] */
  form?: FallbackRung[];
}

export const DEFAULT_PAGE_FALLBACK: readonly PageFallbackRung[] = ['url', 'form-bridge', 'link'];
export const DEFAULT_FORM_FALLBACK: readonly FallbackRung[] = ['form', 'url', 'link'];

const PAGE_RUNGS: readonly FallbackRung[] = ['url', 'form-bridge', 'link', 'error'];
const FORM_RUNGS: readonly FallbackRung[] = ['form', 'url', 'form-bridge', 'link', 'model', 'error'];

/** The client as `clientPolicy` sees it: who it says it is and what it declared. */
export interface McpClientProfile {
  /** `clientInfo.name` from `initialize` (2025-11-25) or the request's `_meta` (2026-07-28), if given. */
  name?: string;
  version?: string;
  era: '2025-11-25' | '2026-07-28';
  /** The elicitation capability the client declared (`undefined`: none). */
  declared: DeclaredElicitation;
  /** The names of the extensions the client declared (`capabilities.extensions`), if any. */
  extensions?: readonly string[];
}

/**
 * Protocol 2025-11-25: how `requireAnswer` puts a page question on the `url` rung. `'error'`: the call ends with
 * -32042 (`URLElicitationRequiredError`) naming the page, and the client calls again once the person has finished;
 * `'request'`: a URL-mode request on the call's own stream, awaited as `requestUrl`'s is (at most `callWaitMs` for
 * a call without a progress token, then the link result).
 */
export type UrlRequiredMode = 'error' | 'request';

/**
 * Decides which elicitation capabilities to act on for a client: return `declared` unchanged, less of it
 * (a client known to decline every URL request: drop `url`), or `undefined` (treat as no elicitation).
 */
export type ClientPolicy = (client: McpClientProfile) => DeclaredElicitation;

/** The capabilities to act on for `client`: what it declared, through `policy` when the module has one. */
export function applyClientPolicy(policy: ClientPolicy | undefined, client: McpClientProfile): DeclaredElicitation {
  return policy ? policy(Object.freeze(client)) : client.declared;
}

/** What the ladder needs to know about one question and the call it is asked in. */
export interface QuestionFit {
  /** Whether the client (after `clientPolicy`) supports a mode. */
  supports(mode: 'form' | 'url'): boolean;
  /** A form question (`elicit`), as opposed to a page question. */
  form: boolean;
  /** The form has secret fields (never `form` nor `model`). */
  secret: boolean;
  /** The call can end with a link result that a later call picks up (the tool's name and arguments are known). */
  linkable: boolean;
  /** `submit-elicitation-answer` is registered on this server. */
  modelAnswerable: boolean;
}

/**
 * The rungs that fit a question of one call: `supports` is the client's (after `clientPolicy`); the link and
 * model rungs need the call's tool (`asking`) and, for `model`, `submit-elicitation-answer` on the server.
 */
export function fitFor(
  supports: (mode: 'form' | 'url') => boolean,
  call: { asking?: unknown; modelTool?: string },
  form: boolean,
  secret: boolean,
): (rung: FallbackRung) => boolean {
  const question: QuestionFit = {
    supports,
    form,
    secret,
    linkable: call.asking !== undefined,
    modelAnswerable: call.modelTool !== undefined,
  };
  return (rung) => fits(rung, question);
}

/** Whether `rung` can carry this question to this client. */
export function fits(rung: FallbackRung, q: QuestionFit): boolean {
  switch (rung) {
    case 'form':
      return q.form && !q.secret && q.supports('form');
    case 'url':
      return q.supports('url');
    case 'form-bridge':
      return q.supports('form');
    case 'link':
      return q.linkable;
    case 'model':
      return q.form && !q.secret && q.modelAnswerable;
    case 'error':
      return true;
  }
}

/** The rungs that need the client to show an elicitation (skipped once a client declined "instantly"). */
export function asksClient(rung: FallbackRung): boolean {
  return rung === 'form' || rung === 'url' || rung === 'form-bridge';
}

/**
 * Checks a ladder (module option or per ask): known rungs for the question type, no duplicates, `error`
 * only last. Returns the problem, or `undefined` when it is fine.
 */
export function ladderProblem(list: unknown, type: 'page' | 'form'): string | undefined {
  const allowed = type === 'page' ? PAGE_RUNGS : FORM_RUNGS;
  if (!Array.isArray(list) || list.length === 0) return `must be a non-empty array of ${allowed.map((r) => `'${r}'`).join(', ')}`;
  const seen = new Set<unknown>();
  for (const [i, rung] of list.entries()) {
    if (!allowed.includes(rung as FallbackRung))
      return `has ${JSON.stringify(rung)}, which is not one of ${allowed.map((r) => `'${r}'`).join(', ')}`;
    if (seen.has(rung)) return `lists '${String(rung)}' twice`;
    seen.add(rung);
    if (rung === 'error' && i !== list.length - 1) return "must end at 'error' (nothing after it is ever reached)";
  }
  return undefined;
}

/** What one rung did with a question: answered it, passed it on, or found the client cannot ask at all. */
export type LadderStep<R> = { done: R } | 'next' | 'cannot-ask';

/**
 * Who hears of a question going down the ladder (the `elicitation.fallback` metric): `fellTo` is called for each
 * rung tried below the first of the list (every rung tried, when the list is `below` the question's first rung
 * already, as on a retry that continues past the rung it was asked on), and with `error` when the list ends.
 */
export interface LadderObserver {
  fellTo(rung: FallbackRung): void;
  below?: boolean;
}

/** A ladder with its observer, as `descend` takes it in place of the bare list. */
export interface ObservedLadder {
  rungs: readonly FallbackRung[];
  observer: LadderObserver;
}

/**
 * Walks `list` from the top: each rung that fits is tried (`step`) until one answers. After `cannot-ask`
 * (an instant decline; or `canAsk` false from the start) the rungs that need the client to show something are skipped. Resolves `undefined`
 * when the list ends (or reaches `error`) unanswered: the caller throws its readable error. An `ObservedLadder`'s
 * observer hears of each rung tried below the first, and of the end.
 */
export async function descend<R>(
  ladder: readonly FallbackRung[] | ObservedLadder,
  fit: (rung: FallbackRung) => boolean,
  step: (rung: FallbackRung) => Promise<LadderStep<R>>,
  canAsk = true,
): Promise<R | undefined> {
  const [list, observer] = 'rungs' in ladder ? [ladder.rungs, ladder.observer] : [ladder, undefined];
  for (const [i, rung] of list.entries()) {
    if (rung === 'error') break;
    if ((!canAsk && asksClient(rung)) || !fit(rung)) continue;
    if (i > 0 || observer?.below) observer?.fellTo(rung);
    const result = await step(rung);
    if (result === 'cannot-ask') canAsk = false;
    else if (result !== 'next') return result.done;
  }
  observer?.fellTo('error');
  return undefined;
}

/** The schema of the form bridge's one field (a form with no field hangs some clients). */
export const BRIDGE_SCHEMA = {
  type: 'object',
  properties: { finished: { type: 'boolean', title: 'I have finished on the page', default: false } },
  required: ['finished'],
} as const;

/** The form bridge's message: what the page is for (made safe to show, as on the page), and its URL. */
export function bridgeMessage(message: string, url: string, stillOpen = false): string {
  const again = stillOpen ? 'The page does not have your answer yet. ' : '';
  return `${displayText(message)}\n\n${again}Please open this page in your browser to answer: ${url}\nWhen you have finished there, tick the box and accept.`;
}
