/** PGLITE_WASM_COMPILER: the embedded engine's WebAssembly compiler, `baseline` unless set; other values refused at
 * start with the setting's name. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../core/config.ts';

describe('PGLITE_WASM_COMPILER', () => {
  it('defaults to baseline and takes optimizing', () => {
    expect(loadConfig({}).pgliteWasmCompiler).toBe('baseline');
    expect(loadConfig({ PGLITE_WASM_COMPILER: 'optimizing' }).pgliteWasmCompiler).toBe('optimizing');
  });

  it('refuses anything else, naming the setting', () => {
    expect(() => loadConfig({ PGLITE_WASM_COMPILER: 'turbofan' })).toThrow('PGLITE_WASM_COMPILER must be one of baseline, optimizing, got "turbofan"');
  });
});
