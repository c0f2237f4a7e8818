import type { PageMessages } from '../../messages/page-messages.js';
import { PAGE_MESSAGES } from '../../messages/default-messages.js';

/** The text a page shows for an exception, from the page's own catalog. */
export type PageText = (messages: PageMessages) => string;

const PAGE_TEXT = Symbol('ElicitationPageText');
const PAGE_HEADING = Symbol('ElicitationPageHeading');

/**
 * Gives `exception` the text its error page shows, picked from the catalog of the page's language (its own
 * message stays the English one: the status route's JSON and logs read that). Not enumerated.
 */
export function withPageText<E extends object>(exception: E, text: PageText): E {
  return Object.defineProperty(exception, PAGE_TEXT, { value: text, enumerable: false });
}

/** Gives `exception` the heading its error page shows (instead of the status's), from the page's catalog. */
export function withPageHeading<E extends object>(exception: E, heading: PageText): E {
  return Object.defineProperty(exception, PAGE_HEADING, { value: heading, enumerable: false });
}

/** The page heading `withPageHeading` gave an exception, if any. */
export function pageHeadingOf(exception: unknown): PageText | undefined {
  return typeof exception === 'object' && exception !== null ? (exception as { [PAGE_HEADING]?: PageText })[PAGE_HEADING] : undefined;
}

/** The page text `withPageText` gave an exception, if any. */
export function pageTextOf(exception: unknown): PageText | undefined {
  return typeof exception === 'object' && exception !== null ? (exception as { [PAGE_TEXT]?: PageText })[PAGE_TEXT] : undefined;
}

/** A new `Exception` with the English text `text` picks as its message and `text` as its page text. */
export function pageError<E extends object>(Exception: new (message: string) => E, text: PageText): E {
  return withPageText(new Exception(text(PAGE_MESSAGES)), text);
}
