import type { ClientPolicy, DeclaredElicitation, McpClientProfile, UrlRequiredMode } from './client-ladder.js';

/**
 * A client known to declare what it cannot do, and what the module acts on for it instead. Built in, on by default;
 * the `clientProfiles` option turns one off by its `id`, and `clientPolicy` sees what the profiles left.
 */
export interface ClientProfile {
  /** Its name in the `clientProfiles` option. */
  readonly id: string;
  /** Which clients it is for. */
  matches(client: McpClientProfile): boolean;
  /** The capabilities to act on for such a client (absent: as declared). */
  act?(client: McpClientProfile): DeclaredElicitation;
  /** Extensions such a client declares but cannot use: acted on as not declared. */
  readonly hides?: readonly string[];
  /** How `requireAnswer` asks such a client on the `url` rung (absent: the module's default, -32042). */
  readonly urlRequired?: UrlRequiredMode;
  /** What was seen, for the docs. */
  readonly evidence: string;
}

/** `declared` without URL mode: form mode stays (the form bridge then carries a page), nothing else is left. */
function withoutUrl(declared: DeclaredElicitation): DeclaredElicitation {
  if (!declared || declared.url === undefined) return declared;
  return declared.form !== undefined ? { form: declared.form } : undefined;
}

/** The MCP Apps extension, which `@mastra/mcp` declares to every server. */
const MCP_APPS_EXTENSION = 'io.modelcontextprotocol/ui';

/** The major of a `major.minor.patch` version, or `undefined`. */
function majorOf(version: string | undefined): number | undefined {
  const major = /^(\d+)\./.exec(version ?? '')?.[1];
  return major === undefined ? undefined : Number(major);
}

/** The profiles the module ships. */
export const BUILT_IN_CLIENT_PROFILES: readonly ClientProfile[] = [
  {
    id: 'mcp-remote',
    // mcp-remote appends " (via mcp-remote <version>)" to the name of the client it serves. Only where it speaks
    // 2026-07-28 to the server (`--protocol auto`): in its default mode (2025-11-25) it passes URL requests through.
    matches: (client) => client.era === '2026-07-28' && / \(via mcp-remote [^)]*\)$/.test(client.name ?? ''),
    act: (client) => withoutUrl(client.declared),
    // It forwards the stdio client's Tasks declaration, then fails on a task result ("unrecognised type: task").
    hides: ['io.modelcontextprotocol/tasks'],
    evidence:
      'mcp-remote 0.15 --protocol auto speaks 2026-07-28 to the server and declares URL mode for the stdio client behind ' +
      'it, but cannot forward a URL request to a 2025-era stdio client ("cannot put to a 2025-era client"): the question ' +
      'never reaches the person. In its default mode (2025-11-25, passing requests through) URL requests reach the client.',
  },
  {
    id: 'mcp-use',
    // Its MCPClient names itself "mcp-use" (version: the package's); its connectors used alone, "http-connector" 1.0.0.
    matches: (client) =>
      client.era === '2025-11-25' && (client.name === 'mcp-use' || client.name === 'http-connector') && majorOf(client.version) === 1,
    urlRequired: 'request',
    evidence:
      'mcp-use 1.34 (SDK 1.26) declares URL mode and shows a pushed URL request (elicitation/create, mode url), but ' +
      'passes a -32042 answer to the app as a failed call: the person reads the URL in the message and the call has ' +
      'to be made again by hand.',
  },
  {
    id: 'mastra',
    // @mastra/mcp names its client after the app's key for the server, so it is known by what it always sends: the
    // version "1.0.0" and the MCP Apps extension it declares for every server.
    matches: (client) =>
      client.era === '2025-11-25' && client.version === '1.0.0' && (client.extensions ?? []).includes(MCP_APPS_EXTENSION),
    urlRequired: 'request',
    evidence:
      "@mastra/mcp 2.0 (SDK 2.0, protocolVersion 'legacy') declares URL mode when given inputRequests and answers a " +
      'pushed URL request through it, but passes a -32042 answer to the app as a failed call. On 2026-07-28 (its ' +
      "default, 'auto') it answers input_required and needs nothing.",
  },
];

