import { EN_MESSAGES } from './catalogs/en.js';
import type { PageMessages } from './page-messages.js';

/**
 * The English catalog: what pages show when no other locale is negotiated, and what the status route's JSON errors
 * and the exceptions' own messages say (see `messages/catalogs/`).
 */
export const PAGE_MESSAGES: PageMessages = EN_MESSAGES;
