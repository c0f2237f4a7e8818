/**
 * What asked a question, where the MCP binding knows it: kept in the record's `metadata` under `askedBy`, shown in the
 * inbox and carried by notifications. Names only (a tool's, a client's), never arguments.
 */
export interface AskedBy {
  /** The tool whose call asked. */
  readonly tool?: string;
  /** The MCP client that made the call, as it names itself (`clientInfo.name`). */
  readonly client?: string;
}

/** The metadata key of `AskedBy`. */
export const ASKED_BY_METADATA = 'askedBy';

/** The `AskedBy` of a record's metadata, each name a short string or absent; `undefined` when there is none. */
export function askedByOf(metadata: Readonly<Record<string, unknown>>): AskedBy | undefined {
  const value = metadata[ASKED_BY_METADATA];
  if (typeof value !== 'object' || value === null) return undefined;
  const { tool, client } = value as Record<string, unknown>;
  const name = (v: unknown) => (typeof v === 'string' && v.length > 0 && v.length <= 128 ? v : undefined);
  const out = { ...(name(tool) && { tool: name(tool) }), ...(name(client) && { client: name(client) }) };
  return out.tool || out.client ? out : undefined;
}
