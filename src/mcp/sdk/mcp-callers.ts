import { Injectable } from '@nestjs/common';
import { applyClientPolicy, type DeclaredElicitation, type McpClientProfile, type UrlRequiredMode } from '../../options/client-ladder.js';
import { InjectMcpOptions, type ElicitationMcpOptions } from '../../options/mcp-options.js';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  extraOf,
  isSdkV2Context,
  type SdkRequestExtra,
  type SdkServerLike,
} from './sdk.types.js';

/** What a 2026-07-28 request declares of its client in `_meta`. */
interface DeclaredClient {
  capabilities?: { elicitation?: DeclaredElicitation; extensions?: Record<string, unknown> };
  info?: { name?: string; version?: string };
}

/**
 * Who makes a call, read in one place for every era, tasks and the notification streams: what its client declared
 * (the `initialize` of a 2025-11-25 session, the `_meta` of a 2026-07-28 request), through the module's one policy
 * (`clientPolicy` composed with the built-in client profiles), and the call's verified user (`resolveMcpUser`, given
 * the SDK 1.x `extra` in every era).
 */
@Injectable()
export class McpCallers {
  constructor(@InjectMcpOptions() private readonly options: ElicitationMcpOptions) {}

  /** The elicitation capability to act on for a 2025-11-25 session. */
  sessionElicitation(server: SdkServerLike): DeclaredElicitation {
    return applyClientPolicy(this.options.clientPolicy, sessionClient(server));
  }

  /** How `requireAnswer` asks a 2025-11-25 session's client on the `url` rung (`urlRequired`, the client profiles). */
  sessionUrlRequired(server: SdkServerLike): UrlRequiredMode {
    return this.options.urlRequired?.(sessionClient(server)) ?? 'error';
  }

  /** The elicitation capability to act on for a 2026-07-28 request (declared per request in its `_meta`). */
  requestElicitation(meta: Record<string, unknown> | undefined): DeclaredElicitation {
    const { capabilities, info } = declaredClient(meta);
    return applyClientPolicy(this.options.clientPolicy, {
      name: info?.name,
      version: info?.version,
      era: '2026-07-28',
      declared: capabilities?.elicitation,
      extensions: extensionNames(capabilities?.extensions),
    });
  }

  /**
   * Whether a 2026-07-28 request declared an extension (per request, in its `_meta`) that the client can use: a built-in
   * client profile that is on may hide one the client declares but cannot consume (`clientProfiles`).
   */
  declaresExtension(meta: Record<string, unknown> | undefined, extension: string): boolean {
    const { capabilities, info } = declaredClient(meta);
    if (capabilities?.extensions?.[extension] === undefined) return false;
    return !this.options.hiddenExtension?.({ name: info?.name, version: info?.version }, extension);
  }

  /** The verified user of a call, from either SDK line's context (or an SDK 1.x `extra`), or `undefined`. */
  userOf(context: unknown): string | undefined {
    const extra = isSdkV2Context(context) ? extraOf(context) : (context as SdkRequestExtra);
    return this.options.resolveMcpUser(extra) ?? undefined;
  }
}

/** The client of a 2025-11-25 session, as its `initialize` declared it. */
function sessionClient(server: SdkServerLike): McpClientProfile {
  const info = server.getClientVersion?.();
  const capabilities = server.getClientCapabilities();
  return {
    name: info?.name,
    version: info?.version,
    era: '2025-11-25',
    declared: capabilities?.elicitation,
    extensions: extensionNames(capabilities?.extensions),
  };
}

/** The names of declared extensions, or `undefined`. */
function extensionNames(extensions: Record<string, unknown> | undefined): readonly string[] | undefined {
  return extensions && typeof extensions === 'object' ? Object.keys(extensions) : undefined;
}

/** The client a 2026-07-28 request's `_meta` declares. */
function declaredClient(meta: Record<string, unknown> | undefined): DeclaredClient {
  return {
    capabilities: meta?.[CLIENT_CAPABILITIES_META_KEY] as DeclaredClient['capabilities'],
    info: meta?.[CLIENT_INFO_META_KEY] as DeclaredClient['info'],
  };
}
