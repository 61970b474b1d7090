/** A value now, or a promise of it: what a step returns when it only sometimes has to wait. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * `next(value)` at once when `value` is there, else once its promise resolves. An `await` of a
 * value costs a microtask turn all the same: the upload's part path made about ten a part, most
 * of them for values already there (issue 32).
 */
export function thenNow<T, R>(value: MaybePromise<T>, next: (value: T) => MaybePromise<R>): MaybePromise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}
