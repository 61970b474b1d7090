import { DatabaseUnavailableError } from "../../core/errors.js";
import { isDatabaseUnavailable } from "../../shared/database/postgres-errors.js";

/** Rethrows an outage of the database as DATABASE_UNAVAILABLE (503), any other error as it is. */
export function asUnavailable(error: unknown): never {
  if (isDatabaseUnavailable(error)) throw new DatabaseUnavailableError({ cause: error });
  throw error;
}

/**
 * `target` with every method's outage errors turned into DatabaseUnavailableError: a database
 * that is down, restarting or refusing us answers 503, never 500, whatever method met it.
 */
export function guardOutages<T extends object>(target: T): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value: unknown = Reflect.get(object, property, receiver);
      if (typeof value !== "function") return value;
      return async (...args: unknown[]) => {
        try {
          return await (value as (...a: unknown[]) => Promise<unknown>).apply(object, args);
        } catch (error) {
          asUnavailable(error);
        }
      };
    },
  });
}
