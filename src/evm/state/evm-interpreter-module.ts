/**
 * The module of @ethereumjs/evm's `Interpreter` class, which the package does not export: loaded by
 * file URL next to the package entry, so it is the module instance the EVM itself uses. The start
 * bundle (scripts/build-start-bundle.mjs) replaces this file with a static import of the same module, the copy
 * inside the bundle.
 */
export function importInterpreterModule(): Promise<unknown> {
  return import(new URL('./interpreter.js', import.meta.resolve('@ethereumjs/evm')).href)
}