/**
 * Whether a 2026-07-28 client's declaration of `extension` is to be acted on as absent: a built-in profile that is on
 * matches the client and hides it. `undefined` when no profile that is on hides anything.
 */
export function composeHiddenExtensions(
  switches: ClientProfileSwitches | undefined,
): ((client: Pick<McpClientProfile, 'name' | 'version'>, extension: string) => boolean) | undefined {
  const on = BUILT_IN_CLIENT_PROFILES.filter((profile) => switches?.[profile.id] !== false && profile.hides?.length);
  if (on.length === 0) return undefined;
  return (client, extension) =>
    on.some((p) => p.hides?.includes(extension) && p.matches({ ...client, era: '2026-07-28', declared: undefined }));
}

/** The `clientProfiles` option: profiles turned on or off by id (unset ids stay on). */
export type ClientProfileSwitches = Readonly<Record<string, boolean>>;

/** A problem with the `clientProfiles` option, or `undefined`. */
export function clientProfilesProblem(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'must be an object { [profile id]: boolean }';
  const ids = BUILT_IN_CLIENT_PROFILES.map((p) => p.id);
  for (const [id, on] of Object.entries(value)) {
    if (!ids.includes(id)) return `has no profile "${id}" (the built-in profiles: ${ids.join(', ')})`;
    if (typeof on !== 'boolean') return `.${id} must be true or false`;
  }
  return undefined;
}

/**
 * The one policy the binding acts on: the built-in profiles that are on, then the app's `clientPolicy` with what they
 * left as `declared`. `undefined` when neither changes anything (no profile on, no policy).
 */
export function composeClientPolicy(
  switches: ClientProfileSwitches | undefined,
  policy: ClientPolicy | undefined,
): ClientPolicy | undefined {
  const on = BUILT_IN_CLIENT_PROFILES.filter((profile) => switches?.[profile.id] !== false);
  if (on.length === 0) return policy;
  const acting = on.filter((profile) => profile.act !== undefined);
  if (acting.length === 0) return policy;
  return (client) => {
    const profile = acting.find((p) => p.matches(client));
    const profiled = profile?.act ? { ...client, declared: profile.act(client) } : client;
    return policy ? policy(Object.freeze(profiled)) : profiled.declared;
  };
}

/** The `urlRequired` option: one mode for every client, or a function of the client (`undefined`: the profiles decide). */
export type UrlRequiredOption = UrlRequiredMode | ((client: McpClientProfile) => UrlRequiredMode | undefined);

/** A problem with the `urlRequired` option, or `undefined`. */
export function urlRequiredProblem(value: unknown): string | undefined {
  if (value === undefined || value === 'error' || value === 'request' || typeof value === 'function') return undefined;
  return "must be 'error', 'request' or a function (client) => 'error' | 'request' | undefined";
}

/**
 * How `requireAnswer` asks a 2025-11-25 client on the `url` rung: the app's `urlRequired` (a mode, or a function that
 * may leave the client to the profiles), else the first built-in profile that is on and matches, else `'error'`.
 * `undefined` when every client gets `'error'`.
 */
export function composeUrlRequired(
  switches: ClientProfileSwitches | undefined,
  option: UrlRequiredOption | undefined,
): ((client: McpClientProfile) => UrlRequiredMode) | undefined {
  if (option === 'error') return undefined;
  if (option === 'request') return () => 'request';
  const on = BUILT_IN_CLIENT_PROFILES.filter((profile) => switches?.[profile.id] !== false && profile.urlRequired);
  if (on.length === 0 && !option) return undefined;
  return (client) => {
    const frozen = Object.freeze(client);
    return option?.(frozen) ?? on.find((p) => p.matches(frozen))?.urlRequired ?? 'error';
  };
}
