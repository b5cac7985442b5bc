// Mutation testing of the core modules: `npm run mutate` (all of them) or
// `npm run mutate -- --mutate src/codex/slug.ts` (one). Not part of `npm test`: it takes minutes.
// Surviving mutants known to change no behaviour are listed, with why, in stryker.survivors.md.

/** Modules of pure logic whose every behaviour a unit test should pin down. */
const coreModules = [
  'src/exec/files/text-edit.ts',
  'src/exec/files/edit-diff.ts',
  'src/exec/search/glob-filter.ts',
  'src/exec/search/ignore-rules.ts',
  'src/exec/terminal/output-buffer.ts',
  'src/exec/workspace.ts',
  'src/codex/slug.ts',
  'src/codex/toml-edit.ts',
  'src/codex/project-trust.ts',
  'src/exec/display-name.ts',
  'src/text-escape.ts',
  'src/exec/fs-errors.ts',
  'src/exec/code-points.ts',
  'src/exec/files/image-header.ts',
]

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  mutate: coreModules,
  testRunner: 'mocha',
  // Stryker runs mocha inside its own worker process, which does not read `node-option` from
  // .mocharc.cjs: the TypeScript loader is given to that process here.
  testRunnerNodeArgs: ['--import', 'tsx'],
  mochaOptions: {
    config: '.mocharc.cjs',
    // The unit tests of src/exec and src/codex; none needs the build (dist/ is not copied).
    spec: ['test/unit/exec/**/*.test.ts', 'test/unit/codex/**/*.test.ts'],
  },
  coverageAnalysis: 'perTest',
  concurrency: 2,
  reporters: ['clear-text', 'progress', 'html'],
  htmlReporter: {fileName: 'reports/mutation/index.html'},
  clearTextReporter: {allowColor: false, logTests: false, reportMutants: true, reportScoreTable: true},
  ignorePatterns: ['dist', 'bench', 'reports', '.venv*'],
  thresholds: {high: 90, low: 85, break: null},
  cleanTempDir: 'always',
}
