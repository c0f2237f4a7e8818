// The layer rules of docs/architecture.md, checked by dependency-cruiser (`npm run lint:deps`, run by CI): imports
// point down the list of layers below, never up, and no circle. Imports that broke a rule when the check came in
// are listed in .dependency-cruiser-known-violations.json (`npm run lint:deps:baseline` rewrites it): CI fails on
// any import or circle not listed there, and the list only shrinks as the plan is put right.

/** The layers, bottom to top, each a path pattern under src/ (the first that matches names a file's layer). */
const LAYERS = [
  ['core', '^src/core/'],
  ['leaves', '^src/(errors|forms|security|messages|theme|uploads|proofs)/'],
  ['stores', '^src/stores/|^src/(redis|postgres)/(?!index\\.ts$)'],
  ['options', '^src/options/'],
  ['observability', '^src/observability/'],
  ['events', '^src/events/'],
  ['notify', '^src/notify/'],
  ['lifecycle', '^src/lifecycle/'],
  ['oauth', '^src/oauth/'],
  ['features', '^src/(http|mcp)/'],
  ['module', '^src/module/|^src/terminus/(?!index\\.ts$)'],
  ['mcp-nest adapter', '^src/mcp-nest/(?!index\\.ts$)'],
  ['entry points', '^src/index\\.ts$|^src/(redis|postgres|store|mcp-nest|terminus)/index\\.ts$|^src/testing/'],
];

/** No layer imports one above it. */
const upward = LAYERS.flatMap(([name, path], i) =>
  LAYERS.slice(i + 1).map(([above, abovePath]) => ({
    name: `no-up-${name}-to-${above}`.replace(/\s+/g, '-'),
    comment: `${name} never imports ${above} (docs/architecture.md, Layers)`,
    severity: 'error',
    from: { path },
    to: { path: abovePath },
  })),
);

module.exports = {
  forbidden: [
    ...upward,
    {
      name: 'no-circular',
      comment: 'no import circle, between files or through folders',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'features-apart',
      comment: 'http/ and mcp/ never import each other',
      severity: 'error',
      from: { path: '^src/(http|mcp)/' },
      to: { path: '^src/(http|mcp)/', pathNot: '^src/$1/' },
    },
    {
      name: 'testing-kit-alone',
      comment: 'the testing kit imports nothing else of src/ (users run it against their own stores and apps)',
      severity: 'error',
      from: { path: '^src/testing/' },
      to: { path: '^src/', pathNot: '^src/testing/|^src/core/elicitation\\.types\\.ts$|^src/stores/(elicitation|task|notice)-store\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.build.json' },
    exclude: { path: '\\.d\\.ts$' },
  },
};
