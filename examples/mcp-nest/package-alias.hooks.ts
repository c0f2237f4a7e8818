/**
 * A module resolve hook for the compiled README snippets run as their own process (`readme-snippet-main.ts`): the
 * snippets import the package by its name, `nestjs-mcp-elicitation` and its subpaths, which here means the compiled
 * sources beside this file (`dist-demo/src`), as `tsconfig.json`'s `paths` maps them for the type checker.
 */
type Next = (specifier: string, context: unknown) => Promise<unknown>;

const PACKAGE = /^nestjs-mcp-elicitation(?:\/([\w-]+))?$/;

export async function resolve(specifier: string, context: unknown, next: Next): Promise<unknown> {
  const match = PACKAGE.exec(specifier);
  if (!match) return next(specifier, context);
  return next(new URL(`../../src/${match[1] ? `${match[1]}/` : ''}index.js`, import.meta.url).href, context);
}
