import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['dist', 'wasm-pkg', 'node_modules'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      // Folder boundaries (docs/ARCHITECTURE.md): only engine/ imports the wasm
      // package; render/ and store/ stay free of React.
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/wasm-pkg/**'], message: 'Only src/engine may import the wasm package.' }] },
      ],
    },
  },
  {
    files: ['src/engine/**'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    files: ['src/render/**', 'src/store/**', 'src/base/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'react', message: 'render/, store/ and base/ stay free of React.' }],
          patterns: [{ group: ['**/wasm-pkg/**'], message: 'Only src/engine may import the wasm package.' }],
        },
      ],
    },
  },
);
