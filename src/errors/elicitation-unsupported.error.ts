/**
 * The MCP client did not declare the elicitation mode a tool needs. The message is meant for the
 * tool's caller: McpServer turns a thrown error into a readable tool error (`isError: true`).
 */
export class ElicitationUnsupportedError extends Error {
  override readonly name = 'ElicitationUnsupportedError';

  constructor(readonly mode: 'form' | 'url') {
    super(
      mode === 'url'
        ? 'This tool needs the MCP client to open a web page (URL-mode elicitation), which this client does not support.'
        : 'This tool needs the MCP client to show a form (form-mode elicitation), which this client does not support.',
    );
  }
}
