// Mocha's settings. Spec files named on the command line (`npx mocha test/interop/x.test.ts`)
// replace the default list instead of being added to it, so one file can be run alone.
const named = process.argv.slice(2).some((arg) => /\.test\.ts$/.test(arg))

module.exports = {
  'node-option': ['import=tsx'],
  // Every test runs with a HOME of its own (see the file).
  require: ['test/helpers/isolated-home.ts'],
  extension: ['ts'],
  spec: named ? [] : ['test/unit/**/*.test.ts', 'test/interop/**/*.test.ts'],
  timeout: 60000,
  'forbid-only': true,
  // End the run when the last test ends, even if a test left something behind that keeps Node's
  // event loop alive (search worker threads of a runtime a test did not close were seen doing so):
  // a leak must fail a test that looks for it, never hang the suite until CI's time runs out.
  exit: true,
  reporter: 'spec',
}
