import { ElicitationModule } from 'nestjs-mcp-elicitation';

export const elicitation = ElicitationModule.forRoot({
  baseUrl: 'https://mcp.example.com',
  clientPolicy: ({ name, declared }) => {
    // A client that declares URL mode but refuses URL requests: give it the form bridge instead.
    if (name === 'claude-code' && declared?.url) return { form: {} };
    // A client that declares elicitation but declines every question at once: treat it as having none (link).
    if (name === 'codex-mcp-client') return undefined;
    return declared;
  },
  // Or, without naming clients: a decline within 1.5 s counts as "cannot ask" and the question moves to `link`.
  instantDeclineMs: 1500,
  // A client of your own that shows a -32042 error instead of retrying: ask it with a URL request in the call
  // (`undefined` leaves every other client to the built-in profiles).
  urlRequired: ({ name }) => (name === 'acme-agent' ? 'request' : undefined),
});
