import type { ToolElicitation } from 'nestjs-mcp-elicitation';

/** The tool's own texts, in the languages it supports. */
const ASK_FOR_TOKEN: Record<string, string> = {
  en: 'Enter your GitHub token so the assistant can open the pull request.',
  de: 'Geben Sie Ihr GitHub-Token ein, damit der Assistent den Pull Request öffnen kann.',
};

/** `language`: what the tool knows of the user (a profile setting, the language they write to the assistant in). */
export async function askForToken(elicitation: ToolElicitation, language: string): Promise<string> {
  const message = ASK_FOR_TOKEN[language] ?? ASK_FOR_TOKEN.en;
  const { apiKey } = await elicitation.requireAnswer<{ apiKey: string }>({ kind: 'api-key', type: 'api-key-github', message });
  return apiKey;
}
