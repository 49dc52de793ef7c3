/**
 * When the engine itself fails. A panic in the Rust core traps the wasm module
 * (a `WebAssembly.RuntimeError`, "unreachable"); the module's state may be half
 * changed after it, so no later call can be trusted. The worker turns such an
 * error into an `EngineFailure` that says what the core said, and the page
 * offers to restart the engine.
 */

/** The `name` of an error that means the engine can no longer be used. */
export const ENGINE_FAILURE = 'EngineFailure';

/** An error (as it arrives through Comlink: a plain Error keeps its name) that means the engine is broken. */
export function isEngineFailure(error: unknown): error is Error {
  return error instanceof Error && error.name === ENGINE_FAILURE;
}

function asFailure(error: unknown, lastPanic: () => string | undefined): unknown {
  if (!(error instanceof WebAssembly.RuntimeError)) return error;
  let panic: string | undefined;
  try {
    panic = lastPanic();
  } catch {
    // The module cannot even say why: its own error is all there is.
  }
  const failure = new Error(panic ?? `the WebAssembly core stopped: ${error.message}`);
  failure.name = ENGINE_FAILURE;
  return failure;
}

/**
 * The engine's methods, each turning a trap of the wasm module (thrown, or a
 * rejected promise) into an `EngineFailure` with the core's panic message.
 */
export function guardEngine<T extends Record<string, unknown>>(engine: T, lastPanic: () => string | undefined): T {
  const guarded: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(engine)) {
    if (typeof value !== 'function') {
      guarded[key] = value;
      continue;
    }
    guarded[key] = (...args: unknown[]) => {
      let result: unknown;
      try {
        result = (value as (...a: unknown[]) => unknown).apply(engine, args);
      } catch (error) {
        throw asFailure(error, lastPanic);
      }
      if (result instanceof Promise) return result.catch((error: unknown) => Promise.reject(asFailure(error, lastPanic)));
      return result;
    };
  }
  return guarded as T;
}

/** For a `catch` that turns errors into messages for the user: a trap is not one of them, and goes on up. */
export function rethrowTrap(error: unknown): void {
  if (error instanceof WebAssembly.RuntimeError) throw error;
}
