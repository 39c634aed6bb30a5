// Lint rules: typescript-eslint's recommended set, plus the project's import direction and k6 syntax rules.
// The import direction is that of docs/design/architecture.md; the syntax rules forbid what k6's JavaScript engine
// (Sobek) lacks, in the code that is bundled into k6 scripts.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const K6_CODE = ['lib/**/*.ts', 'thresholds/**/*.ts', 'scenarios/**/*.ts'];
const NODE_CODE = [
  'scripts/**/*.ts', 'orchestrator/**/*.ts', 'report/**/*.ts', 'sim/**/*.ts', 'tokenizer/**/*.ts', 'bench/**/*.ts',
  'node/**/*.ts', 'whatif/**/*.ts', 'analysis/**/*.ts',
];

// Node code never imports what runs in k6.
const NOT_K6 = {
  group: ['**/lib/k6/**', '**/lib/k6', '**/scenarios/**'],
  message: 'Node code never imports lib/k6/ or scenarios/ (they run in k6).',
};

// analysis/ judges (docs/design/architecture.md): it stands on lib/ and thresholds/ only, so the report, the capacity
// search and the prediction can all call it, and no wording of a renderer can reach a verdict.
const ANALYSIS_IMPORTS = {
  group: [
    '../report', '../report/**', '../orchestrator/**', '../whatif/**', '../sim/**', '../scripts/**', '../bench/**',
    '../tokenizer/**', '../deploy/**', '../node/**',
  ],
  message: 'analysis/ imports only analysis/, lib/ and thresholds/: a judgement has no wording and no renderer.',
};

// What other rooms may take from report/: making a report (generate, build-report), reading a run (load-run,
// split-inputs, predicted), the samples interface a prediction fills (samples-collector, predicted-samples), the
// report's shape (report-types) and its words for a verdict (gate-verdict,
// capacity-words). Every judgement (statistics, capacities, intervals, verdicts) comes from analysis/.
const REPORT_ENTRY_POINTS = [
  'generate', 'build-report', 'load-run', 'split-inputs', 'predicted', 'report-types', 'gate-verdict', 'capacity-words',
  'samples-collector', 'predicted-samples',
];
const REPORT_INTERNALS = {
  group: ['../report/*', '../../report/*', ...REPORT_ENTRY_POINTS.flatMap((name) => [
    `!../report/${name}`, `!../../report/${name}`,
  ])],
  message: 'Take judgement from analysis/; report/ offers others only its entry points (eslint.config.js).',
};

const NODE_BUILTINS = [
  'fs', 'path', 'http', 'https', 'os', 'child_process', 'worker_threads', 'url', 'crypto', 'stream', 'events', 'util',
];

// Syntax k6 cannot run and esbuild cannot lower (docs/design/k6-observed.md, "Scripts and bundles").
const sobekGaps = [
  { selector: 'Literal[regex.pattern=/\\(\\?<[^=!]/]', message: 'k6 (Sobek) has no regex named groups.' },
  {
    selector: 'Literal[regex.flags=/[uvd]/]',
    message: 'k6 (Sobek) lacks unicode property escapes and match indices: avoid the u, v and d flags.',
  },
  {
    selector: "CallExpression[callee.property.name='replaceAll']",
    message: 'k6 (Sobek) has no String.prototype.replaceAll; use replace with a /g regex.',
  },
  { selector: 'ForOfStatement[await=true]', message: 'k6 (Sobek) has no for await.' },
  { selector: 'ImportExpression', message: 'k6 (Sobek) has no dynamic import().' },
];

export default tseslint.config(
  {
    ignores: [
      'dist/**', 'dist-node/**', 'node_modules/**', 'results/**', 'coverage/**', '.cache/**', 'test-output/**',
      'test/fixtures/k6-golden/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
      // The limits a newcomer can rely on, as k6's own lint has them: 120 characters a line, 80 lines a function,
      // 500 lines a file. Long strings are split with + rather than exempted; URLs are exempt because a split URL
      // can no longer be copied. Go is held to the same limits by scripts/go-lint.sh.
      'max-len': ['error', { code: 120, tabWidth: 2, ignoreUrls: true }],
      'max-lines-per-function': ['error', { max: 80 }],
      'max-lines': ['error', { max: 500 }],
    },
  },
  {
    // report/ is where most of the suite's wording and arithmetic lives: issue 24 split it into one module per report
    // part and long functions into named steps, and these tighter limits keep it that way.
    files: ['report/**/*.ts', 'analysis/**/*.ts'],
    rules: { 'max-lines': ['error', { max: 400 }], 'max-lines-per-function': ['error', { max: 59 }] },
  },
  {
    files: K6_CODE,
    rules: {
      'no-restricted-syntax': ['error', ...sobekGaps],
    },
  },
  {
    // Plain k6 scripts, for users (examples/), the tests' and the benchmarks' own (test/fixtures/*.js, bench/k6/): k6's
    // globals, and nothing k6 cannot run.
    files: ['examples/**/*.js', 'test/fixtures/*.js', 'bench/k6/*.js'],
    languageOptions: {
      globals: { __ENV: 'readonly', __ITER: 'readonly', __VU: 'readonly', console: 'readonly', open: 'readonly' },
    },
    rules: { 'no-restricted-syntax': ['error', ...sobekGaps] },
  },
  {
    files: ['lib/**/*.ts', 'thresholds/**/*.ts'],
    ignores: ['lib/k6/**'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: NODE_BUILTINS.map((name) => ({
          name, message: 'lib/ is pure: it runs in k6 and Node, so no Node modules.',
        })),
        patterns: [
          { group: ['node:*'], message: 'lib/ is pure: it runs in k6 and Node, so no Node modules.' },
          { group: ['k6', 'k6/*'], message: 'lib/ is pure: k6 modules belong in lib/k6/.' },
          {
            group: ['**/k6/**', '../scenarios/**', '../report/**', '../sim/**', '../scripts/**', '../node/**'],
            message: 'lib/ imports only lib/ and thresholds/.',
          },
        ],
      }],
    },
  },
  {
    // Use cases and their limits are data that lib/ reads: the import goes one way (docs/design/architecture.md).
    files: ['thresholds/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: NODE_BUILTINS.map((name) => ({ name, message: 'thresholds/ is data: no Node modules.' })),
        patterns: [
          { group: ['node:*', 'k6', 'k6/*'], message: 'thresholds/ is data: it runs in k6 and Node alike.' },
          { group: ['../*/**', '../*'], message: 'thresholds/ is data: it imports only thresholds/.' },
        ],
      }],
    },
  },
  {
    files: ['lib/k6/**/*.ts', 'scenarios/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: NODE_BUILTINS.map((name) => ({ name, message: 'k6 code cannot use Node modules.' })),
        patterns: [
          { group: ['node:*'], message: 'k6 code cannot use Node modules.' },
          {
            group: [
              '../report/**', '../sim/**', '../scripts/**', '../node/**',
              '../../report/**', '../../sim/**', '../../scripts/**', '../../node/**',
            ],
            message: 'k6 code imports only lib/ and thresholds/.',
          },
        ],
      }],
    },
  },
  {
    files: NODE_CODE,
    rules: { 'no-restricted-imports': ['error', { patterns: [NOT_K6] }] },
  },
  {
    files: ['analysis/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [NOT_K6, ANALYSIS_IMPORTS] }] },
  },
  {
    files: ['orchestrator/**/*.ts', 'whatif/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [NOT_K6, REPORT_INTERNALS] }] },
  },
);
